//! The generated directory: people with plausible, searchable names, and
//! the expertise of the first [`EXPERTS`] of them.
//!
//! Everything is a function of the person's number, so the load generator
//! can name any stored person (her id, e-mail, externalId) without asking
//! the server.

use anyhow::Context;
use chrono::{DateTime, TimeZone, Utc};
use diesel::{Connection, PgConnection, RunQueryDsl, SqliteConnection};
use kenning_domain::{LanguageId, NewUser, NewUserInput, Scoring, Standing, User, UserId};
use kenning_store_diesel::Database;
use uuid::Uuid;

/// People who learned anything; the first of the directory.
pub const EXPERTS: u64 = 10_000;
/// Standings per expert.
const TOPICS_PER_EXPERT: usize = 200;
/// Distinct topics.
pub const VOCABULARY: usize = 50_000;
/// Users stored per call of [`Database::import_users`].
const IMPORT_BATCH: u64 = 10_000;

/// Common surnames, most common first; one person in ten has one of them.
const COMMON: [&str; 24] = [
    "smith",
    "johnson",
    "williams",
    "brown",
    "jones",
    "garcia",
    "miller",
    "davis",
    "rodriguez",
    "martinez",
    "hernandez",
    "lopez",
    "gonzalez",
    "wilson",
    "anderson",
    "thomas",
    "taylor",
    "moore",
    "jackson",
    "martin",
    "lee",
    "perez",
    "thompson",
    "white",
];

const FIRST: [&str; 32] = [
    "ada",
    "alan",
    "barbara",
    "claude",
    "donald",
    "edsger",
    "frances",
    "grace",
    "hedy",
    "ivan",
    "john",
    "karen",
    "leslie",
    "margaret",
    "niklaus",
    "ole",
    "peter",
    "radia",
    "shafi",
    "tim",
    "ursula",
    "vint",
    "whitfield",
    "xavier",
    "yukihiro",
    "zoe",
    "anita",
    "bjarne",
    "carol",
    "dennis",
    "edith",
    "fran",
];

const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zu", "pa", "ri", "do", "fe", "gu", "ho", "ja",
];

/// A deterministic mix of `n` (SplitMix64's finaliser).
pub fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A draw in `0..n` from `seed`, about Zipf-distributed (rank r with
/// probability about 1/r).
pub fn zipf(seed: u64, n: usize) -> usize {
    let u = (mix(seed) >> 11) as f64 / (1u64 << 53) as f64;
    let r = ((n as f64 + 1.0).powf(u) - 1.0).floor() as usize;
    r.min(n - 1)
}

fn syllables(mut n: usize, count: usize) -> String {
    let mut out = String::new();
    for _ in 0..count {
        out.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    out
}

/// Person `n`'s id.
pub fn id(n: u64) -> Uuid {
    Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_0000 | u128::from(n))
}

/// Person `n`'s last name.
fn lastname(n: u64) -> String {
    let draw = mix(n ^ 0x1a57);
    if draw.is_multiple_of(10) {
        COMMON[zipf(draw, COMMON.len())].to_owned()
    } else {
        syllables((draw >> 8) as usize, 3)
    }
}

fn firstname(n: u64) -> &'static str {
    FIRST[(mix(n ^ 0xf125) % FIRST.len() as u64) as usize]
}

/// Person `n`'s e-mail address.
pub fn email(n: u64) -> String {
    format!("{}.{}.{n}@example.com", firstname(n), lastname(n))
}

/// Person `n`'s externalId.
pub fn external_id(n: u64) -> String {
    format!("E{n:09}")
}

/// Person `n` as stored.
pub fn user(n: u64, language: &LanguageId, now: DateTime<Utc>) -> anyhow::Result<User> {
    let input = NewUserInput {
        email: email(n),
        firstname: firstname(n).to_owned(),
        lastname: lastname(n),
        external_id: Some(external_id(n)),
        department: Some(format!("department {}", n % 40)),
        ..NewUserInput::default()
    };
    let new = NewUser::parse(input, language).map_err(|e| anyhow::anyhow!("person {n}: {e}"))?;
    Ok(User::register(UserId::from_uuid(id(n)), new, now))
}

/// When the directory was generated, as far as its rows say.
pub fn epoch() -> anyhow::Result<DateTime<Utc>> {
    Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0)
        .single()
        .context("the epoch is a valid date")
}

/// Stores people `from..to` through the storage crate's bulk import.
pub fn add_people(db: &Database, from: u64, to: u64) -> anyhow::Result<()> {
    let language = LanguageId::parse("en").map_err(|e| anyhow::anyhow!("{e}"))?;
    let now = epoch()?;
    let mut start = from;
    while start < to {
        let end = (start + IMPORT_BATCH).min(to);
        let batch = (start..end)
            .map(|n| user(n, &language, now))
            .collect::<anyhow::Result<Vec<_>>>()?;
        db.import_users(&batch)
            .with_context(|| format!("import people {start}..{end}"))?;
        start = end;
    }
    Ok(())
}

