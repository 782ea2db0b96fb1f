//! How common each trigram is among the users' search texts, estimated
//! from a random sample of users, so that a search can ask the trigram
//! index for a text's rarest trigrams without first counting them in the
//! index.
//!
//! The estimates only choose which trigrams a search asks for and whether
//! it first looks in the head of the list; every step tests the whole text
//! on the users it reads, so a stale or poor estimate costs time, never a
//! wrong answer. They are kept per `Database` in memory (bounded
//! by the sample: at most [`SAMPLE`] texts' trigrams) and taken again
//! after [`REFRESH_AFTER`] by the search that finds them old, while other
//! searches go on with the old ones.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::QueryableByName;

use crate::connection::DbConnection;
use crate::location::Backend;
use crate::sql::{Binder, Statement};
use crate::trigrams::trigrams;

/// The most users a sample draws.
pub(crate) const SAMPLE: i64 = 5_000;
/// How long estimates serve before a search takes a new sample.
pub(crate) const REFRESH_AFTER: Duration = Duration::from_secs(60);

/// `SAMPLE` random numbers up to the highest rowid, and the texts of the
/// users that hold them: a uniform sample of the users, read through the
/// table's own b-tree, one seek each.
fn sample_sqlite() -> Statement {
    let mut sql = Binder::new(Backend::Sqlite);
    let sample = sql.int(SAMPLE);
    sql.statement(format!(
        "WITH RECURSIVE draw(n) AS \
             (SELECT 1 UNION ALL SELECT n + 1 FROM draw WHERE n < {sample}) \
         SELECT search_text FROM users WHERE rowid IN \
             (SELECT abs(random()) % (SELECT max(rowid) FROM users) + 1 FROM draw) \
           AND search_text IS NOT NULL"
    ))
}

/// How many rows the planner believes `users` holds (-1 before its first
/// statistics).
const USERS_POSTGRES: &str = "SELECT CAST(reltuples AS BIGINT) AS users \
     FROM pg_class WHERE oid = CAST('users' AS regclass)";

/// `SAMPLE` users from a share of the table's pages, `percent` of them,
/// every user on them; the first `SAMPLE` users without a share.
fn sample_postgres(percent: Option<f64>) -> Statement {
    let mut sql = Binder::new(Backend::Postgres);
    let pages = percent.map(|percent| {
        let percent = sql.text(percent.to_string());
        format!(" TABLESAMPLE SYSTEM (CAST({percent} AS DOUBLE PRECISION))")
    });
    let sample = sql.int(SAMPLE);
    sql.statement(format!(
        "SELECT search_text FROM users{} WHERE search_text IS NOT NULL LIMIT {sample}",
        pages.unwrap_or_default()
    ))
}

/// How many of the sampled users hold each trigram.
#[derive(Default)]
pub(crate) struct Estimates {
    /// The users sampled.
    sampled: u32,
    /// Per trigram, the sampled users holding it.
    holders: HashMap<String, u32>,
}

impl Estimates {
    /// Counts the trigrams of each sampled text, once per text.
    pub(crate) fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut estimates = Self::default();
        for text in texts {
            estimates.sampled = estimates.sampled.saturating_add(1);
            for trigram in trigrams(text) {
                let count = estimates.holders.entry(trigram).or_default();
                *count = count.saturating_add(1);
            }
        }
        estimates
    }

    /// The estimated share of users holding `trigram`, from 0 to 1; 1
    /// when nobody was sampled, as nothing is known to be rare then.
    pub(crate) fn share(&self, trigram: &str) -> f64 {
        if self.sampled == 0 {
            return 1.0;
        }
        let holders = self.holders.get(trigram).copied().unwrap_or_default();
        f64::from(holders) / f64::from(self.sampled)
    }
}

/// The counts themselves are not shown: tens of thousands of them would
/// drown whatever prints a `Database`.
impl std::fmt::Debug for Estimates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Estimates")
            .field("sampled", &self.sampled)
            .field("trigrams", &self.holders.len())
            .finish()
    }
}

/// The estimates of one database and when they were taken.
#[derive(Debug, Default)]
pub(crate) struct TrigramCounts {
    current: Mutex<Option<(Instant, Arc<Estimates>)>>,
    /// Whether a search is taking a new sample now.
    sampling: AtomicBool,
}

#[derive(QueryableByName)]
struct Sampled {
    #[diesel(sql_type = Nullable<Text>)]
    search_text: Option<String>,
}

#[derive(QueryableByName)]
struct Counted {
    #[diesel(sql_type = BigInt)]
    users: i64,
}

impl TrigramCounts {
    /// The current estimates; a new sample is taken on `conn` first when
    /// there are none yet, or when they are old and no other search is
    /// taking one.
    pub(crate) fn estimates(&self, conn: &mut DbConnection) -> diesel::QueryResult<Arc<Estimates>> {
        let held = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some((taken, estimates)) = &held {
            let fresh = taken.elapsed() < REFRESH_AFTER;
            if fresh || self.sampling.swap(true, Ordering::AcqRel) {
                return Ok(estimates.clone());
            }
        } else {
            self.sampling.store(true, Ordering::Release);
        }
        let taken = sample(conn).map(Arc::new);
        self.sampling.store(false, Ordering::Release);
        let estimates = taken?;
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now(), estimates.clone()));
        Ok(estimates)
    }
}

/// Takes a sample of at most [`SAMPLE`] users and counts its trigrams.
fn sample(conn: &mut DbConnection) -> diesel::QueryResult<Estimates> {
    let statement = match conn {
        DbConnection::Sqlite(_) => sample_sqlite(),
        DbConnection::Postgres(_) => {
            let users = Statement::plain(USERS_POSTGRES)
                .load::<Counted>(conn)?
                .first()
                .map_or(-1, |c| c.users);
            // A table too small to sample, or not yet counted, gives its
            // first users. Otherwise twice the pages the sample needs are
            // read, as some users may have no text; the LIMIT keeps it to
            // SAMPLE.
            let percent =
                (users > SAMPLE * 2).then(|| (200.0 * SAMPLE as f64 / users as f64).min(100.0));
            sample_postgres(percent)
        }
    };
    let texts = statement.load::<Sampled>(conn)?;
    Ok(Estimates::of(
        texts.iter().filter_map(|t| t.search_text.as_deref()),
    ))
}

#[cfg(test)]
mod tests {
    use super::Estimates;

    #[test]
    fn a_trigram_counts_once_per_text() {
        let estimates = Estimates::of(["aaaa", "baaa", "bcd"]);
        assert!((estimates.share("aaa") - 2.0 / 3.0).abs() < 1e-9);
        assert!((estimates.share("bcd") - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(estimates.share("zzz"), 0.0);
        assert_eq!(Estimates::default().share("aaa"), 1.0);
    }
}
