//! One `kenning connect` run per source, as an operator types it, and what
//! it left in the database.

use std::path::Path;
use std::process::Command;

use anyhow::Context;

use crate::server::Kenning;
use crate::sources::Kind;
use crate::store;

/// What a source's run said and stored.
#[derive(Debug, Clone)]
pub struct Ingest {
    pub kind: Kind,
    /// The run's summary as it printed it (read, sent, skipped and why).
    pub summary: String,
    pub exit: Option<i32>,
    pub seconds: f64,
    /// Uploads stored, and the topic rows they keep.
    pub stored: store::Stored,
    /// Bytes the database grew by.
    pub bytes: i64,
}

/// Where and how `kenning connect` runs.
#[derive(Debug)]
pub struct Connector<'a> {
    pub binary: &'a Path,
    pub kenning: &'a Kenning,
    pub api_key: &'a str,
    /// The folder the sources were fetched into.
    pub data: &'a Path,
    pub cursors: &'a Path,
    /// The SQLite database's path.
    pub database: &'a str,
}

impl Connector<'_> {
    /// Runs `kenning connect` on the source of `kind`.
    pub fn run(&self, kind: Kind, identities: Option<&Path>) -> anyhow::Result<Ingest> {
        let Self {
            binary,
            kenning,
            api_key,
            data,
            cursors,
            database,
        } = *self;
        let before = store::bytes(database)?;
        let started = std::time::Instant::now();
        let mut command = Command::new(binary);
        command
            .args(["connect", kind.command()])
            .arg(kind.path(data))
            .args(kind.connect_args())
            .args(["--url", kenning.base(), "--report", "--quiet"])
            .arg("--cursor-dir")
            .arg(cursors)
            .env("KENNING_API_KEY", api_key);
        if let Some(identities) = identities {
            command.arg("--identities").arg(identities);
        }
        let out = command.output().context("run kenning connect")?;
        let seconds = started.elapsed().as_secs_f64();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let stored = store::stored(database, kind.entity_types())?;
        Ok(Ingest {
            kind,
            summary: said,
            exit: out.status.code(),
            seconds,
            stored,
            bytes: store::bytes(database)? - before,
        })
    }
}
