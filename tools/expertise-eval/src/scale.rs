//! `make bench-experts`: the latency of `experts` on SQLite at the size the
//! product promises (10,000 people who learned from 1,000,000 actions),
//! against the unbounded read it replaced, in one run.
//!
//! The database is generated straight into the storage tables (users,
//! standings, learners, action topics), as a million uploads would have
//! left them, except for the actions: `experts` reads only the best
//! hundred action topics per query topic, so instead of a million actions
//! of some 190 topics each, each standing gets one action with that one
//! topic (a topic is taught by as many actions as people know it, where
//! real uploads would leave about a hundred times more; the read walks an
//! index from the top, so the rows beyond the hundred it reads matter
//! little). Each person holds [`TOPICS_PER_PERSON`] standings drawn
//! from a Zipf-distributed vocabulary (a few words nearly everyone has,
//! a long tail few have) and a number of actions around 100. Queries are
//! one to three words drawn from the same distribution, so common words
//! come up as often as they would.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::{TimeZone, Utc};
use diesel::connection::SimpleConnection;
use diesel::{Connection, RunQueryDsl, SqliteConnection};
use kenning_app::ExpertiseService;
use kenning_clock::ManualClock;
use kenning_domain::{ExpertsLimit, Scoring, Standing, TextFormat};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::TopicExtractor;
use kenning_store_diesel::Database;

use crate::rng::SplitMix64;

/// People who learned anything.
const PEOPLE: usize = 10_000;
/// Actions in all, spread over the people.
const ACTIONS: u64 = 1_000_000;
/// Standings per person.
const TOPICS_PER_PERSON: usize = 200;
/// Distinct topics.
const VOCABULARY: usize = 50_000;
/// Timed queries per system.
const QUERIES: usize = 2_000;

/// A pronounceable word for topic `i`, letters only, so the extractor
/// reads it as a content word.
fn word(i: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zu", "pa", "ri", "do", "fe", "gu", "ho",
        "ja",
    ];
    let mut out = String::from("q");
    let mut n = i;
    for _ in 0..4 {
        out.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    out.push('x');
    out
}

/// A Zipf-like draw over `0..n`: rank r with probability about 1/r.
fn zipf(rng: &mut SplitMix64, n: usize) -> usize {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let r = ((n as f64 + 1.0).powf(u) - 1.0).floor() as usize;
    r.min(n - 1)
}

fn percentile(sorted: &[Duration], p: usize) -> f64 {
    let at = (sorted.len() * p).div_ceil(100).saturating_sub(1);
    sorted.get(at).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// Generates the database at `path` (SQLite).
fn populate(path: &str, keys: &[String], scoring: &Scoring) -> anyhow::Result<()> {
    let db = Database::connect(&format!("sqlite://{path}"))?;
    db.migrate()?;
    drop(db);
    let mut conn = SqliteConnection::establish(path)?;
    conn.batch_execute("PRAGMA synchronous = OFF; BEGIN;")?;
    let mut rng = SplitMix64::new(7);
    let now = Utc
        .with_ymd_and_hms(2026, 3, 1, 0, 0, 0)
        .single()
        .context("date")?;
    let mut sql = String::new();
    for person in 0..PEOPLE {
        let id = format!("00000000-0000-4000-8000-{person:012}");
        sql.push_str(&format!(
            "INSERT INTO users (id, status, created, version, is_system, is_hidden, is_federated, \
             email, email_key, firstname, lastname, language_id, search_text) VALUES \
             ('{id}', 'ACTIVE', '2026-01-01 00:00:00', 1, 0, 0, 0, 'p{person}@example.com', \
             'p{person}@example.com', 'P', '{person}', 'en', 'p{person}');\n"
        ));
        let actions = 1 + rng.below(2 * (ACTIONS as usize / PEOPLE));
        sql.push_str(&format!(
            "INSERT INTO learners (user_id, actions) VALUES ('{id}', {actions});\n"
        ));
        let mut mine: Vec<usize> = (0..TOPICS_PER_PERSON)
            .map(|_| zipf(&mut rng, VOCABULARY))
            .collect();
        mine.sort_unstable();
        mine.dedup();
        for topic in mine {
            let relevance = 0.1 + rng.below(200) as f64 / 100.0;
            sql.push_str(&format!(
                "INSERT INTO actions (id, user_id, entity_type, action_type, action_date, \
                 received) VALUES ('00000000-0000-4000-9000-{person:06}{topic:06}', '{id}', \
                 'document', 'edit', '2026-01-01 00:00:00', '2026-01-01 00:00:00');\n\
                 INSERT INTO action_topics (action_id, user_id, topic_key, label, \
                 primary_relevance, default_relevance, secondary_relevance, relevance) VALUES \
                 ('00000000-0000-4000-9000-{person:06}{topic:06}', '{id}', '{key}', '{key}', \
                 0, {relevance}, 0, {relevance});\n",
                key = keys[topic],
            ));
            let days = i64::try_from(rng.below(1000)).unwrap_or_default();
            let standing = Standing {
                score: 0.2 + rng.below(500) as f64 / 100.0,
                as_of: now - chrono::Duration::days(days),
            };
            sql.push_str(&format!(
                "INSERT INTO standings (user_id, topic_key, label, score, as_of, rank_key) VALUES \
                 ('{id}', '{key}', '{key}', {score}, '{as_of}', {rank});\n",
                key = keys[topic],
                score = standing.score,
                as_of = standing.as_of.naive_utc().format("%Y-%m-%d %H:%M:%S"),
                rank = standing.rank_key(scoring),
            ));
        }
        if person % 500 == 499 {
            conn.batch_execute(&sql)?;
            sql.clear();
        }
    }
    conn.batch_execute(&sql)?;
    // The standings were built under these settings: no rebuild at start.
    conn.batch_execute(&format!(
        "INSERT INTO expertise_settings (id, fingerprint) VALUES (1, '{}'); COMMIT; ANALYZE;",
        scoring.fingerprint()
    ))?;
    drop(conn);
    // Counted as uploads would have counted them.
    Database::connect(&format!("sqlite://{path}"))?.recount_learning()?;
    Ok(())
}

/// The read `experts` made before standings had a rank key: every
/// standing of every active, visible person on the query's topics.
fn unbounded_read(conn: &mut SqliteConnection, keys: &[String]) -> anyhow::Result<usize> {
    let list = keys
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ");
    #[derive(diesel::QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Text)]
        #[allow(dead_code)]
        user_id: String,
    }
    let rows: Vec<Row> = diesel::sql_query(format!(
        "SELECT s.user_id FROM standings s JOIN users u ON u.id = s.user_id \
         WHERE s.topic_key IN ({list}) AND u.status = 'ACTIVE' AND NOT u.is_hidden"
    ))
    .load(conn)?;
    Ok(rows.len())
}

