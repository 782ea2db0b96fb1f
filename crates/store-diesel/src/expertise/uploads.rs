//! The write path of an upload: the look-up and lock of each action's
//! person, then each action stored, its topics and the person's standings
//! written, and what it adds to the counts kept for the end of the write.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::Text;
use kenning_domain::{LearningRules, Scoring, StandingChanges, Status};
use kenning_ports::{NewAction, RecordError, Recorded, StoreError, UploadStage, UPLOAD_STAGES};
use uuid::Uuid;

use super::counts::{count_action, shard, CountRow, NewCounts};
use super::rows::{parse_user, ActionRow, ActionTopicRow, StandingRow, ROWS_PER_INSERT};
use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{action_topics, actions, standings};
use crate::sql::{Bind, Binder, Statement};

impl Database {
    /// [`ExpertiseStore::record_all`](kenning_ports::ExpertiseStore::record_all):
    /// every action of `actions` in one write transaction, each answered
    /// with the person it was stored for or why it was refused.
    pub(super) fn record_uploads(
        &self,
        actions: &[NewAction],
        scoring: &Scoring,
    ) -> Result<Vec<Result<Recorded, RecordError>>, StoreError> {
        if actions.is_empty() {
            return Ok(Vec::new());
        }
        let answers: Vec<Result<(String, bool), RecordError>> = self
            .write_uploads(|conn| {
                let (learners, rules) = UPLOAD_STAGES.time(UploadStage::PersonCheck, || {
                    Ok::<_, TxError>((lock_learners(conn, actions)?, crate::learning::rules(conn)?))
                })?;
                let mut counts = NewCounts::default();
                let mut answers = Vec::with_capacity(actions.len());
                for action in actions {
                    answers.push(
                        match record_one(conn, action, &learners, &rules, scoring, &mut counts)? {
                            Outcome::Learned(user_id, taught) => Ok((user_id, taught)),
                            Outcome::Refused(refusal) => Err(refusal),
                        },
                    );
                }
                UPLOAD_STAGES.time(UploadStage::TopicStructures, || counts.write(conn))?;
                Ok::<_, TxError>(answers)
            })
            .map_err(StoreError::from)?;
        answers
            .into_iter()
            .map(|answer| match answer {
                Ok((user_id, taught)) => Ok(Ok(Recorded {
                    user: parse_user(&user_id)?,
                    taught,
                })),
                Err(refusal) => Ok(Err(refusal)),
            })
            .collect()
    }
}

/// A user's id and whether she is learned about, as the look-up of an
/// upload returns them.
#[derive(QueryableByName)]
struct LearnerRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    learns: bool,
}

/// Locks the ACTIVE or DEACTIVATED user with an e-mail key and returns her
/// id and whether she is learned about: the look-up every upload makes, through the unique index
/// `users_email_key_live`. That index covers users `WHERE status <>
/// 'DELETED'`, and SQLite uses a partial index only for a statement that
/// states the index's condition as the index does (a bound parameter does
/// not count), so the statement spells it out beside the statuses it wants.
pub(crate) fn learning_user(conn: &DbConnection, key: &str) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let key = sql.text(key);
    sql.statement(format!(
        "UPDATE users SET version = version \
         WHERE email_key = {key} AND status <> '{deleted}' AND status IN ({learning}) \
         RETURNING id, learns",
        learning = Status::learning_sql(),
        deleted = Status::DELETED,
    ))
}

/// What became of one action of a write.
enum Outcome {
    /// Stored for the user with this id; whether it taught.
    Learned(String, bool),
    /// Refused before anything of it was written.
    Refused(RecordError),
}

/// Stores one action inside the caller's transaction and adds what it
/// changes in the counts to `counts`. An action is refused before any of
/// its writes, so a refusal needs no rollback.
fn record_one(
    conn: &mut DbConnection,
    action: &NewAction,
    learners: &HashMap<&str, (String, bool)>,
    rules: &LearningRules,
    scoring: &Scoring,
    counts: &mut NewCounts,
) -> Result<Outcome, TxError> {
    let Some((user_id, learns)) = learners.get(action.user_email_key.as_str()).cloned() else {
        return Ok(Outcome::Refused(RecordError::UnknownUser));
    };
    let taught = learns && rules.teaches(&action.entity_type, &action.action_type);
    let started = Instant::now();
    if let Some(duplicate) = insert_action(conn, action, &user_id, taught)? {
        UPLOAD_STAGES.add(UploadStage::ActionRow, started.elapsed());
        return Ok(Outcome::Refused(duplicate));
    }
    if !taught {
        UPLOAD_STAGES.add(UploadStage::ActionRow, started.elapsed());
        return Ok(Outcome::Learned(user_id, false));
    }
    let counted: Vec<CountRow> = count_action(conn, &user_id).load(conn)?;
    let first_action = counted.first().is_some_and(|c| c.actions == 1);
    let started = {
        let now = Instant::now();
        UPLOAD_STAGES.add(UploadStage::ActionRow, now - started);
        now
    };
    insert_topics(conn, action, &user_id, scoring)?;
    for key in learn(conn, action, &user_id, scoring)? {
        *counts.people_on.entry(key).or_default() += 1;
    }
    let total = counts.totals.entry(shard(&user_id).to_owned()).or_default();
    total.0 += i64::from(first_action);
    total.1 += 1;
    UPLOAD_STAGES.add(UploadStage::TopicStructures, started.elapsed());
    Ok(Outcome::Learned(user_id, true))
}

