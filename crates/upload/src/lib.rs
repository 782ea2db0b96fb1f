//! `kenning upload`: the reference connector. Reads a JSON Lines file of
//! upload objects, or a directory of texts, and sends them to a server's
//! batch endpoint with bounded concurrency; a checkpoint file makes a
//! repeated run send only what was not acknowledged, and a report file
//! lists what was refused or failed, with why. A client of the connector
//! API alone: it knows nothing of the service's crates, as a connector
//! written by anyone else would not. The `kenning` binary runs it as its
//! `upload` command.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Map, Value};

pub mod connect;
pub mod demo;
mod input;
mod send;

use input::{Item, Unreadable};
use send::{Fatal, Outcome, Sending};

/// The arguments of `kenning upload`.
#[derive(Debug, Args)]
pub struct UploadArgs {
    /// A JSON Lines file (one upload object a line, as the connector API
    /// takes it) or a directory of .txt, .md, .html files (one upload per
    /// file; sub-directories too).
    input: PathBuf,
    #[command(flatten)]
    sending: Sending,
    /// For a directory: a CSV (header row `path,user_email,...`) or JSON
    /// file giving each file's upload fields by its path relative to the
    /// directory: user_email, action_type, action_date, entity_type,
    /// action_alias.
    #[arg(long)]
    mapping: Option<PathBuf>,
    /// For a directory: the user_email of files the mapping does not name.
    #[arg(long)]
    user_email: Option<String>,
    /// For a directory: the action_type of files the mapping gives none.
    #[arg(long, default_value = "create")]
    action_type: String,
    /// For a directory: the entity_type of files the mapping gives none.
    #[arg(long, default_value = "document")]
    entity_type: String,
    /// For a directory: the action_date of files the mapping gives none
    /// (default: each file's modification time).
    #[arg(long)]
    action_date: Option<String>,
    /// The checkpoint: what the server acknowledged, one key a line
    /// (default: INPUT's path with `.kenning-checkpoint`).
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// The report of refused and failed uploads, one JSON object a line
    /// (default: INPUT's path with `.kenning-failures.jsonl`).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Seconds between progress lines when standard error is not a
    /// terminal.
    #[arg(long, default_value_t = 10)]
    progress_secs: u64,
}

/// A path beside `input` (a file, or a directory's path) with `suffix`.
fn beside(input: &Path, suffix: &str) -> PathBuf {
    let mut name = input
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    input.with_file_name(name)
}

/// What a run did, item by item.
#[derive(Debug, Default)]
struct Tally {
    /// Acknowledged in an earlier run: not sent.
    done_before: u64,
    learned: u64,
    duplicates: u64,
    /// Refused, by code (`Unreadable` for inputs that are not uploads).
    rejected: BTreeMap<String, u64>,
    failed: u64,
}

impl Tally {
    fn handled(&self) -> u64 {
        self.done_before
            + self.learned
            + self.duplicates
            + self.rejected.values().sum::<u64>()
            + self.failed
    }

    fn line(&self) -> String {
        let rejected: u64 = self.rejected.values().sum();
        format!(
            "learned {}, duplicates {}, rejected {rejected}, failed {}",
            self.learned, self.duplicates, self.failed
        )
    }
}

/// What the main loop hears.
enum Heard {
    Sent(Vec<Item>, Result<Vec<Outcome>, Fatal>),
    Unreadable(Unreadable),
    DoneBefore,
    /// The reader failed (an input it could not read).
    ReadFailed(anyhow::Error),
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
        })
    }

    /// Counts and records what the run heard; `Err` for what ends it.
    fn take(&mut self, message: Heard, tally: &mut Tally) -> anyhow::Result<()> {
        match message {
            Heard::Sent(items, Ok(outcomes)) => record(
                &items,
                &outcomes,
                tally,
                &mut self.checkpoint,
                &mut self.report,
            ),
            Heard::Sent(_, Err(Fatal(why))) => Err(anyhow::anyhow!(why)),
            Heard::Unreadable(unreadable) => {
                *tally.rejected.entry("Unreadable".to_owned()).or_default() += 1;
                write_report(
                    &mut self.report,
                    &unreadable.origin,
                    "Unreadable",
                    &unreadable.problem,
                )
            }
            Heard::DoneBefore => {
                tally.done_before += 1;
                Ok(())
            }
            Heard::ReadFailed(e) => Err(e),
        }
    }
}

