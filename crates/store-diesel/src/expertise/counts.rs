//! The counts a ranking reads in place of counting: how many people know
//! each topic (`topic_learners`), and the people and actions of the
//! population (`learner_totals`, in shards by the first character of a
//! user's id). Uploads add to them, an erasure takes from them, and a
//! recount makes them again from the standings and the learners.

use std::collections::{BTreeMap, HashMap};

use diesel::prelude::*;
use diesel::sql_types::Integer;
use diesel::upsert::excluded;
use kenning_domain::Population;
use kenning_ports::StoreError;

use super::rows::{KEYS_PER_READ, ROWS_PER_INSERT};
use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::schema::{learner_totals, topic_learners};
use crate::sql::{Binder, Statement};

/// Recounts `topic_learners` and `learner_totals` from the standings and
/// the learners, as the migration that made them counted them first.
const RECOUNT: &str = "DELETE FROM topic_learners; \
     INSERT INTO topic_learners (topic_key, people) \
     SELECT topic_key, COUNT(*) FROM standings GROUP BY topic_key; \
     DELETE FROM learner_totals; \
     INSERT INTO learner_totals (shard, people, actions) \
     SELECT substr(user_id, 1, 1), COUNT(*), SUM(actions) \
     FROM learners GROUP BY substr(user_id, 1, 1);";

/// A learner's number of actions, as the upsert that counts one returns it.
#[derive(QueryableByName)]
pub(super) struct CountRow {
    #[diesel(sql_type = Integer)]
    pub(super) actions: i32,
}

/// The row of `learner_totals` that counts a user.
pub(crate) fn shard(user_id: &str) -> &str {
    user_id.get(..1).unwrap_or_default()
}

/// Counts one more action of a learner (the first makes her a learner)
/// and returns her number of actions.
pub(super) fn count_action(conn: &DbConnection, user_id: &str) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let user = sql.text(user_id);
    sql.statement(format!(
        "INSERT INTO learners (user_id, actions) VALUES ({user}, 1) \
         ON CONFLICT (user_id) DO UPDATE SET actions = learners.actions + 1 \
         RETURNING actions"
    ))
}

/// Counts `people` more who know each key of `counts` (diesel writes no
/// upsert of many rows for SQLite).
fn count_learners(conn: &DbConnection, counts: &[(&String, &i64)]) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let values: Vec<String> = counts
        .iter()
        .map(|(key, people)| format!("({}, {})", sql.text(*key), sql.int(**people)))
        .collect();
    sql.statement(format!(
        "INSERT INTO topic_learners (topic_key, people) VALUES {} \
         ON CONFLICT (topic_key) DO UPDATE SET people = topic_learners.people + excluded.people",
        values.join(", ")
    ))
}

/// What the actions of one write add to the counts, kept until the end of
/// its transaction and written then in key order, so that the counts' rows
/// stay locked for the shortest time and writers never wait for each other
/// in a cycle.
#[derive(Debug, Default)]
pub(super) struct NewCounts {
    /// People who learned each topic for the first time.
    pub(super) people_on: BTreeMap<String, i64>,
    /// (new learners, actions) per shard of the totals.
    pub(super) totals: BTreeMap<String, (i64, i64)>,
}

impl NewCounts {
    pub(super) fn write(&self, conn: &mut DbConnection) -> QueryResult<()> {
        let people_on: Vec<(&String, &i64)> = self.people_on.iter().collect();
        for counts in people_on.chunks(ROWS_PER_INSERT) {
            count_learners(conn, counts).execute(conn)?;
        }
        for (shard, (people, actions)) in &self.totals {
            execute_natively(
                conn,
                diesel::insert_into(learner_totals::table)
                    .values((
                        learner_totals::shard.eq(shard),
                        learner_totals::people.eq(people),
                        learner_totals::actions.eq(actions),
                    ))
                    .on_conflict(learner_totals::shard)
                    .do_update()
                    .set((
                        learner_totals::people
                            .eq(learner_totals::people + excluded(learner_totals::people)),
                        learner_totals::actions
                            .eq(learner_totals::actions + excluded(learner_totals::actions)),
                    )),
            )?;
        }
        Ok(())
    }
}

/// Recounts the people per topic and the population from the standings
/// and the learners. On PostgreSQL the counts are locked first: an upload
/// that has counted already is waited for, and one that has not counts
/// after the recount, on top of it.
pub(super) fn recount(conn: &mut DbConnection) -> QueryResult<()> {
    use diesel::connection::SimpleConnection;
    if let DbConnection::Postgres(_) = conn {
        conn.batch_execute("LOCK TABLE topic_learners, learner_totals IN EXCLUSIVE MODE")?;
    }
    conn.batch_execute(RECOUNT)
}

/// The population, from its few rows of totals.
pub(super) fn count_population(conn: &mut DbConnection) -> QueryResult<Population> {
    let totals: Vec<(i64, i64)> = learner_totals::table
        .select((learner_totals::people, learner_totals::actions))
        .load(conn)?;
    let (people, actions) = totals
        .into_iter()
        .fold((0i64, 0i64), |(p, a), (people, actions)| {
            (p + people, a + actions)
        });
    Ok(Population {
        people: u64::try_from(people).unwrap_or_default(),
        actions: u64::try_from(actions).unwrap_or_default(),
    })
}

/// How many people know each of `keys`, from their counts.
pub(super) fn count_people_on(
    conn: &mut DbConnection,
    keys: &[String],
) -> QueryResult<HashMap<String, u64>> {
    let mut found = HashMap::with_capacity(keys.len());
    for keys in keys.chunks(KEYS_PER_READ) {
        let rows: Vec<(String, i64)> = topic_learners::table
            .filter(topic_learners::topic_key.eq_any(keys))
            .filter(topic_learners::people.gt(0))
            .select((topic_learners::topic_key, topic_learners::people))
            .load(conn)?;
        found.extend(
            rows.into_iter()
                .map(|(key, n)| (key, u64::try_from(n).unwrap_or_default())),
        );
    }
    Ok(found)
}

impl Database {
    /// Recounts the people per topic and the population from the stored
    /// standings and learners, for a tool that wrote those tables
    /// directly; every write of the store keeps the counts itself.
    pub fn recount_learning(&self) -> Result<(), StoreError> {
        self.write(|conn| recount(conn).map_err(TxError::from))
            .map_err(StoreError::from)
    }
}
