//! `make bench-api`: Kenning's HTTP API under load, on a generated
//! directory of growing size, on SQLite and PostgreSQL, against a bare
//! actix-web handler that serves the same JSON from the same database in
//! the same run. Prints one table; docs/performance.md records it with the
//! machine and the method.

mod directory;
mod ingest;
mod load;
mod meaning;
mod ops;
mod server;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use kenning_domain::Scoring;
use kenning_store_diesel::Database;

use crate::ops::{Drive, Row, Target};
use crate::server::Kenning;

/// Load benchmark of Kenning's HTTP API.
#[derive(Debug, Parser)]
pub struct Args {
    /// Directory sizes, smallest first; the directory grows between them.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
    sizes: Vec<u64>,
    /// Backends to measure: sqlite, postgres.
    #[arg(long, value_delimiter = ',', default_value = "sqlite,postgres")]
    backends: Vec<String>,
    /// A PostgreSQL server the benchmark may create its database on.
    #[arg(long, env = "KENNING_BENCH_POSTGRES_URL")]
    postgres_url: Option<String>,
    /// The PostgreSQL database the benchmark drops and creates.
    #[arg(long, default_value = "kenning_bench")]
    postgres_database: String,
    /// Concurrent client connections for the operations with a throughput
    /// target.
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// Concurrent client connections for the operations with a latency
    /// target alone: one per core of this machine, so a request's latency
    /// is its own and not the time it queued behind the others.
    #[arg(long, default_value_t = 2)]
    latency_connections: usize,
    /// Seconds measured per operation.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Seconds of load before measuring, per operation.
    #[arg(long, default_value_t = 1)]
    warm_up: u64,
    /// Measure instead how long a start with changed scoring settings
    /// takes to rebuild the standings of this many actions (two topics
    /// each, by 10,000 people), and its peak memory.
    #[arg(long)]
    rebuild: Option<u64>,
    /// Measure instead connector uploads through the single and the batch
    /// endpoint (`make bench-ingest`).
    #[arg(long)]
    ingest: bool,
    /// Measure instead what finding topics by meaning costs: off, static
    /// vectors and the model on the same data (`make bench-meaning`).
    #[arg(long)]
    meaning: bool,
    /// Folder for the SQLite database.
    #[arg(long, default_value = "target/bench-api")]
    folder: PathBuf,
    /// Measure only the operations whose name contains one of these
    /// texts (the baseline always runs): a quicker look at a few rows.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

impl Args {
    /// Drives `make`, checked by `check`, as `drive` says (closed loop
    /// over so many connections, or open loop at a rate) for this run's
    /// warm-up and measured seconds; the first failed request, if any, is
    /// printed under `what`.
    fn measure(
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
enum Load {
    /// Closed loop over this many connections.
    Connections(usize),
    /// Open loop at this many requests a second.
    Rate(f64),
}

/// The database URL of `backend`, created empty.
fn fresh_database(args: &Args, backend: &str) -> anyhow::Result<Option<String>> {
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

/// Measures every operation on one backend at every size.
fn measure_backend(
    args: &Args,
    backend: &str,
    url: &str,
    keys: &[String],
    rows: &mut Vec<Row>,
    plans: &mut Vec<String>,
) -> anyhow::Result<()> {
    let binary = server::release_binary()?;
    Kenning::migrate(&binary, url)?;
    let db = Database::connect(url)?;
    let baseline = server::start_baseline(url)?;
    let scoring = Scoring::default();
    let mut stored = 0;
    for &size in &args.sizes {
        let started = Instant::now();
        directory::add_people(&db, stored, size)?;
        eprintln!(
            "{backend}: people {stored}..{size} stored in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        if stored == 0 {
            let started = Instant::now();
            directory::add_expertise(url, keys, &scoring)?;
            eprintln!(
                "{backend}: expertise stored in {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
        directory::analyze(url)?;
        stored = size;
        let kenning = Kenning::start(&binary, url)?;
        let operations = ops::operations(&kenning, &baseline, size);
        let mut baseline_rate = None;
        let chosen = operations.iter().filter(|o| {
            o.target == Target::Baseline
                || args.only.is_empty()
                || args.only.iter().any(|text| o.name.contains(text.as_str()))
        });
        for operation in chosen {
            let what = format!("{backend} {size} {}", operation.name);
            let (load, shown) = match (operation.drive, operation.target) {
                (Drive::Rate(rate), _) => (Load::Rate(rate), format!("{rate}/s")),
                (Drive::Connections(n), _) => (Load::Connections(n), n.to_string()),
                (Drive::Closed, Target::P99Below(_)) => (
                    Load::Connections(args.latency_connections),
                    args.latency_connections.to_string(),
                ),
                (Drive::Closed, _) => (
                    Load::Connections(args.connections),
                    args.connections.to_string(),
                ),
            };
            let stats = args.measure(operation.make.clone(), operation.check.clone(), load, &what);
            if operation.target == Target::Baseline {
                baseline_rate = Some(stats.per_second);
            }
            rows.push(Row::new(
                operation,
                size,
                backend,
                shown,
                stats,
                baseline_rate,
            ));
        }
        let (_, peak) = kenning.memory()?;
        rows.push(Row::memory(size, backend, peak));
    }
    // The plans at the largest size, statistics refreshed after the load.
    directory::analyze(url)?;
    let size = args.sizes.last().copied().unwrap_or_default();
    let mut report = format!("\nQuery plans on {backend} at {size} users:\n");
    for plan in db.query_plans()? {
        report.push_str(&format!("\n{}:\n```\n{}\n```\n", plan.statement, plan.plan));
    }
    plans.push(report);
    Ok(())
}

/// The start after a change of scoring settings on one backend.
struct Rebuild {
    /// Seconds until the server answered `/readyz`.
    ready: f64,
    /// Seconds until the standings were rebuilt (the new settings recorded).
    rebuilt: f64,
    /// Peak resident memory of the server in MiB.
    peak: f64,
}

/// Measures a start after a change of scoring settings on one backend.
fn measure_rebuild(url: &str, actions: u64) -> anyhow::Result<Rebuild> {
    let binary = server::release_binary()?;
    Kenning::migrate(&binary, url)?;
    let db = Database::connect(url)?;
    directory::add_people(&db, 0, directory::EXPERTS)?;
    let per_person = actions.div_ceil(directory::EXPERTS).max(1);
    directory::add_actions(url, per_person, &Scoring::default())?;
    directory::analyze(url)?;
    let old = directory::standings_fingerprint(url)?;
    let started = Instant::now();
    let kenning = Kenning::start_with(&binary, url, &[("KENNING_HALF_LIFE_DAYS", "200")])?;
    let ready = started.elapsed().as_secs_f64();
    while directory::standings_fingerprint(url)? == old {
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(3_600),
            "the standings were not rebuilt within an hour"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rebuilt = started.elapsed().as_secs_f64();
    let (_, peak) = kenning.memory()?;
    Ok(Rebuild {
        ready,
        rebuilt,
        peak,
    })
}

fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(actions) = args.rebuild {
        println!(
            "| standings rebuild at start | backend | actions | seconds to ready | seconds to rebuilt | peak MiB |"
        );
        println!("|---|---|---:|---:|---:|---:|");
        for backend in &args.backends {
            let measured = fresh_database(args, backend).and_then(|url| match url {
                Some(url) => measure_rebuild(&url, actions).map(Some),
                None => Ok(None),
            });
            match measured {
                Ok(Some(r)) => println!(
                    "| half-life 365 -> 200 days | {backend} | {actions} | {:.1} | {:.1} | {:.0} |",
                    r.ready, r.rebuilt, r.peak
                ),
                Ok(None) => {}
                Err(e) => eprintln!("{backend} NOT MEASURED: {e:#}"),
            }
        }
        return Ok(());
    }
    if args.meaning {
        for backend in &args.backends {
            match meaning::measure(args, backend) {
                Ok(rows) if rows.is_empty() => {}
                Ok(rows) => meaning::print_table(backend, &rows)?,
                Err(e) => eprintln!("{backend} NOT MEASURED: {e:#}"),
            }
        }
        return Ok(());
    }
    if args.ingest {
        // Measured first, before any server runs, as the rows' bound.
        let extraction = ingest::extraction_rate(Duration::from_secs(args.seconds));
        let mut rows = Vec::new();
        for backend in &args.backends {
            let measured = fresh_database(args, backend).and_then(|url| match url {
                Some(url) => ingest::measure(
                    backend,
                    &url,
                    args,
                    &[(1, 100), (2, 100), (4, 100), (8, 100)],
                ),
                None => Ok(Vec::new()),
            });
            match measured {
                Ok(measured) => rows.extend(measured),
                Err(e) => eprintln!("{backend} NOT MEASURED: {e:#}"),
            }
        }
        ingest::print_table(&rows, extraction);
        return Ok(());
    }
    let mut rows = Vec::new();
    let mut plans = Vec::new();
    let keys = ops::topic_keys();
    for backend in &args.backends {
        let measured = fresh_database(args, backend).and_then(|url| match url {
            Some(url) => measure_backend(args, backend, &url, &keys, &mut rows, &mut plans),
            None => Ok(()),
        });
        // One backend failing leaves the other's numbers worth printing.
        if let Err(e) = measured {
            eprintln!("{backend} NOT MEASURED: {e:#}");
        }
    }
    ops::print_table(&rows);
    for report in plans {
        println!("{report}");
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    run(&Args::parse())
}