/// Runs the benchmark and prints its table.
pub fn bench(folder: &std::path::Path) -> anyhow::Result<()> {
    let path = folder.join("experts-bench.db");
    let path = path.to_str().context("a path in UTF-8")?.to_owned();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
    let extractor = KeyphraseExtractor::new();
    let words: Vec<String> = (0..VOCABULARY).map(word).collect();
    // The key each word is stored under, as the extractor folds it.
    let keys: Vec<String> = words
        .iter()
        .map(|w| {
            extractor
                .extract(w, TextFormat::Plain, Some("en"), 1)
                .words
                .first()
                .map_or_else(|| w.clone(), |t| t.key.clone())
        })
        .collect();
    let scoring = Scoring::default();
    let started = Instant::now();
    populate(&path, &keys, &scoring)?;
    let populated = started.elapsed();

    let clock = Arc::new(ManualClock::new(
        Utc.with_ymd_and_hms(2026, 3, 2, 0, 0, 0)
            .single()
            .context("date")?,
    ));
    let db = Arc::new(Database::connect(&format!("sqlite://{path}"))?);
    let expertise = ExpertiseService::new(
        db.clone(),
        db.clone(),
        db.clone(),
        Arc::new(KeyphraseExtractor::new()),
        clock,
        scoring,
    );
    let mut rng = SplitMix64::new(11);
    let queries: Vec<Vec<usize>> = (0..QUERIES)
        .map(|_| {
            (0..1 + rng.below(3))
                .map(|_| zipf(&mut rng, VOCABULARY))
                .collect()
        })
        .collect();
    let mut kenning = Vec::with_capacity(QUERIES);
    let limit = ExpertsLimit::parse(10)?;
    let mut found = 0;
    for query in &queries {
        let text = query
            .iter()
            .map(|i| words[*i].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let at = Instant::now();
        found += expertise.experts(&text, limit)?.len();
        kenning.push(at.elapsed());
    }
    let mut conn = SqliteConnection::establish(&path)?;
    let mut unbounded = Vec::with_capacity(QUERIES);
    let mut rows = 0;
    for query in &queries {
        let keys: Vec<String> = query.iter().map(|i| keys[*i].clone()).collect();
        let at = Instant::now();
        rows += unbounded_read(&mut conn, &keys)?;
        unbounded.push(at.elapsed());
    }
    kenning.sort_unstable();
    unbounded.sort_unstable();
    println!(
        "experts on SQLite: {PEOPLE} people, {ACTIONS} actions, {TOPICS_PER_PERSON} standings a person, {VOCABULARY} topics (generated in {:.0} s); {QUERIES} queries of 1-3 Zipf-drawn words, one client",
        populated.as_secs_f64()
    );
    println!();
    println!("| system | p50 ms | p99 ms | max ms | queries/s |");
    println!("|---|---|---|---|---|");
    for (name, samples) in [
        ("Kenning experts (whole use case)", &kenning),
        ("unbounded read of the standings alone (before)", &unbounded),
    ] {
        let total: Duration = samples.iter().sum();
        println!(
            "| {name} | {:.2} | {:.2} | {:.2} | {:.0} |",
            percentile(samples, 50),
            percentile(samples, 99),
            percentile(samples, 100),
            samples.len() as f64 / total.as_secs_f64().max(1e-9)
        );
    }
    println!();
    println!(
        "answers: {found} experts listed; the unbounded read returned {rows} standings in all"
    );
    Ok(())
}
