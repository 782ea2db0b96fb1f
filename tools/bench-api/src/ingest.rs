//! `make bench-ingest`: connector uploads of ~1 KB English texts, end to
//! end (HTTP, extraction, durable storage), through the single endpoint
//! and the batch endpoint in the same run, on a directory of 10,000
//! people that starts with no expertise.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kenning_domain::{TextFormat, PHRASES_PER_TEXT};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::{TopicExtractor, UploadStage};
use serde_json::{json, Value};

use crate::args::{Args, Load};
use crate::directory;
use crate::load::{Request, Stats};
use crate::ops::{upload_body, TEXTS};
use crate::server::Kenning;

/// The people uploads are for.
const PEOPLE: u64 = 10_000;

/// The uploads a second each way should reach on `backend` (the ingest
/// targets of docs/performance.md "Connector uploads"): the batch
/// endpoint 1,200 on SQLite and 700 on PostgreSQL, the single endpoint
/// from 16 connections 400 on both.
fn target(backend: &str, items: usize) -> f64 {
    match (backend, items) {
        (_, 1) => 400.0,
        ("sqlite", _) => 1_200.0,
        _ => 700.0,
    }
}

/// The share of its ceiling a SQLite row should reach: the same way's
/// rate with nothing of the topics stored ([`directory::store_no_topics`]).
const CEILING_SHARE: f64 = 0.75;

/// One way of uploading, measured.
#[derive(Debug)]
pub struct IngestRow {
    name: String,
    backend: String,
    connections: usize,
    items: usize,
    stats: Stats,
    /// The server's peak resident memory so far, MiB.
    peak: f64,
    /// Whether the server stored nothing of the topics (the ceiling).
    ceiling: bool,
    /// The seconds each stage of the upload path took during the row.
    stages: Vec<(String, f64)>,
}

impl IngestRow {
    fn uploads(&self) -> f64 {
        self.stats.per_second * self.items as f64
    }