/// A pronounceable word for topic `i`, letters only, so the extractor
/// reads it as one content word.
pub fn topic_word(i: usize) -> String {
    format!("q{}x", syllables(i, 4))
}

/// The `i`-th word no generated upload holds: unlike [`topic_word`], it
/// never starts with q.
pub fn unlearned_word(i: usize) -> String {
    format!("z{}v", syllables(i, 3))
}

/// Writes the standings of the first [`EXPERTS`] people straight into the
/// storage tables, as a million uploads would have left them (`experts`
/// reads only standings, learners and users), built under `scoring`, so
/// the server starts without rebuilding them. `keys[i]` is the stored key
/// of [`topic_word`]`(i)`.
pub fn add_expertise(url: &str, keys: &[String], scoring: &Scoring) -> anyhow::Result<()> {
    let now = epoch()?;
    let mut script = String::new();
    let mut batches = Vec::new();
    for person in 0..EXPERTS {
        let id = id(person);
        let actions = 1 + mix(person ^ 0xac7) % 200;
        script.push_str(&format!(
            "INSERT INTO learners (user_id, actions) VALUES ('{id}', {actions});\n"
        ));
        let mut mine: Vec<usize> = (0..TOPICS_PER_EXPERT as u64)
            .map(|t| zipf(person * 1_000 + t, VOCABULARY))
            .collect();
        mine.sort_unstable();
        mine.dedup();
        let values: Vec<String> = mine
            .iter()
            .map(|&topic| {
                let draw = mix(person * 7_919 + topic as u64);
                let days = i64::try_from(draw % 1_000).unwrap_or_default();
                let standing = Standing {
                    score: 0.2 + (draw >> 16) as f64 % 500.0 / 100.0,
                    as_of: now - chrono::Duration::days(days),
                };
                format!(
                    "('{id}', '{key}', '{key}', {score}, '{as_of}', {rank})",
                    key = keys[topic],
                    score = standing.score,
                    as_of = standing.as_of.naive_utc().format("%Y-%m-%d %H:%M:%S"),
                    rank = standing.rank_key(scoring),
                )
            })
            .collect();
        script.push_str(&format!(
            "INSERT INTO standings (user_id, topic_key, label, score, as_of, rank_key) VALUES {};\n",
            values.join(", ")
        ));
        if person % 500 == 499 {
            batches.push(std::mem::take(&mut script));
        }
    }
    run_learned(url, batches, script, scoring)
}

/// Writes `per_person` actions of two topics each for each of the first
/// [`EXPERTS`] people straight into the storage tables, as uploads under
/// `scoring` would have left them (their standings too, as far as a
/// rebuild is concerned: it reads only actions and their topics).
pub fn add_actions(url: &str, per_person: u64, scoring: &Scoring) -> anyhow::Result<u64> {
    let now = epoch()?;
    let mut batches = vec!["DELETE FROM standings; DELETE FROM learners;".to_owned()];
    let mut script = String::new();
    for person in 0..EXPERTS {
        let user = id(person);
        let mut actions = Vec::new();
        let mut topics = Vec::new();
        for a in 0..per_person {
            let action = Uuid::from_u128((u128::from(person) << 32) | u128::from(a) | (1 << 100));
            let days = i64::try_from(mix(person * 31 + a) % 1_000).unwrap_or_default();
            let date = (now - chrono::Duration::days(days)).format("%Y-%m-%d %H:%M:%S");
            actions.push(format!(
                "('{action}', '{user}', 'document', 'create', '{date}', NULL, '2026-03-01 00:00:00')"
            ));
            let first = zipf(person * 1_000 + a * 2, VOCABULARY);
            let second = zipf(person * 1_000 + a * 2 + 1, VOCABULARY);
            // Two different topics.
            let second = if second == first {
                (first + 1) % VOCABULARY
            } else {
                second
            };
            for (t, topic) in [first, second].into_iter().enumerate() {
                let t = t as u64;
                let key = topic_word(topic);
                topics.push(format!(
                    "('{action}', '{user}', '{key}', '{key}', 0, {relevance}, 0)",
                    relevance = 0.5 + (mix(a + t) % 100) as f64 / 100.0,
                ));
            }
        }
        script.push_str(&format!(
            "INSERT INTO actions (id, user_id, entity_type, action_type, action_date, alias, received) VALUES {};\n",
            actions.join(", ")
        ));
        script.push_str(&format!(
            "INSERT INTO action_topics (action_id, user_id, topic_key, label, primary_relevance, default_relevance, secondary_relevance) VALUES {};\n",
            topics.join(", ")
        ));
        script.push_str(&format!(
            "INSERT INTO learners (user_id, actions) VALUES ('{user}', {per_person});\n"
        ));
        if person % 200 == 199 {
            batches.push(std::mem::take(&mut script));
        }
    }
    run_learned(url, batches, script, scoring)?;
    Ok(EXPERTS * per_person)
}

