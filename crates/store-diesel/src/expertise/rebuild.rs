//! The rebuild of the standings: when the scoring settings change, every
//! learner's standings are learned again from her actions, in batches,
//! and the counts made again; the forgetting of actions learns a person's
//! standings again by the same code.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::{LabelledStanding, Scoring};
use kenning_ports::StoreError;

use super::best_rows::text_array;
use super::counts::recount;
use super::rows::{ActionTopicRow, StandingRow, ROWS_PER_INSERT};
use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::location::Backend;
use crate::rows::from_db_time;
use crate::schema::{action_topics, actions, expertise_settings, learners, standings, users};
use crate::sql::{Bind, Binder};

impl Database {
    /// [`ExpertiseStore::rebuild_if_changed`](kenning_ports::ExpertiseStore::rebuild_if_changed):
    /// the standings and the counts made again under `scoring`, unless the
    /// store was built under the same settings.
    pub(super) fn rebuild_standings(&self, scoring: &Scoring) -> Result<bool, StoreError> {
        let fingerprint = scoring.fingerprint();
        let stored: Option<String> = self.read(|conn| {
            expertise_settings::table
                .find(1)
                .select(expertise_settings::fingerprint)
                .first(conn)
                .optional()
        })?;
        if stored.as_deref() == Some(fingerprint.as_str()) {
            return Ok(false);
        }
        // Learners in batches of about REBUILD_ACTIONS actions, each batch
        // rebuilt in a transaction of its own: memory holds one batch's
        // topics, not the whole history, and other writers get the lock
        // between batches. The settings are recorded last, so a rebuild
        // cut short starts again at the next start; rebuilding a learner
        // twice gives the same standings.
        let mut after = String::new();
        loop {
            let learners: Vec<(String, i32)> = self.read(|conn| {
                learners::table
                    .filter(learners::user_id.gt(&after))
                    .order(learners::user_id)
                    .select((learners::user_id, learners::actions))
                    .limit(REBUILD_LEARNERS_READ)
                    .load(conn)
            })?;
            let Some((last, _)) = learners.last() else {
                break;
            };
            after = last.clone();
            let mut batch = Vec::new();
            let mut actions = 0i64;
            for (user, count) in learners {
                batch.push(user);
                actions += i64::from(count);
                if actions >= REBUILD_ACTIONS {
                    self.rebuild_learners(&std::mem::take(&mut batch), scoring)?;
                    actions = 0;
                }
            }
            if !batch.is_empty() {
                self.rebuild_learners(&batch, scoring)?;
            }
        }
        self.write(|conn| {
            // Standings of users who have no action left (none should
            // exist) are not rebuilt by any batch.
            // NOT EXISTS, which both backends run as an anti-join
            // (PostgreSQL runs `<> ALL (subquery)` once per standing).
            diesel::sql_query(
                "DELETE FROM standings WHERE NOT EXISTS \
                 (SELECT 1 FROM learners WHERE learners.user_id = standings.user_id)",
            )
            .execute(conn)?;
            recount(conn)?;
            diesel::delete(expertise_settings::table).execute(conn)?;
            diesel::insert_into(expertise_settings::table)
                .values((
                    expertise_settings::id.eq(1),
                    expertise_settings::fingerprint.eq(&fingerprint),
                ))
                .execute(conn)?;
            Ok::<_, TxError>(())
        })
        .map_err(StoreError::from)?;
        Ok(true)
    }
}

/// About how many actions one transaction of a standings rebuild reads
/// (a learner with more is a batch alone): at some 190 topics an action,
/// a batch holds a few tens of megabytes.
const REBUILD_ACTIONS: i64 = 1_000;
/// Learners read at a time to form rebuild batches.
const REBUILD_LEARNERS_READ: i64 = 1_000;

impl Database {
    /// Recomputes the standings of the users `ids` from their actions under
    /// `scoring`, replacing theirs, and their actions' relevance, in one
    /// transaction, which may run while uploads are recorded: an upload
    /// locks its user's row first, and so does this, before it reads their
    /// actions (PostgreSQL; SQLite runs one writer at a time), so no upload
    /// falls between the actions read and the standings replaced.
    fn rebuild_learners(&self, ids: &[String], scoring: &Scoring) -> Result<(), StoreError> {
        self.write(|conn| relearn(conn, ids, scoring).map_err(TxError::from))
            .map_err(StoreError::from)
    }
}