/// Runs `kenning upload`.
pub fn run(args: UploadArgs) -> anyhow::Result<()> {
    let (checkpoint_path, report_path) = Records::paths(&args);
    let done = load_checkpoint(&checkpoint_path)?;
    let source = Source::open(&args, &[checkpoint_path.clone(), report_path.clone()])?;
    let total = source.count()?;
    let mut records = Records::open(checkpoint_path, report_path)?;

    let sender = args.sending.sender();
    let concurrency = args.sending.concurrency();
    let batch_size = args.sending.batch_size();
    let (heard_tx, heard) = mpsc::channel::<Heard>();
    // Room for one batch per sender waiting: memory stays bounded whatever
    // the input's size.
    let (batches_tx, batches) = mpsc::sync_channel::<Vec<Item>>(concurrency);
    let batches = Arc::new(Mutex::new(batches));
    let progress = Progress::new(total, args.progress_secs);
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut fatal = None;
    // Set when the run must stop: the reader and senders end at their
    // next step.
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..concurrency {
            let (sender, batches, heard_tx, stop) =
                (&sender, batches.clone(), heard_tx.clone(), &stop);
            s.spawn(move || {
                sender.send_each(&batches, stop, |items, outcomes| {
                    heard_tx.send(Heard::Sent(items, outcomes)).is_ok()
                });
            });
        }
        // Once every sender has ended, a reader waiting to hand over a
        // batch is let go.
        drop(batches);
        {
            let (heard_tx, done, source, stop) = (heard_tx.clone(), &done, &source, &stop);
            s.spawn(move || read(source, done, batch_size, batches_tx, &heard_tx, stop));
        }
        drop(heard_tx);
        for message in heard {
            if let Err(e) = records.take(message, &mut tally) {
                fatal.get_or_insert(e);
                stop.store(true, Ordering::Relaxed);
            }
            progress.update(&tally, started);
        }
    });
    progress.finish();
    summary(&tally, started, &records.report_path);
    if let Some(e) = fatal {
        return Err(e.context(format!(
            "stopped; a new run sends what was not acknowledged (checkpoint {})",
            records.checkpoint_path.display()
        )));
    }
    let refused = tally.rejected.values().sum::<u64>() + tally.failed;
    if refused > 0 {
        anyhow::bail!(
            "{refused} uploads were rejected or failed; see {}",
            records.report_path.display()
        );
    }
    Ok(())
}

/// Where the uploads come from.
enum Source {
    Jsonl(PathBuf),
    Directory {
        root: PathBuf,
        files: Vec<PathBuf>,
        mapping: std::collections::HashMap<String, Map<String, Value>>,
        defaults: Map<String, Value>,
    },
}

impl Source {
    fn open(args: &UploadArgs, skip: &[PathBuf]) -> anyhow::Result<Self> {
        let meta = std::fs::metadata(&args.input)
            .with_context(|| format!("cannot read {}", args.input.display()))?;
        if !meta.is_dir() {
            anyhow::ensure!(
                args.mapping.is_none() && args.user_email.is_none() && args.action_date.is_none(),
                "--mapping, --user-email and --action-date are for a directory; \
                 each line of a JSON Lines file is a whole upload"
            );
            return Ok(Source::Jsonl(args.input.clone()));
        }
        let mut skip = skip.to_vec();
        skip.extend(args.mapping.clone());
        let mapping = match &args.mapping {
            Some(path) => input::mapping(path)?,
            None => Default::default(),
        };
        let mut defaults = Map::new();
        defaults.insert("action_type".to_owned(), json!(args.action_type));
        defaults.insert("entity_type".to_owned(), json!(args.entity_type));
        if let Some(email) = &args.user_email {
            defaults.insert("user_email".to_owned(), json!(email));
        }
        if let Some(date) = &args.action_date {
            defaults.insert("action_date".to_owned(), json!(date));
        }
        Ok(Source::Directory {
            files: input::files(&args.input, &skip)?,
            root: args.input.clone(),
            mapping,
            defaults,
        })
    }

    fn count(&self) -> anyhow::Result<u64> {
        match self {
            Source::Jsonl(path) => input::count_lines(path),
            Source::Directory { files, .. } => Ok(files.len() as u64),
        }
    }
}

