//! The release `kenning` binary run as an operator would: a command on a
//! database, `kenning serve` on a free port of the loopback interface,
//! and what its metrics and its database say about the index of meanings.

use std::ffi::OsStr;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl, SqliteConnection};

/// The release binary next to the running tool's.
pub fn release_binary() -> anyhow::Result<PathBuf> {
    let me = std::env::current_exe()?;
    let folder = me.parent().context("the tool's binary has a folder")?;
    Ok(folder.join("kenning"))
}

/// A free port on the loopback interface.
pub fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Runs `binary` once with `args` on the database at `url`; what it
/// printed on stdout, trimmed.
pub fn command(binary: &Path, url: &str, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new(binary)
        .args(args)
        .env("DATABASE_URL", url)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("run {}", binary.display()))?;
    if !out.status.success() {
        bail!("`kenning {}` failed: {}", args.join(" "), out.status);
    }
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// A running `kenning serve`, stopped when dropped.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Server {
    /// Starts `binary serve` with `args` on the database at `url` and a
    /// free port, for one client sending as fast as it can (no rate
    /// limit, no purge meanwhile), with `settings` added to its
    /// environment; waits at most `patience` until it is ready.
    pub fn start<S: AsRef<OsStr>>(
        binary: &Path,
        url: &str,
        args: &[S],
        settings: &[(&str, &str)],
        patience: Duration,
    ) -> anyhow::Result<Self> {
        let port = free_port()?;
        let child = Command::new(binary)
            .arg("serve")
            .args(args)
            .env("DATABASE_URL", url)
            .env("KENNING_BIND", format!("127.0.0.1:{port}"))
            .env("KENNING_REQUESTS_PER_MINUTE", "100000000")
            .env("KENNING_PURGE_INTERVAL_SECS", "86400")
            .env("RUST_LOG", "warn")
            .envs(settings.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("start {}", binary.display()))?;
        let server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        wait_ready(&format!("{}/readyz", server.base), patience)?;
        Ok(server)
    }

    /// The server's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits at most `patience` until `url` answers with success.
pub fn wait_ready(url: &str, patience: Duration) -> anyhow::Result<()> {
    let started = Instant::now();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into();
    while started.elapsed() < patience {
        if let Ok(response) = agent.get(url).call() {
            if response.status().is_success() {
                return Ok(());
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    bail!("{url} was not ready within {} s", patience.as_secs())
}

/// How many learned topics the index of meanings of the server at `base`
/// holds, from its metrics; -1 when it runs without a model.
pub fn indexed_topics(base: &str) -> anyhow::Result<i64> {
    let body = ureq::get(&format!("{base}/metrics"))
        .call()?
        .body_mut()
        .read_to_string()?;
    body.lines()
        .find_map(|l| l.strip_prefix("kenning_meaning_topics "))
        .context("kenning_meaning_topics in /metrics")?
        .trim()
        .parse()
        .context("a number of topics")
}

/// Where the index of meanings stood when [`wait_indexed`] stopped waiting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Indexed {
    /// Seconds waited.
    pub seconds: f64,
    /// Topics indexed then; -1 when the server runs without a model.
    pub topics: i64,
}

impl Indexed {
    /// Whether every one of `learned` topics was indexed.
    pub fn complete(&self, learned: i64) -> bool {
        self.topics >= learned
    }
}

/// Waits until the server at `base` has indexed `learned` topics by
/// meaning, runs without a model, or `patience` has passed; where the
/// index stood then. What a partial index means is the caller's to say.
pub fn wait_indexed(base: &str, learned: i64, patience: Duration) -> anyhow::Result<Indexed> {
    let started = Instant::now();
    loop {
        let topics = indexed_topics(base)?;
        let indexed = Indexed {
            seconds: started.elapsed().as_secs_f64(),
            topics,
        };
        if topics < 0 || indexed.complete(learned) || started.elapsed() > patience {
            return Ok(indexed);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How many topics somebody learned, as the database at `url`
/// (`sqlite://PATH` or PostgreSQL's) counts them.
pub fn learned_topics(url: &str) -> anyhow::Result<i64> {
    #[derive(QueryableByName)]
    struct Counted {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        topics: i64,
    }
    const COUNT: &str = "SELECT COUNT(*) AS topics FROM topic_learners WHERE people > 0";
    let found: Vec<Counted> = match url.strip_prefix("sqlite://") {
        Some(path) => diesel::sql_query(COUNT).load(&mut SqliteConnection::establish(path)?)?,
        None => diesel::sql_query(COUNT).load(&mut PgConnection::establish(url)?)?,
    };
    Ok(found.first().map_or(0, |c| c.topics))
}
