//! `make bench-connect`: the ready connectors against the batch endpoint
//! sending the same uploads, in the same run. A source is generated (a
//! 10,000-commit repository, a sent folder of 10,000 messages as an mbox
//! file and over IMAP), each way sends it to a fresh server of its own
//! (same people, empty expertise): first the uploads built from the
//! source's items, posted straight to the batch endpoint as fast as the
//! connector's defaults allow (100 a request, 4 in flight), then `kenning
//! connect` reading the source itself, with its peak memory.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use kenning_upload::connect::{self, Found, Source, Window};
use serde_json::{json, Value};

use crate::connect_mail::{self, Dovecot};
use crate::directory;
use crate::server::Kenning;

/// Commits of the generated repository.
pub const COMMITS: usize = 10_000;
/// People who wrote them (the first of the directory's people).
const AUTHORS: u64 = 200;
/// Uploads per request and requests in flight: the connector's defaults.
const BATCH: usize = 100;
const IN_FLIGHT: usize = 4;
/// The share of the batch endpoint's rate a connector should reach.
pub const TARGET_SHARE: f64 = 0.8;
/// The most memory a connector should hold, MiB.
pub const TARGET_PEAK_MIB: f64 = 100.0;

/// One source, sent both ways.
#[derive(Debug)]
pub struct ConnectRow {
    pub source: String,
    pub uploads: usize,
    /// Uploads a second straight to the batch endpoint.
    pub batch_rate: f64,
    /// Uploads a second through `kenning connect`.
    pub connect_rate: f64,
    /// The connector's peak resident memory, MiB.
    pub peak_mib: f64,
}

/// Sentences to build commit messages from: the benchmark's English texts.
fn sentences() -> Vec<&'static str> {
    crate::ops::TEXTS
        .iter()
        .flat_map(|t| t.split(". "))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Writes a repository of [`COMMITS`] commits to `at` with `git
/// fast-import`, unless it is there already.
pub fn repository(at: &Path) -> anyhow::Result<()> {
    // Written once the import succeeded: a repository without it is
    // half made, and made again.
    let made = at.join("kenning-bench-complete");
    if made.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(at);
    std::fs::create_dir_all(at)?;
    let init = Command::new("git")
        .args(["init", "--quiet", "--bare", "--initial-branch=main"])
        .arg(at)
        .status()
        .context("run git")?;
    anyhow::ensure!(init.success(), "git init failed");
    let sentences = sentences();
    let mut import = Command::new("git")
        .arg("-C")
        .arg(at)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .context("run git fast-import")?;
    let mut stream = std::io::BufWriter::new(import.stdin.take().context("fast-import's input")?);
    for n in 0..COMMITS {
        let seed = directory::mix(n as u64);
        let author = seed % AUTHORS;
        let pick = |k: u64| sentences[(directory::mix(seed ^ k) as usize) % sentences.len()];
        let message = format!(
            "{} ({n})\n\n{}. {}. {}.\n",
            pick(1),
            pick(2),
            pick(3),
            pick(4)
        );
        let email = directory::email(author);
        let at_second = 1_700_000_000 + n as u64 * 600;
        writeln!(stream, "commit refs/heads/main")?;
        writeln!(stream, "author Person {author} <{email}> {at_second} +0000")?;
        writeln!(
            stream,
            "committer Person {author} <{email}> {at_second} +0000"
        )?;
        writeln!(stream, "data {}\n{message}", message.len())?;
        let content = format!("// {n}\n");
        for p in 0..3 {
            writeln!(
                stream,
                "M 644 inline services/{}/{}.go\ndata {}\n{content}",
                directory::topic_word((seed as usize + p) % 500),
                directory::topic_word((seed as usize >> 8) % 500),
                content.len()
            )?;
        }
    }
    drop(stream);
    anyhow::ensure!(import.wait()?.success(), "git fast-import failed");
    std::fs::write(made, "")?;
    Ok(())
}

