//! `make bench-ingest`: connector uploads of ~1 KB English texts, end to
//! end (HTTP, extraction, durable storage), through the single endpoint
//! and the batch endpoint in the same run, on a directory of 10,000
//! people that starts with no expertise.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kenning_domain::{TextFormat, PHRASES_PER_TEXT};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::TopicExtractor;
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
/// endpoint 2,000 on SQLite and 1,000 on PostgreSQL, the single endpoint
/// twice what it reached before them (145 and 209 uploads a second).
fn target(backend: &str, items: usize) -> f64 {
    match (backend, items) {
        ("sqlite", 1) => 300.0,
        (_, 1) => 400.0,
        ("sqlite", _) => 2_000.0,
        _ => 1_000.0,
    }
}

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
}

/// The `i`-th upload of the `n`-th request of connection `c`: a random
/// person's, one of the texts.
pub(crate) fn upload(c: usize, n: u64, i: usize) -> Value {
    let seed = directory::mix((c as u64) << 40 | n << 12 | i as u64);
    upload_body(seed % PEOPLE, seed as usize)
}

/// Measures the single endpoint, then the batch endpoint with `items`
/// uploads a request, on a fresh database at `url`.
pub fn measure(
    backend: &str,
    url: &str,
    args: &Args,
    batches: &[(usize, usize)],
) -> anyhow::Result<Vec<IngestRow>> {
    let binary = crate::server::release_binary()?;
    Kenning::migrate(&binary, url)?;
    let db = kenning_store_diesel::Database::connect(url)?;
    directory::add_people(&db, 0, PEOPLE)?;
    directory::analyze(url)?;
    let kenning = Kenning::start(&binary, url)?;
    let (base, key) = (kenning.base.clone(), kenning.api_key.clone());
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
        let stats = args.measure(
            make,
            check,
            Load::Connections(connections),
            &format!("{backend} {items} a request"),
        );
        let (_, peak) = kenning.memory()?;
        rows.push(IngestRow {
            peak,
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

/// Prints the table of every row; the single endpoint of each backend is
/// the baseline of its batches, and `extraction` (texts a second on one
/// core, [`extraction_rate`]) the bound every row is compared with.
pub fn print_table(rows: &[IngestRow], extraction: f64) {
    println!();
    println!("Connector uploads of ~1 KB English texts, durable, extraction included; {PEOPLE} people; release build");
    println!("Extraction alone, the same texts on one core: {extraction:.0} texts/s");
    println!();
    println!("| way | backend | conns | uploads/request | requests/s | uploads/s | p50 ms | p99 ms | x single | x extraction alone | errors | peak MiB | target |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for row in rows {
        let single = rows
            .iter()
            .find(|r| r.backend == row.backend && r.items == 1)
            .map(|r| r.stats.per_second);
        let uploads = row.stats.per_second * row.items as f64;
        let ratio = single.map_or(String::new(), |s| format!("{:.1}", uploads / s));
        let goal = target(&row.backend, row.items);
        let met = if uploads >= goal && row.stats.errors == 0 {
            "met"
        } else {
            "NOT MET"
        };
        let target = format!(">= {goal}/s: {met}");
        println!(
            "| {} | {} | {} | {} | {:.1} | {:.0} | {:.2} | {:.2} | {} | {:.2} | {} | {:.0} | {} |",
            row.name,
            row.backend,
            row.connections,
            row.items,
            row.stats.per_second,
            uploads,
            row.stats.p50,
            row.stats.p99,
            ratio,
            uploads / extraction,
            row.stats.errors,
            row.peak,
            target
        );
    }
}
