//! The benchmark's command line, and what follows from it alone: how an
//! operation is loaded and measured, and the empty database of a backend.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};

use crate::load;

/// Load benchmark of Kenning's HTTP API.
#[derive(Debug, Parser)]
pub struct Args {
    /// Directory sizes, smallest first; the directory grows between them.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
    pub sizes: Vec<u64>,
    /// Backends to measure: sqlite, postgres.
    #[arg(long, value_delimiter = ',', default_value = "sqlite,postgres")]
    pub backends: Vec<String>,
    /// A PostgreSQL server the benchmark may create its database on.
    #[arg(long, env = "KENNING_BENCH_POSTGRES_URL")]
    pub postgres_url: Option<String>,
    /// The PostgreSQL database the benchmark drops and creates.
    #[arg(long, default_value = "kenning_bench")]
    pub postgres_database: String,
    /// Concurrent client connections for the operations with a throughput
    /// target.
    #[arg(long, default_value_t = 16)]
    pub connections: usize,
    /// Concurrent client connections for the operations with a latency
    /// target alone: one per core of this machine, so a request's latency
    /// is its own and not the time it queued behind the others.
    #[arg(long, default_value_t = 2)]
    pub latency_connections: usize,
    /// Seconds measured per operation.
    #[arg(long, default_value_t = 5)]
    pub seconds: u64,
    /// Seconds of load before measuring, per operation.
    #[arg(long, default_value_t = 1)]
    pub warm_up: u64,
    /// Measure instead how long a start with changed scoring settings
    /// takes to rebuild the standings of this many actions (two topics
    /// each, by 10,000 people), and its peak memory.
    #[arg(long)]
    pub rebuild: Option<u64>,
    /// Measure instead connector uploads through the single and the batch
    /// endpoint (`make bench-ingest`).
    #[arg(long)]
    pub ingest: bool,
    /// Measure instead the ready connectors against the batch endpoint
    /// sending the same uploads (`make bench-connect`).
    #[arg(long)]
    pub connect: bool,
    /// Measure instead what finding topics by meaning costs: off, static
    /// vectors and the model on the same data (`make bench-meaning`).
    #[arg(long)]
    pub meaning: bool,
    /// Folder for the SQLite database.
    #[arg(long, default_value = "target/bench-api")]
    pub folder: PathBuf,
    /// Measure only the operations whose name contains one of these
    /// texts (the baseline always runs): a quicker look at a few rows.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

impl Args {
    /// Drives `make`, checked by `check`, as `drive` says (closed loop
    /// over so many connections, or open loop at a rate) for this run's
    /// warm-up and measured seconds; the first failed request, if any, is
    /// printed under `what`.
    pub fn measure(
        &self,
        make: Arc<load::Make>,
        check: Arc<load::Check>,
        drive: Load,
        what: &str,
    ) -> load::Stats {
        let (warm_up, seconds) = (
            Duration::from_secs(self.warm_up),
            Duration::from_secs(self.seconds),
        );
        let stats = match drive {
            Load::Connections(n) => load::run(make, check, n, warm_up, seconds),
            Load::Rate(rate) => load::run_at_rate(make, check, rate, warm_up, seconds),
        };
        if let Some(e) = &stats.first_error {
            eprintln!("{what}: {} errors, first: {e}", stats.errors);
        }
        stats
    }
}

/// How a measured operation is loaded.
#[derive(Debug, Clone, Copy)]
pub enum Load {
    /// Closed loop over this many connections.
    Connections(usize),
    /// Open loop at this many requests a second.
    Rate(f64),
}

/// The database URL of `backend`, created empty.
pub fn fresh_database(args: &Args, backend: &str) -> anyhow::Result<Option<String>> {
    match backend {
        "sqlite" => {
            std::fs::create_dir_all(&args.folder)?;
            let path = args.folder.join("kenning-bench.db");
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            let path = std::path::absolute(&path)?;
            Ok(Some(format!("sqlite://{}", path.display())))
        }
        "postgres" => {
            let Some(admin) = &args.postgres_url else {
                eprintln!(
                    "PostgreSQL NOT MEASURED: set KENNING_BENCH_POSTGRES_URL (or --postgres-url)"
                );
                return Ok(None);
            };
            let mut conn = PgConnection::establish(admin).context("connect to PostgreSQL")?;
            // Each on its own: neither may run inside a transaction block.
            let name = &args.postgres_database;
            anyhow::ensure!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "--postgres-database: lower-case letters and `_` only"
            );
            conn.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))?;
            conn.batch_execute(&format!("CREATE DATABASE {name}"))?;
            let server = admin
                .rsplit_once('/')
                .map_or(admin.as_str(), |(server, _)| server);
            Ok(Some(format!("{server}/{name}")))
        }
        other => anyhow::bail!("unknown backend `{other}`: use sqlite or postgres"),
    }
}