    /// Each stage's share of the row's time, as `stage NN%`.
    fn shares(&self) -> String {
        let total: f64 = self.stages.iter().map(|(_, s)| s).sum();
        if total <= 0.0 {
            return String::new();
        }
        UploadStage::ALL
            .iter()
            .filter_map(|stage| {
                let name = stage.name();
                let (_, seconds) = self.stages.iter().find(|(s, _)| s == name)?;
                Some(format!("{name} {:.0}%", 100.0 * seconds / total))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What each stage's total grew by from `before` to `after`.
fn grown(before: &[(String, f64)], after: Vec<(String, f64)>) -> Vec<(String, f64)> {
    after
        .into_iter()
        .map(|(stage, seconds)| {
            let was = before
                .iter()
                .find(|(s, _)| *s == stage)
                .map_or(0.0, |(_, v)| *v);
            (stage, seconds - was)
        })
        .collect()
}

/// The `i`-th upload of the `n`-th request of connection `c`: a random
/// person's, one of the texts.
pub(crate) fn upload(c: usize, n: u64, i: usize) -> Value {
    let seed = directory::mix((c as u64) << 40 | n << 12 | i as u64);
    upload_body(seed % PEOPLE, seed as usize)
}

/// Measures the single endpoint, then the batch endpoint with `items`
/// uploads a request, on a fresh database at `url`; with `ceiling`, on a
/// database that stores nothing of the topics
/// ([`directory::store_no_topics`]).
pub fn measure(
    backend: &str,
    url: &str,
    args: &Args,
    batches: &[(usize, usize)],
    ceiling: bool,
) -> anyhow::Result<Vec<IngestRow>> {
    let binary = crate::server::release_binary()?;
    Kenning::migrate(&binary, url)?;
    let db = kenning_store_diesel::Database::connect(url)?;
    directory::add_people(&db, 0, PEOPLE)?;
    if ceiling {
        directory::store_no_topics(url)?;
    }
    directory::analyze(url)?;
    let kenning = Kenning::start(&binary, url)?;
    let (base, key) = (kenning.base().to_owned(), kenning.api_key.clone());
    let mut rows = Vec::new();
    let mut ways = vec![(args.connections, 1)];
    ways.extend_from_slice(batches);
    for (connections, items) in ways {
        let name = if items == 1 {
            "single endpoint".to_owned()
        } else {
            format!("batch endpoint, {items} a request")
        };
        if !args.only.is_empty() && !args.only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        let (base, key) = (base.clone(), key.clone());
        let make = Arc::new(move |c: usize, n: u64| {
            let (path, body) = if items == 1 {
                ("", upload(c, n, 0))
            } else {
                let all: Vec<Value> = (0..items).map(|i| upload(c, n, i)).collect();
                ("/batch", json!({ "items": all }))
            };
            Request {
                method: "POST",
                url: format!("{base}/connectors/api/v1/entities-with-action{path}"),
                headers: vec![
                    ("APIKEY", key.clone()),
                    ("Content-Type", "application/json".to_owned()),
                ],
                body: body.to_string().into_bytes(),
            }
        });
        let check = Arc::new(move |status: u16, body: &str| {
            if items == 1 {
                return status == 201;
            }
            status == 200 && body.starts_with(&format!("{{\"accepted\":{items},"))
        });
        let before = kenning.stage_seconds()?;
        let stats = args.measure(
            make,
            check,
            Load::Connections(connections),
            &format!("{backend} {items} a request"),
        );
        let stages = grown(&before, kenning.stage_seconds()?);
        let (_, peak) = kenning.memory()?;
        rows.push(IngestRow {
            peak,
            ceiling,
            stages,
            name,
            backend: backend.to_owned(),
            connections,
            items,
            stats,
        });
    }
    Ok(rows)
}

/// How many of the uploads' texts the extractor reads a second on one
/// core, as an upload reads them (the language detected, the key phrases
/// an upload keeps), over `seconds` after one pass to warm up: the rate
/// no upload path can pass on one core, which shows how far the stores
/// are from it.
pub fn extraction_rate(seconds: Duration) -> f64 {
    let extractor = KeyphraseExtractor::new();
    let read = |text: &str| extractor.extract(text, TextFormat::Plain, None, PHRASES_PER_TEXT);
    for text in TEXTS {
        read(text);
    }
    let start = Instant::now();
    let mut texts = 0_u64;
    while start.elapsed() < seconds {
        for text in TEXTS {
            std::hint::black_box(read(text));
        }
        texts += TEXTS.len() as u64;
    }
    texts as f64 / start.elapsed().as_secs_f64()
}

/// Prints the table of the rows measured as shipped, each beside the
/// same way's ceiling (the rows with `ceiling`), then the ceiling rows; the
/// single endpoint of each backend is the baseline of its batches, and
/// `extraction` (texts a second on one core, [`extraction_rate`]) the bound
/// every row is compared with. The stages' shares close each row.
pub fn print_table(rows: &[IngestRow], extraction: f64) {
    println!();
    println!("Connector uploads of ~1 KB English texts, durable, extraction included; {PEOPLE} people; release build");
    println!("Extraction alone, the same texts on one core: {extraction:.0} texts/s");
    println!();
    println!("| way | backend | conns | uploads/request | requests/s | uploads/s | p50 ms | p99 ms | x single | x extraction alone | ceiling uploads/s | x ceiling | errors | peak MiB | target | stages |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    let shipped = rows.iter().filter(|r| !r.ceiling);
    for row in shipped.chain(rows.iter().filter(|r| r.ceiling)) {
        let same = |ceiling: bool, items: usize, connections: usize| {
            rows.iter().find(|r| {
                r.ceiling == ceiling
                    && r.backend == row.backend
                    && r.items == items
                    && r.connections == connections
            })
        };
        let single = rows
            .iter()
            .find(|r| r.ceiling == row.ceiling && r.backend == row.backend && r.items == 1)
            .map(IngestRow::uploads);
        let uploads = row.uploads();
        let ratio = single.map_or(String::new(), |s| format!("{:.1}", uploads / s));
        let (name, roof, share, target) = if row.ceiling {
            let name = format!("{} (ceiling: no topics stored)", row.name);
            (name, String::new(), String::new(), String::new())
        } else {
            let roof = same(true, row.items, row.connections).map(IngestRow::uploads);
            let share = roof.map(|roof| uploads / roof);
            let goal = target(&row.backend, row.items);
            let mut met = uploads >= goal && row.stats.errors == 0;
            let mut goal = format!(">= {goal}/s");
            if row.backend == "sqlite" {
                met &= share.is_some_and(|s| s >= CEILING_SHARE);
                goal.push_str(&format!(" and >= {CEILING_SHARE} x ceiling"));
            }
            (
                row.name.clone(),
                roof.map_or(String::new(), |r| format!("{r:.0}")),
                share.map_or(String::new(), |s| format!("{s:.2}")),
                format!("{goal}: {}", if met { "met" } else { "NOT MET" }),
            )
        };
        println!(
            "| {} | {} | {} | {} | {:.1} | {:.0} | {:.2} | {:.2} | {} | {:.2} | {} | {} | {} | {:.0} | {} | {} |",
            name,
            row.backend,
            row.connections,
            row.items,
            row.stats.per_second,
            uploads,
            row.stats.p50,
            row.stats.p99,
            ratio,
            uploads / extraction,
            roof,
            share,
            row.stats.errors,
            row.peak,
            target,
            row.shares(),
        );
    }
}
