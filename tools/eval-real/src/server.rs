//! The release `kenning` binary, run as an operator would: migrated, a
//! token and an API key issued, served on a free port of the loopback
//! interface, asked over GraphQL.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};

/// How `kenning serve` finds topics by meaning.
#[derive(Debug, Clone)]
pub enum Meaning {
    /// The default models (`make model`): the English model and the
    /// multilingual one for other languages.
    Models { english: PathBuf, other: PathBuf },
    /// `--meaning off`: topics by their words alone.
    Off,
}

/// A running `kenning serve` on one SQLite database.
#[derive(Debug)]
pub struct Kenning {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    token: String,
    agent: ureq::Agent,
}

/// Runs `kenning` once with `args` on the database at `url`; what it
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

impl Kenning {
    /// Starts `binary` on the database at `url` with `meaning`, with a
    /// new token, and waits until it is ready.
    pub fn start(binary: &Path, url: &str, meaning: &Meaning) -> anyhow::Result<Self> {
        let token = command(binary, url, &["token", "create", "--name", "eval-real"])?;
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut serve = Command::new(binary);
        serve.arg("serve");
        match meaning {
            Meaning::Models { english, other } => {
                serve
                    .arg("--model-dir")
                    .arg(english)
                    .arg("--other-languages-model-dir")
                    .arg(other);
            }
            Meaning::Off => {
                serve.args(["--meaning", "off"]);
            }
        }
        let child = serve
            .env("DATABASE_URL", url)
            .env("KENNING_BIND", format!("127.0.0.1:{port}"))
            // One client sending a whole organisation's history at once.
            .env("KENNING_REQUESTS_PER_MINUTE", "100000000")
            .env("KENNING_PURGE_INTERVAL_SECS", "86400")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("start {}", binary.display()))?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .build()
            .into();
        let server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            token,
            agent,
        };
        server.wait_ready(Duration::from_secs(900))?;
        Ok(server)
    }

    fn wait_ready(&self, patience: Duration) -> anyhow::Result<()> {
        let started = Instant::now();
        let url = format!("{}/readyz", self.base);
        while started.elapsed() < patience {
            if let Ok(response) = self.agent.get(&url).call() {
                if response.status().is_success() {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        bail!("{url} was not ready within {} s", patience.as_secs())
    }

    /// Runs the GraphQL `document` with `variables`; its `data`, or the
    /// errors it answered.
    pub fn graphql(&self, document: &str, variables: Value) -> anyhow::Result<Value> {
        let mut response = self
            .agent
            .post(&format!("{}/accounts/api/v1/graphql", self.base))
            .header("Authorization", &format!("Bearer {}", self.token))
            .header("Content-Type", "application/json")
            .send(json!({ "query": document, "variables": variables }).to_string())?;
        let body: Value = serde_json::from_str(&response.body_mut().read_to_string()?)?;
        if let Some(errors) = body.get("errors") {
            bail!("GraphQL answered {errors}");
        }
        body.get("data")
            .cloned()
            .context("a GraphQL answer with data")
    }

    /// How many learned topics the index of meanings holds (-1 without a
    /// model), from the server's metrics.
    fn indexed_topics(&self) -> anyhow::Result<i64> {
        let body = self
            .agent
            .get(&format!("{}/metrics", self.base))
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

    /// Waits until the index of meanings holds `learned` topics, at most
    /// [`INDEX_PATIENCE`]; the seconds it took and the topics indexed
    /// then (-1 without a model).
    pub fn wait_indexed(&self, learned: i64) -> anyhow::Result<(f64, i64)> {
        let started = Instant::now();
        loop {
            let topics = self.indexed_topics()?;
            let seconds = started.elapsed().as_secs_f64();
            if topics < 0 || topics >= learned || started.elapsed() > INDEX_PATIENCE {
                return Ok((seconds, topics));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// How long the questions wait for the index of meanings; past it they
/// are asked of what is indexed, and the run says how much that was.
const INDEX_PATIENCE: Duration = Duration::from_secs(1500);

impl Drop for Kenning {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The release binary next to this one.
pub fn release_binary() -> anyhow::Result<PathBuf> {
    let me = std::env::current_exe()?;
    let folder = me
        .parent()
        .context("the evaluation's binary has a folder")?;
    Ok(folder.join("kenning"))
}