/// Inserts the action's row for `user_id`; `DuplicateAlias` (and nothing
/// written) when its alias is taken. PostgreSQL waits for a writer of the
/// same alias to end first.
fn insert_action(
    conn: &mut DbConnection,
    action: &NewAction,
    user_id: &str,
    taught: bool,
) -> Result<Option<RecordError>, TxError> {
    let inserted = execute_natively(
        conn,
        diesel::insert_into(actions::table)
            .values(ActionRow {
                id: action.id.to_string(),
                user_id,
                entity_type: &action.entity_type,
                action_type: &action.action_type,
                action_date: to_db_time(action.action_date),
                alias: action.alias.as_deref(),
                received: to_db_time(action.received),
                taught,
            })
            .on_conflict(actions::alias)
            .do_nothing(),
    )?;
    if inserted > 0 {
        return Ok(None);
    }
    let (stored, received): (String, NaiveDateTime) = actions::table
        .filter(actions::alias.eq(action.alias.as_deref()))
        .select((actions::id, actions::received))
        .first(conn)?;
    let action = Uuid::parse_str(&stored).map_err(|_| {
        TxError::from(StoreError::backend_message(format!(
            "stored action id {stored}"
        )))
    })?;
    Ok(Some(RecordError::DuplicateAlias {
        action,
        received: from_db_time(received),
    }))
}

/// Inserts the action's topics, each with its relevance under `scoring`.
fn insert_topics(
    conn: &mut DbConnection,
    action: &NewAction,
    user_id: &str,
    scoring: &Scoring,
) -> Result<(), TxError> {
    let learned: Vec<ActionTopicRow> = action
        .topics
        .iter()
        .map(|topic| ActionTopicRow {
            action_id: action.id.to_string(),
            user_id: user_id.to_owned(),
            topic_key: topic.key.clone(),
            label: topic.label.clone(),
            primary_relevance: topic.by_descriptor[0],
            default_relevance: topic.by_descriptor[1],
            secondary_relevance: topic.by_descriptor[2],
            relevance: topic.relevance(scoring),
            shown: topic.shown,
        })
        .collect();
    for rows in learned.chunks(ROWS_PER_INSERT) {
        execute_natively(conn, diesel::insert_into(action_topics::table).values(rows))?;
    }
    Ok(())
}

/// Updates the user's standings on the action's topics as the domain
/// learns ([`StandingChanges::of`]); the topics the user knows for the
/// first time.
fn learn(
    conn: &mut DbConnection,
    action: &NewAction,
    user_id: &str,
    scoring: &Scoring,
) -> Result<Vec<String>, TxError> {
    let keys: Vec<&str> = action.topics.iter().map(|t| t.key.as_str()).collect();
    let before: Vec<StandingRow> = standings::table
        .filter(standings::user_id.eq(user_id))
        .filter(standings::topic_key.eq_any(&keys))
        .select(StandingRow::as_select())
        .load(conn)?;
    let before = before
        .into_iter()
        .map(|row| (row.topic_key.clone(), row.labelled()))
        .collect();
    let changes = StandingChanges::of(
        &action.action_type,
        action.action_date,
        &action.topics,
        before,
        scoring,
    );
    let after: Vec<StandingRow> = changes
        .standings
        .into_iter()
        .map(|(key, labelled)| StandingRow::new(user_id.to_owned(), key, labelled, scoring))
        .collect();
    // The user's row is locked until commit, so nobody else writes these
    // standings meanwhile: those read above are updated in place.
    for rows in after.chunks(ROWS_PER_INSERT) {
        upsert_standings(conn, rows).execute(conn)?;
    }
    Ok(changes.first_known.into_iter().collect())
}

/// The ACTIVE or DEACTIVATED users that `actions` name, by e-mail key,
/// their rows locked until commit, so a purge cannot erase one of them
/// between this look-up and the writes. Taken in key order, so that two
/// writers of several users each never wait for each other in a cycle.
fn lock_learners<'a>(
    conn: &mut DbConnection,
    actions: &'a [NewAction],
) -> QueryResult<HashMap<&'a str, (String, bool)>> {
    let keys: BTreeSet<&str> = actions.iter().map(|a| a.user_email_key.as_str()).collect();
    let mut learners = HashMap::with_capacity(keys.len());
    for key in keys {
        let found: Vec<LearnerRow> = learning_user(conn, key).load(conn)?;
        if let Some(LearnerRow { id, learns }) = found.into_iter().next() {
            learners.insert(key, (id, learns));
        }
    }
    Ok(learners)
}

/// Writes `rows` over the standings of the same user and topic, or as new
/// ones (diesel writes no upsert of many rows for SQLite).
fn upsert_standings(conn: &DbConnection, rows: &[StandingRow]) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let values: Vec<String> = rows
        .iter()
        .map(|r| {
            let places = [
                Bind::Text(r.user_id.clone()),
                Bind::Text(r.topic_key.clone()),
                Bind::Text(r.label.clone()),
                Bind::Float(r.score),
                Bind::Moment(r.as_of),
                Bind::Float(r.rank_key),
                Bind::Bool(r.shown),
                Bind::Float(r.label_votes),
            ]
            .map(|value| sql.bind(value));
            format!("({})", places.join(", "))
        })
        .collect();
    sql.statement(format!(
        "INSERT INTO standings \
         (user_id, topic_key, label, score, as_of, rank_key, shown, label_votes) VALUES {} \
         ON CONFLICT (user_id, topic_key) DO UPDATE SET label = excluded.label, \
         label_votes = excluded.label_votes, \
         score = excluded.score, as_of = excluded.as_of, rank_key = excluded.rank_key, \
         shown = standings.shown OR excluded.shown",
        values.join(", ")
    ))
}
