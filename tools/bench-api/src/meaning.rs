//! `make bench-meaning`: what finding topics by meaning costs, measured in
//! one run on the same data with it off, with static vectors, with the
//! English model, with the multilingual one, and with both (the default:
//! each question read by the model of its language, a query too short to
//! tell by both): the files on disk, the server's start, its memory, how long it
//! takes to embed every learned topic, connector uploads and `experts`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use kenning_domain::Scoring;
use kenning_tools_common::serve::{self, Indexed};
use serde_json::json;

use crate::args::{fresh_database, Args, Load};
use crate::directory;
use crate::load::Request;
use crate::server::Kenning;

/// The models a mode runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Models {
    English,
    Multilingual,
    Both,
}

/// The ways of finding topics by meaning: the row's name, `--meaning`
/// and the models it runs.
const MODES: [(&str, &str, Models); 5] = [
    ("off", "off", Models::English),
    ("static", "static", Models::English),
    ("model", "model", Models::English),
    ("multilingual", "model", Models::Multilingual),
    ("both (default)", "model", Models::Both),
];

const EXPERTS: &str = "query experts($query: String!) { experts(query: $query, limit: 10) { score user { globalUserId } } }";

/// One mode, measured.
#[derive(Debug)]
pub struct MeaningRow {
    mode: &'static str,
    /// Seconds from the start of the process to its first ready answer.
    ready: f64,
    /// Seconds from ready until every learned topic was embedded.
    indexed: Option<f64>,
    /// Topics in the index.
    topics: i64,
    /// Resident memory once indexed, MiB.
    resident: f64,
    uploads: crate::load::Stats,
    experts: crate::load::Stats,
    /// `experts` with a word nobody learned beside a learned one.
    other_words: crate::load::Stats,
    /// Peak resident memory, MiB.
    peak: f64,
}

/// Waits until the index holds every one of `learned` topics, failing
/// past ten minutes; the seconds it took (none without a model) and the
/// topics indexed.
fn wait_indexed(base: &str, learned: i64) -> anyhow::Result<(Option<f64>, i64)> {
    let Indexed { seconds, topics } = serve::wait_indexed(base, learned, Duration::from_secs(600))?;
    if topics < 0 {
        return Ok((None, topics));
    }
    anyhow::ensure!(
        topics >= learned,
        "{topics} of {learned} topics indexed after ten minutes"
    );
    Ok((Some(seconds), topics))
}

/// A model's directory: `variable`, else where the Makefile unpacks it,
/// `folder` of `models`.
fn model_dir(variable: &str, folder: &str) -> anyhow::Result<PathBuf> {
    let dir = std::env::var_os(variable).map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../models")
                .join(folder)
        },
        PathBuf::from,
    );
    std::path::absolute(&dir).context("the model's directory")
}

/// The English model's directory.
fn english_dir() -> anyhow::Result<PathBuf> {
    model_dir("KENNING_MODEL_DIR", "all-minilm-l6-v2")
}

/// The multilingual model's directory.
fn multilingual_dir() -> anyhow::Result<PathBuf> {
    model_dir("KENNING_MULTILINGUAL_DIR", "use-multilingual-v3")
}