/// The uploads `kenning connect git` makes of the repository at `path`.
fn git_uploads(path: &Path) -> anyhow::Result<Vec<Value>> {
    let mut repository = connect::git::Repository::open(path, "HEAD")?;
    let mut uploads = Vec::new();
    repository.read(None, &Window::default(), &mut |found| {
        if let Found::Item(item) = found {
            for (n, (who, _)) in item.actions.iter().enumerate() {
                if let Some(email) = &who.email {
                    uploads.push(connect::upload_body("git", &item, n, email));
                }
            }
        }
        true
    })?;
    Ok(uploads)
}

/// A fresh server on a new SQLite file in `folder` with the directory's
/// first people.
fn fresh_server(binary: &Path, folder: &Path, name: &str) -> anyhow::Result<Kenning> {
    let file = folder.join(format!("{name}.db"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    let url = format!("sqlite://{}", file.display());
    Kenning::migrate(binary, &url)?;
    let db = kenning_store_diesel::Database::connect(&url)?;
    directory::add_people(&db, 0, AUTHORS)?;
    Kenning::start(binary, &url)
}

/// Posts `uploads` to the batch endpoint, [`BATCH`] a request and
/// [`IN_FLIGHT`] at once; uploads a second.
fn post_all(server: &Kenning, uploads: &[Value]) -> anyhow::Result<f64> {
    let batches: Vec<&[Value]> = uploads.chunks(BATCH).collect();
    let next = AtomicUsize::new(0);
    let failure = Mutex::new(None);
    let url = format!(
        "{}/connectors/api/v1/entities-with-action/batch",
        server.base()
    );
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..IN_FLIGHT {
            s.spawn(|| {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .build()
                    .into();
                while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let sent = agent
                        .post(&url)
                        .header("APIKEY", &server.api_key)
                        .header("Content-Type", "application/json")
                        .send(json!({ "items": batch }).to_string());
                    let ok = matches!(&sent, Ok(r) if r.status().as_u16() == 200);
                    if !ok {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(format!(
                                "a batch failed: {:?}",
                                sent.map(|r| r.status())
                            ));
                        }
                        return;
                    }
                }
            });
        }
    });
    if let Some(why) = failure.lock().ok().and_then(|mut f| f.take()) {
        anyhow::bail!(why);
    }
    Ok(uploads.len() as f64 / started.elapsed().as_secs_f64())
}

/// Runs `kenning connect` with `args` against `server`; its uploads a
/// second (of `uploads`) and its peak resident memory, MiB, sampled from
/// `/proc` as it runs.
fn connect_run(
    binary: &Path,
    server: &Kenning,
    args: &[&str],
    env: &[(&str, &str)],
    uploads: usize,
    cursors: &Path,
) -> anyhow::Result<(f64, f64)> {
    let _ = std::fs::remove_dir_all(cursors);
    let started = Instant::now();
    let mut child = Command::new(binary)
        .arg("connect")
        .args(args)
        .args(["--url", server.base(), "--quiet"])
        .arg("--cursor-dir")
        .arg(cursors)
        .env("KENNING_API_KEY", &server.api_key)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("run kenning connect")?;
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0.0_f64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(kib) = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<f64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if child.try_wait()?.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let seconds = started.elapsed().as_secs_f64();
    let output = child.wait_with_output()?;
    let said = String::from_utf8_lossy(&output.stderr);
    anyhow::ensure!(output.status.success(), "kenning connect failed: {said}");
    anyhow::ensure!(
        said.contains(&format!("sent {uploads},")),
        "kenning connect did not send the {uploads} uploads: {said}"
    );
    Ok((uploads as f64 / seconds, peak_kib / 1024.0))
}