/// Recomputes the standings of the users `ids` from their actions under
/// `scoring`, replacing theirs, and their actions' relevance, in the
/// caller's transaction (see [`Database::rebuild_learners`] for the locks).
pub(crate) fn relearn(
    conn: &mut DbConnection,
    ids: &[String],
    scoring: &Scoring,
) -> QueryResult<()> {
    if let DbConnection::Postgres(pg) = conn {
        // In the order of the ids: batches never wait on each other
        // in a cycle.
        users::table
            .filter(users::id.eq_any(ids))
            .order(users::id)
            .select(users::id)
            .for_update()
            .load::<String>(pg)?;
    }
    let learned: Vec<(ActionTopicRow, (String, NaiveDateTime))> = action_topics::table
        .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
        .filter(action_topics::user_id.eq_any(ids))
        // Redundant, but it lets both tables be read by user
        // (PostgreSQL otherwise hashes every action).
        .filter(actions::user_id.eq_any(ids))
        .select((
            ActionTopicRow::as_select(),
            (actions::action_type, actions::action_date),
        ))
        .load(conn)?;
    let mut rebuilt: HashMap<(String, String), LabelledStanding> = HashMap::new();
    let mut changed: Vec<(String, String, f64)> = Vec::new();
    for (topic, (action_type, date)) in learned {
        let taught = topic.entity_topic();
        let relevance = taught.relevance(scoring);
        if relevance.to_bits() != topic.relevance.to_bits() {
            changed.push((topic.action_id, topic.topic_key.clone(), relevance));
        }
        let key = (topic.user_id, topic.topic_key);
        let before = rebuilt.remove(&key);
        let after =
            LabelledStanding::learn(before, &taught, &action_type, from_db_time(date), scoring);
        rebuilt.insert(key, after);
    }
    for rows in changed.chunks(ROWS_PER_INSERT) {
        set_relevance(conn, rows)?;
    }
    diesel::delete(standings::table.filter(standings::user_id.eq_any(ids))).execute(conn)?;
    let rows: Vec<StandingRow> = rebuilt
        .into_iter()
        .map(|((user_id, topic_key), labelled)| {
            StandingRow::new(user_id, topic_key, labelled, scoring)
        })
        .collect();
    for rows in rows.chunks(ROWS_PER_INSERT) {
        execute_natively(conn, diesel::insert_into(standings::table).values(rows))?;
    }
    Ok(())
}

/// Stores each `(action_id, topic_key, relevance)` of `rows` as that
/// action topic's relevance: the domain's
/// ([`EntityTopic::relevance`](kenning_domain::EntityTopic::relevance)),
/// computed by the caller. SQLite's writes a row a statement (prepared
/// once, no round trip); PostgreSQL's writes them all in one statement
/// (one round trip), the columns bound as arrays.
fn set_relevance(conn: &mut DbConnection, rows: &[(String, String, f64)]) -> QueryResult<()> {
    match conn {
        DbConnection::Sqlite(_) => {
            for (action_id, topic_key, relevance) in rows {
                diesel::update(action_topics::table.find((action_id, topic_key)))
                    .set(action_topics::relevance.eq(relevance))
                    .execute(conn)?;
            }
        }
        DbConnection::Postgres(_) => {
            let column = |pick: fn(&(String, String, f64)) -> String| {
                let values: Vec<String> = rows.iter().map(pick).collect();
                Bind::Text(text_array(&values))
            };
            let mut sql = Binder::new(Backend::Postgres);
            let (ids, keys, relevances) = (
                sql.bind(column(|row| row.0.clone())),
                sql.bind(column(|row| row.1.clone())),
                sql.bind(column(|row| format!("{:e}", row.2))),
            );
            sql.statement(format!(
                "UPDATE action_topics t SET relevance = v.relevance \
                 FROM unnest({ids}::text[], {keys}::text[], {relevances}::text[]::float8[]) \
                 AS v(action_id, topic_key, relevance) \
                 WHERE t.action_id = v.action_id AND t.topic_key = v.topic_key"
            ))
            .execute(conn)?;
        }
    }
    Ok(())
}