/// Runs the scripts that wrote what uploads would have left, the last
/// unfinished one included, then records that it was learned under
/// `scoring`, all in one transaction; then counts, as uploads would have,
/// the people per topic and the population.
fn run_learned(
    url: &str,
    mut batches: Vec<String>,
    last: String,
    scoring: &Scoring,
) -> anyhow::Result<()> {
    if !last.is_empty() {
        batches.push(last);
    }
    batches.push(format!(
        "DELETE FROM expertise_settings; \
         INSERT INTO expertise_settings (id, fingerprint) VALUES (1, '{}');",
        scoring.fingerprint()
    ));
    run_scripts(url, &batches)?;
    Database::connect(url)?.recount_learning()?;
    Ok(())
}

/// Runs SQL scripts in one transaction on the database at `url`, then
/// refreshes the planner's statistics. No server runs meanwhile, so an
/// ordinary transaction takes SQLite's write lock at once.
fn run_scripts(url: &str, scripts: &[String]) -> anyhow::Result<()> {
    fn on<C: Connection>(mut conn: C, scripts: &[String]) -> anyhow::Result<()> {
        conn.transaction(|conn| {
            for script in scripts {
                conn.batch_execute(script)?;
            }
            diesel::QueryResult::Ok(())
        })?;
        conn.batch_execute("ANALYZE")?;
        Ok(())
    }
    match url.strip_prefix("sqlite://") {
        Some(path) => on(SqliteConnection::establish(path)?, scripts),
        None => on(PgConnection::establish(url)?, scripts),
    }
}

/// Makes the database at `url` store nothing of what uploads teach: every
/// row of `action_topics`, `standings` and `topic_learners` an upload
/// writes is dropped by a trigger before it is inserted, while the
/// statements that write them still run. An upload then costs what the
/// service costs without its topic structures (HTTP, JSON, extraction,
/// the person's look-up, the action's row, the commit): the ceiling no
/// design of those structures can pass on this machine.
pub fn store_no_topics(url: &str) -> anyhow::Result<()> {
    const TABLES: [&str; 3] = ["action_topics", "standings", "topic_learners"];
    let scripts: Vec<String> = if url.starts_with("sqlite://") {
        TABLES
            .iter()
            .map(|table| {
                format!(
                    "CREATE TRIGGER ceiling_{table} BEFORE INSERT ON {table} \
                     BEGIN SELECT RAISE(IGNORE); END;"
                )
            })
            .collect()
    } else {
        let mut scripts = vec!["CREATE FUNCTION ceiling_ignore() RETURNS trigger \
             LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;"
            .to_owned()];
        scripts.extend(TABLES.iter().map(|table| {
            format!(
                "CREATE TRIGGER ceiling_{table} BEFORE INSERT ON {table} \
                 FOR EACH ROW EXECUTE FUNCTION ceiling_ignore();"
            )
        }));
        scripts
    };
    run_scripts(url, &scripts)
}

/// Refreshes the planner's statistics after the directory grew, as an
/// operator's maintenance would; on PostgreSQL also the visibility map, as
/// autovacuum would after the inserts, so that index-only scans read no
/// table rows.
pub fn analyze(url: &str) -> anyhow::Result<()> {
    run_scripts(url, &[])?;
    if !url.starts_with("sqlite://") {
        diesel::connection::SimpleConnection::batch_execute(
            &mut PgConnection::establish(url)?,
            "VACUUM",
        )?;
    }
    Ok(())
}

/// The fingerprint of the scoring settings the stored standings were
/// built under, as the database at `url` records it.
pub fn standings_fingerprint(url: &str) -> anyhow::Result<Option<String>> {
    #[derive(diesel::QueryableByName)]
    struct Recorded {
        #[diesel(sql_type = diesel::sql_types::Text)]
        fingerprint: String,
    }
    const RECORDED: &str = "SELECT fingerprint FROM expertise_settings";
    let found: Vec<Recorded> = match url.strip_prefix("sqlite://") {
        Some(path) => diesel::sql_query(RECORDED).load(&mut SqliteConnection::establish(path)?)?,
        None => diesel::sql_query(RECORDED).load(&mut PgConnection::establish(url)?)?,
    };
    Ok(found.into_iter().next().map(|r| r.fingerprint))
}