/// Each mode on a fresh database of `backend` holding the generated
/// expertise (10,000 people, 50,000 topic words).
pub fn measure(args: &Args, backend: &str) -> anyhow::Result<Vec<MeaningRow>> {
    let binary = crate::server::release_binary()?;
    let (english, multilingual) = (english_dir()?, multilingual_dir()?);
    let keys = crate::ops::topic_keys();
    let mut rows = Vec::new();
    for (mode, meaning, models) in MODES {
        let Some(url) = fresh_database(args, backend)? else {
            return Ok(rows);
        };
        Kenning::migrate(&binary, &url)?;
        let db = kenning_store_diesel::Database::connect(&url)?;
        directory::add_people(&db, 0, directory::EXPERTS)?;
        directory::add_expertise(&url, &keys, &Scoring::default())?;
        directory::analyze(&url)?;
        let learned = serve::learned_topics(&url)?;
        let (english, multilingual) = (english.display(), multilingual.display());
        let (model, others) = match models {
            Models::English => (english.to_string(), None),
            Models::Multilingual => (multilingual.to_string(), None),
            Models::Both => (english.to_string(), Some(multilingual.to_string())),
        };
        let mut env = vec![("KENNING_MEANING", meaning), ("KENNING_MODEL_DIR", &model)];
        if let Some(others) = &others {
            env.push(("KENNING_OTHER_LANGUAGES_MODEL_DIR", others));
        }
        let started = Instant::now();
        let kenning = Kenning::start_with(&binary, &url, &env)?;
        let ready = started.elapsed().as_secs_f64();
        let (indexed, topics) = wait_indexed(kenning.base(), learned)?;
        let (resident, _) = kenning.memory()?;

        let (base, key) = (kenning.base().to_owned(), kenning.api_key.clone());
        let upload = Arc::new(move |c: usize, n: u64| Request {
            method: "POST",
            url: format!("{base}/connectors/api/v1/entities-with-action"),
            headers: vec![
                ("APIKEY", key.clone()),
                ("Content-Type", "application/json".to_owned()),
            ],
            body: crate::ingest::upload(c, n, 0).to_string().into_bytes(),
        });
        let uploads = args.measure(
            upload,
            Arc::new(|status, _| status == 201),
            Load::Connections(args.connections),
            &format!("{backend} {mode} uploads"),
        );

        let (base, token) = (kenning.base().to_owned(), kenning.token.clone());
        let ask = |query: fn(usize, u64) -> String| {
            let (base, token) = (base.clone(), token.clone());
            Arc::new(move |c: usize, n: u64| Request {
                method: "POST",
                url: format!("{base}/accounts/api/v1/graphql"),
                headers: vec![
                    ("Authorization", format!("Bearer {token}")),
                    ("Content-Type", "application/json".to_owned()),
                ],
                body: json!({ "query": EXPERTS, "variables": { "query": query(c, n) } })
                    .to_string()
                    .into_bytes(),
            })
        };
        let answered = |status, body: &str| status == 200 && !body.contains("\"errors\"");
        let experts = args.measure(
            ask(crate::ops::experts_words),
            Arc::new(answered),
            Load::Connections(1),
            &format!("{backend} {mode} experts"),
        );
        let other_words = args.measure(
            ask(crate::ops::experts_other_words),
            Arc::new(answered),
            Load::Connections(1),
            &format!("{backend} {mode} experts in other words"),
        );
        let (_, peak) = kenning.memory()?;
        rows.push(MeaningRow {
            mode,
            ready,
            indexed,
            topics,
            resident,
            uploads,
            experts,
            other_words,
            peak,
        });
    }
    Ok(rows)
}

/// The size of a file in MiB, or a dash when it is missing.
fn size(path: &Path) -> String {
    std::fs::metadata(path).map_or_else(
        |_| "-".to_owned(),
        |m| format!("{:.1}", m.len() as f64 / (1024.0 * 1024.0)),
    )
}

/// The MiB of the files in `dir`, whichever model's they are.
fn folder_size(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return "-".to_owned();
    };
    let bytes: u64 = entries
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum();
    format!("{:.1}", bytes as f64 / (1024.0 * 1024.0))
}

/// Prints the files on disk and the table of every row of `backend`.
pub fn print_table(backend: &str, rows: &[MeaningRow]) -> anyhow::Result<()> {
    let binary = crate::server::release_binary()?;
    let (model, multilingual) = (english_dir()?, multilingual_dir()?);
    println!();
    println!(
        "On disk: the kenning binary {} MiB; the model ({}) {} MiB, its static vectors {} MiB, its tokenizer {} MiB; the multilingual model ({}) {} MiB",
        size(&binary),
        model.display(),
        size(&model.join("model.safetensors")),
        size(&model.join("static.safetensors")),
        size(&model.join("tokenizer.json")),
        multilingual.display(),
        folder_size(&multilingual),
    );
    println!();
    println!("Meaning on {backend}: 10,000 people x 200 of 50,000 topic words; uploads of ~1 KB English texts; experts of 1 to 3 topic words, and in other words (a topic word and one of 500 words nobody learned, drawn by Zipf), one client each; release build");
    println!();
    println!("| meaning | seconds to ready | seconds to index | topics indexed | resident MiB | uploads/s | upload p99 ms | experts/s | experts p50 ms | experts p99 ms | other words p50 ms | other words p99 ms | peak MiB |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        println!(
            "| {} | {:.2} | {} | {} | {:.0} | {:.0} | {:.1} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
            row.mode,
            row.ready,
            row.indexed.map_or("-".to_owned(), |s| format!("{s:.1}")),
            if row.topics < 0 {
                "-".to_owned()
            } else {
                row.topics.to_string()
            },
            row.resident,
            row.uploads.per_second,
            row.uploads.p99,
            row.experts.per_second,
            row.experts.p50,
            row.experts.p99,
            row.other_words.p50,
            row.other_words.p99,
            row.peak,
        );
    }
    Ok(())
}
