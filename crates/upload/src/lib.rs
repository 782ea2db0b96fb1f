//! `kenning upload`: the reference connector. Reads a JSON Lines file of
//! upload objects, or a directory of texts, as a source of the connect
//! engine (`connect::drive`), which sends them to a server's batch
//! endpoint with bounded concurrency; a checkpoint file makes a repeated
//! run send only what was not acknowledged, and a report file lists what
//! was refused, not found or failed, with why. A client of the connector
//! API alone: it knows nothing of the service's crates, as a connector
//! written by anyone else would not. The `kenning` binary runs it as its
//! `upload` command.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::json;

mod args;
pub mod client;
pub mod codes;
pub mod connect;
pub mod demo;
mod input;
mod pipeline;
mod progress;
mod send;
mod source;
mod tally;

pub use args::UploadArgs;
use codes::Code;
use connect::{Directory, IdentityFile, Mark, Planned, Settings, Window, UNREADABLE};
use send::Outcome;
use source::Uploads;
use tally::Tally;

/// A path beside `input` (a file, or a directory's path) with `suffix`.
fn beside(input: &Path, suffix: &str) -> PathBuf {
    let mut name = input
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    input.with_file_name(name)
}

/// The keys of a checkpoint file (none when it does not exist yet).
fn load_checkpoint(path: &Path) -> anyhow::Result<HashSet<String>> {
    match File::open(path) {
        Ok(file) => BufReader::new(file)
            .lines()
            .map(|l| Ok(l?.trim().to_owned()))
            .filter(|l| !matches!(l, Ok(l) if l.is_empty()))
            .collect::<anyhow::Result<_>>()
            .with_context(|| format!("cannot read the checkpoint {}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashSet::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read the checkpoint {}", path.display())),
    }
}

/// Where a run keeps what it did: the checkpoint of the uploads
/// acknowledged and the report of those refused.
struct Records {
    checkpoint_path: PathBuf,
    report_path: PathBuf,
    checkpoint: File,
    report: File,
    /// The keys acknowledged in the batch being counted.
    acknowledged: String,
}

impl Records {
    /// Where the checkpoint and the report are kept: beside the input
    /// unless named.
    fn paths(args: &UploadArgs) -> (PathBuf, PathBuf) {
        let checkpoint = args
            .checkpoint
            .clone()
            .unwrap_or_else(|| beside(&args.input, ".kenning-checkpoint"));
        let report = args
            .report
            .clone()
            .unwrap_or_else(|| beside(&args.input, ".kenning-failures.jsonl"));
        (checkpoint, report)
    }

    /// The checkpoint at `checkpoint_path` (appended to) and a new report
    /// at `report_path`.
    fn open(checkpoint_path: PathBuf, report_path: PathBuf) -> anyhow::Result<Self> {
        let checkpoint = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&checkpoint_path)
            .with_context(|| {
                format!("cannot write the checkpoint {}", checkpoint_path.display())
            })?;
        let report = File::create(&report_path)
            .with_context(|| format!("cannot write the report {}", report_path.display()))?;
        Ok(Self {
            checkpoint_path,
            report_path,
            checkpoint,
            report,
            acknowledged: String::new(),
        })
    }

    fn write_report(&mut self, origin: &str, code: &str, problem: &str) -> anyhow::Result<()> {
        let line = json!({ "item": origin, "code": code, "problem": problem });
        writeln!(self.report, "{line}")?;
        Ok(())
    }
}

/// The checkpoint is kept by key, not by position: what was refused is
/// sent again by the next run, once its cause is mended.
impl Mark for Records {
    fn passed(&mut self, _position: &str) -> anyhow::Result<()> {
        Ok(())
    }

    fn answered(&mut self, upload: &Planned, outcome: &Outcome) -> anyhow::Result<()> {
        let origin = &upload.origin;
        match outcome {
            Outcome::Sent | Outcome::Known => {
                if let Some(key) = &upload.key {
                    self.acknowledged.push_str(key);
                    self.acknowledged.push('\n');
                }
                Ok(())
            }
            Outcome::NotFound { problem } => {
                self.write_report(origin, Code::UnknownUser.as_str(), problem)
            }
            Outcome::Refused { code, problem } => self.write_report(origin, code, problem),
            Outcome::Failed { problem } => self.write_report(origin, "Failed", problem),
        }
    }

    fn unreadable(&mut self, origin: &str, problem: &str) -> anyhow::Result<()> {
        self.write_report(origin, UNREADABLE, problem)?;
        self.report.flush()?;
        Ok(())
    }

    fn counted(&mut self) -> anyhow::Result<()> {
        self.checkpoint
            .write_all(std::mem::take(&mut self.acknowledged).as_bytes())?;
        // On disk before the next batch is counted: a crash loses at most
        // the batches in flight, which a new run sends again (and an alias
        // makes a repeat a duplicate).
        self.checkpoint.sync_data()?;
        self.report.flush()?;
        Ok(())
    }
}

/// `kenning upload` asks the server about nobody: each upload names its
/// person, and the server answers `UnknownUser` for one it does not know.
struct Nobody;

impl Directory for Nobody {
    fn resolve(
        &self,
        identities: &[(Option<String>, Option<String>)],
    ) -> anyhow::Result<Vec<Option<String>>> {
        Ok(vec![None; identities.len()])
    }
}

/// Runs `kenning upload`: its input is a source of the connect engine,
/// kept by the checkpoint and the report.
pub fn run(args: UploadArgs) -> anyhow::Result<()> {
    let (checkpoint_path, report_path) = Records::paths(&args);
    let done = load_checkpoint(&checkpoint_path)?;
    let skip = [checkpoint_path.clone(), report_path.clone()];
    let mut uploads = Uploads::open(&args, &skip, done)?;
    let mut records = Records::open(checkpoint_path, report_path)?;
    let settings = Settings {
        sending: args.sending.clone(),
        identities: IdentityFile::default(),
        window: Window::default(),
        dry_run: false,
        quiet: false,
        cursor_dir: None,
        most: None,
        progress_every: Duration::from_secs(args.progress_secs),
    };
    let sender = args.sending.sender(args.sending.client());
    let started = Instant::now();
    let (tally, stopped) = connect::drive(
        &mut uploads,
        &settings,
        &Nobody,
        &sender,
        None,
        Some(&mut records),
    );
    summary(&tally, started, &records.report_path);
    if let Some(e) = stopped {
        return Err(e.context(format!(
            "stopped; a new run sends what was not acknowledged (checkpoint {})",
            records.checkpoint_path.display()
        )));
    }
    let not_sent = tally.refused_total() + tally.not_found + tally.failed;
    if not_sent > 0 {
        anyhow::bail!(
            "{not_sent} uploads were refused, not found or failed; see {}",
            records.report_path.display()
        );
    }
    Ok(())
}

/// What the run did, on standard error: the counts, then each code
/// refused.
fn summary(tally: &Tally, started: Instant, report: &Path) {
    eprintln!(
        "{}, acknowledged before {}; {:.1} s ({:.0}/s)",
        tally.line(false),
        tally.before(),
        started.elapsed().as_secs_f64(),
        tally.rate(started),
    );
    for (code, n) in &tally.refused {
        eprintln!("  refused {code}: {n}");
    }
    if tally.has_problems() || tally.not_found > 0 {
        eprintln!(
            "every upload refused, not found or failed, with why: {}",
            report.display()
        );
    }
}