/// Measures every source; `folder` holds the generated sources and the
/// databases. The IMAP row is left out, with why, when Dovecot cannot
/// serve.
pub fn measure(folder: &Path) -> anyhow::Result<Vec<ConnectRow>> {
    let binary = crate::server::release_binary()?;
    std::fs::create_dir_all(folder)?;
    let repo: PathBuf = folder.join("repository.git");
    repository(&repo)?;
    let mut rows = Vec::new();
    let repo_arg = repo.to_string_lossy().into_owned();
    rows.push(both_ways(
        &binary,
        folder,
        format!("git, {COMMITS} commits"),
        &git_uploads(&repo)?,
        &["git", &repo_arg],
        &[],
    )?);
    let mbox = folder.join("Sent.mbox");
    connect_mail::mbox(&mbox, AUTHORS, &sentences())?;
    let uploads = connect_mail::uploads(&mbox)?;
    let mbox_arg = mbox.to_string_lossy().into_owned();
    let mbox_row = both_ways(
        &binary,
        folder,
        format!("mail, an mbox of {} messages", connect_mail::MESSAGES),
        &uploads,
        &["mail", &mbox_arg, "--sent"],
        &[],
    )?;
    let batch_rate = mbox_row.batch_rate;
    rows.push(mbox_row);
    match Dovecot::serve(&folder.join("dovecot"), &mbox) {
        Ok(dovecot) => {
            // The same uploads as the mbox's: the batch endpoint's rate is
            // the one just measured.
            let server = fresh_server(&binary, folder, "connect")?;
            let address = format!("127.0.0.1:{}", dovecot.port);
            let ca = dovecot.ca.to_string_lossy().into_owned();
            let (connect_rate, peak_mib) = connect_run(
                &binary,
                &server,
                &[
                    "mail",
                    "--imap",
                    &address,
                    "--imap-user",
                    connect_mail::IMAP_USER,
                    "--imap-ca",
                    &ca,
                ],
                &[("KENNING_IMAP_PASSWORD", connect_mail::IMAP_PASSWORD)],
                uploads.len(),
                &folder.join("cursors"),
            )?;
            rows.push(ConnectRow {
                source: format!("mail, IMAP (Dovecot), {} messages", connect_mail::MESSAGES),
                uploads: uploads.len(),
                batch_rate,
                connect_rate,
                peak_mib,
            });
        }
        Err(e) => eprintln!("mail over IMAP NOT MEASURED: {e:#}"),
    }
    Ok(rows)
}

/// `uploads` posted straight to the batch endpoint, then `kenning
/// connect` with `args` (and `env`) reading the same source, each to a
/// fresh server.
fn both_ways(
    binary: &Path,
    folder: &Path,
    source: String,
    uploads: &[Value],
    args: &[&str],
    env: &[(&str, &str)],
) -> anyhow::Result<ConnectRow> {
    let batch_rate = {
        let server = fresh_server(binary, folder, "batch")?;
        post_all(&server, uploads)?
    };
    let (connect_rate, peak_mib) = {
        let server = fresh_server(binary, folder, "connect")?;
        connect_run(
            binary,
            &server,
            args,
            env,
            uploads.len(),
            &folder.join("cursors"),
        )?
    };
    Ok(ConnectRow {
        source,
        uploads: uploads.len(),
        batch_rate,
        connect_rate,
        peak_mib,
    })
}

/// The table: each source's rate both ways, their ratio against
/// [`TARGET_SHARE`], and the connector's peak memory against
/// [`TARGET_PEAK_MIB`].
pub fn print_table(rows: &[ConnectRow]) {
    println!("| source | uploads | batch endpoint, uploads/s | kenning connect, uploads/s | share (goal ≥ {TARGET_SHARE}) | connector peak MiB (goal < {TARGET_PEAK_MIB}) |");
    println!("|---|---|---|---|---|---|");
    for row in rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.2} | {:.1} |",
            row.source,
            row.uploads,
            row.batch_rate,
            row.connect_rate,
            row.connect_rate / row.batch_rate,
            row.peak_mib
        );
    }
}
