//! The release `kenning` binary, run as an operator would: migrated, a
//! token and an API key issued, served on a free port of the loopback
//! interface, asked over GraphQL.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use kenning_tools_common::serve::{self, Indexed, Server};
use serde_json::{json, Value};

pub use kenning_tools_common::serve::{command, release_binary};

/// How `kenning serve` finds topics by meaning.
#[derive(Debug, Clone)]
pub enum Meaning {
    /// The default models (`make model`): the English model and the
    /// multilingual one for other languages.
    Models { english: PathBuf, other: PathBuf },
    /// `--meaning off`: topics by their words alone.
    Off,
}

impl Meaning {
    /// The arguments of `kenning serve` that say so.
    fn args(&self) -> Vec<OsString> {
        match self {
            Meaning::Models { english, other } => vec![
                "--model-dir".into(),
                english.into(),
                "--other-languages-model-dir".into(),
                other.into(),
            ],
            Meaning::Off => vec!["--meaning".into(), "off".into()],
        }
    }
}

/// A running `kenning serve` on one SQLite database.
#[derive(Debug)]
pub struct Kenning {
    server: Server,
    token: String,
    agent: ureq::Agent,
}

impl Kenning {
    /// Starts `binary` on the database at `url` with `meaning`, with a
    /// new token, and waits until it is ready.
    pub fn start(binary: &Path, url: &str, meaning: &Meaning) -> anyhow::Result<Self> {
        let token = command(binary, url, &["token", "create", "--name", "eval-real"])?;
        let server = Server::start(binary, url, &meaning.args(), &[], Duration::from_secs(900))?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .build()
            .into();
        Ok(Self {
            server,
            token,
            agent,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> &str {
        &self.server.base
    }

    /// Runs the GraphQL `document` with `variables`; its `data`, or the
    /// errors it answered.
    pub fn graphql(&self, document: &str, variables: Value) -> anyhow::Result<Value> {
        let mut response = self
            .agent
            .post(&format!("{}/accounts/api/v1/graphql", self.base()))
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

    /// Waits until the index of meanings holds `learned` topics, at most
    /// [`INDEX_PATIENCE`]; past it the questions are asked of what is
    /// indexed, and the run says how much that was.
    pub fn wait_indexed(&self, learned: i64) -> anyhow::Result<Indexed> {
        serve::wait_indexed(self.base(), learned, INDEX_PATIENCE)
    }
}

/// How long the questions wait for the index of meanings.
const INDEX_PATIENCE: Duration = Duration::from_secs(3000);