/// The reader thread: every item not acknowledged before, in batches.
fn read(
    source: &Source,
    done: &HashSet<String>,
    batch_size: usize,
    batches: SyncSender<Vec<Item>>,
    heard: &mpsc::Sender<Heard>,
    stop: &AtomicBool,
) {
    let stopping = || stop.load(Ordering::Relaxed);
    let mut batch = Vec::with_capacity(batch_size);
    // Whether the run goes on: each hand-over fails once its receiver is
    // gone.
    let take = |found: Result<Item, Unreadable>, batch: &mut Vec<Item>| -> bool {
        match found {
            Ok(item) if done.contains(&item.id) => heard.send(Heard::DoneBefore).is_ok(),
            Ok(item) => {
                batch.push(item);
                batch.len() < batch_size || batches.send(std::mem::take(batch)).is_ok()
            }
            Err(unreadable) => heard.send(Heard::Unreadable(unreadable)).is_ok(),
        }
    };
    let outcome: anyhow::Result<()> = (|| {
        match source {
            Source::Jsonl(path) => {
                for found in input::jsonl(path)? {
                    if stopping() || !take(found?, &mut batch) {
                        return Ok(());
                    }
                }
            }
            Source::Directory {
                root,
                files,
                mapping,
                defaults,
            } => {
                for file in files {
                    let relative = file
                        .strip_prefix(root)
                        .unwrap_or(file)
                        .to_string_lossy()
                        .replace('\\', "/");
                    let found = input::file_item(root, file, mapping.get(&relative), defaults)?;
                    if stopping() || !take(found, &mut batch) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        let _ = heard.send(Heard::ReadFailed(e));
    }
    if !batch.is_empty() && !stopping() {
        let _ = batches.send(batch);
    }
}

/// Counts a batch's outcomes, checkpoints what is done and reports what is
/// not.
fn record(
    items: &[Item],
    outcomes: &[Outcome],
    tally: &mut Tally,
    checkpoint: &mut File,
    report: &mut File,
) -> anyhow::Result<()> {
    let mut acknowledged = String::new();
    for (item, outcome) in items.iter().zip(outcomes) {
        match outcome {
            Outcome::Learned => tally.learned += 1,
            Outcome::Duplicate => tally.duplicates += 1,
            Outcome::Rejected { code, problem } => {
                *tally.rejected.entry(code.clone()).or_default() += 1;
                write_report(report, &item.origin, code, problem)?;
                continue;
            }
            Outcome::Failed { problem } => {
                tally.failed += 1;
                write_report(report, &item.origin, "Failed", problem)?;
                continue;
            }
        }
        acknowledged.push_str(&item.id);
        acknowledged.push('\n');
    }
    checkpoint.write_all(acknowledged.as_bytes())?;
    // On disk before the next batch is counted: a crash loses at most the
    // batches in flight, which a new run sends again (and an alias makes
    // a repeat a duplicate).
    checkpoint.sync_data()?;
    report.flush()?;
    Ok(())
}

fn write_report(report: &mut File, origin: &str, code: &str, problem: &str) -> anyhow::Result<()> {
    let line = json!({ "item": origin, "code": code, "problem": problem });
    writeln!(report, "{line}")?;
    Ok(())
}

fn summary(tally: &Tally, started: Instant, report: &Path) {
    let seconds = started.elapsed().as_secs_f64();
    let sent = tally.handled() - tally.done_before;
    eprintln!(
        "sent {sent} uploads in {seconds:.1} s ({:.0}/s); {}; {} acknowledged before",
        sent as f64 / seconds.max(1e-3),
        tally.line(),
        tally.done_before
    );
    for (code, n) in &tally.rejected {
        eprintln!("  rejected {code}: {n}");
    }
    if !tally.rejected.is_empty() || tally.failed > 0 {
        eprintln!(
            "every rejected or failed upload, with why: {}",
            report.display()
        );
    }
}

/// A progress bar on a terminal; plain lines every few seconds elsewhere.
struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    every: Duration,
    last: Mutex<Instant>,
}

impl Progress {
    fn new(total: u64, every_secs: u64) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {pos}/{len} uploads, {per_sec}, ETA {eta} ({msg})",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Self {
            bar,
            total,
            every: Duration::from_secs(every_secs.max(1)),
            last: Mutex::new(Instant::now()),
        }
    }

    fn update(&self, tally: &Tally, started: Instant) {
        if let Some(bar) = &self.bar {
            bar.set_position(tally.handled());
            bar.set_message(tally.line());
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.elapsed() < self.every {
            return;
        }
        *last = Instant::now();
        let seconds = started.elapsed().as_secs_f64().max(1e-3);
        let handled = tally.handled();
        eprintln!(
            "{handled}/{} uploads ({:.0}/s); {}",
            self.total,
            (handled - tally.done_before) as f64 / seconds,
            tally.line()
        );
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}
