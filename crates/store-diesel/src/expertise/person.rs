//! A person's own topics: her standings, her actions on a topic, and the
//! topics she hid from the rankings.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::{hidden_topics_changed, Attribution, Scoring, UserId};
use kenning_ports::{ActionRecord, StoreError, TopicListChange};
use uuid::Uuid;

use super::rows::{ActionTopicRow, StandingRow};
use crate::connection::{execute_natively, DbConnection, TxError};
use crate::rows::from_db_time;
use crate::schema::{action_topics, actions, hidden_topics, standings, users};

/// An action topic with its action's id, entity type, action type, date
/// and alias.
pub(super) type ActionOnRow = (
    ActionTopicRow,
    (String, String, String, NaiveDateTime, Option<String>),
);

/// The standings of `user`.
pub(super) fn standings_of(conn: &mut DbConnection, user: UserId) -> QueryResult<Vec<StandingRow>> {
    standings::table
        .filter(standings::user_id.eq(user.to_string()))
        .select(StandingRow::as_select())
        .load(conn)
}

/// The latest `max` actions of `user` on the topic `key`, latest first.
pub(super) fn actions_on(
    conn: &mut DbConnection,
    user: UserId,
    key: &str,
    max: u32,
) -> QueryResult<Vec<ActionOnRow>> {
    action_topics::table
        .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
        .filter(action_topics::user_id.eq(user.to_string()))
        .filter(action_topics::topic_key.eq(key))
        .order((actions::action_date.desc(), actions::id.asc()))
        .limit(i64::from(max))
        .select((
            ActionTopicRow::as_select(),
            (
                actions::id,
                actions::entity_type,
                actions::action_type,
                actions::action_date,
                actions::alias,
            ),
        ))
        .load(conn)
}

/// `rows` as the port's action records, each with the topic's relevance in
/// it under `scoring`.
pub(super) fn action_records(
    rows: Vec<ActionOnRow>,
    scoring: &Scoring,
) -> Result<Vec<ActionRecord>, StoreError> {
    rows.into_iter()
        .map(|(topic, (id, entity_type, action_type, date, alias))| {
            Ok(ActionRecord {
                id: Uuid::parse_str(&id).map_err(|_| {
                    StoreError::backend_message(format!("stored action id {id} is invalid"))
                })?,
                entity_type,
                action_type,
                action_date: from_db_time(date),
                alias,
                relevance: topic.entity_topic().relevance(scoring),
            })
        })
        .collect()
}

/// Hides the topics `keys` of `user`'s from the rankings, or shows them
/// again, in the caller's transaction, recording the change once when
/// there is one; a user who would then hide more than `most` topics hides
/// none of them. On PostgreSQL the user's row is locked first, so that two
/// hidings at once count one after the other (SQLite writes one
/// transaction at a time).
pub(super) fn set_hidden(
    conn: &mut DbConnection,
    user: UserId,
    keys: &[&str],
    hidden: bool,
    most: usize,
    by: &Attribution,
) -> Result<TopicListChange, TxError> {
    let user_id = user.to_string();
    let of_user = || hidden_topics::table.filter(hidden_topics::user_id.eq(user_id.clone()));
    lock_user(conn, &user_id)?;
    let already: Vec<String> = of_user()
        .filter(hidden_topics::topic_key.eq_any(keys))
        .select(hidden_topics::topic_key)
        .load(conn)?;
    let mut changing: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|key| already.iter().any(|k| k == key) != hidden)
        .collect();
    changing.sort_unstable();
    changing.dedup();
    if changing.is_empty() {
        return Ok(TopicListChange::Unchanged);
    }
    if hidden {
        let hides = of_user().count().get_result::<i64>(conn)?;
        let hides = usize::try_from(hides).unwrap_or(usize::MAX);
        if hides.saturating_add(changing.len()) > most {
            return Ok(TopicListChange::Full);
        }
        for key in &changing {
            execute_natively(
                conn,
                diesel::insert_into(hidden_topics::table)
                    .values((
                        hidden_topics::user_id.eq(&user_id),
                        hidden_topics::topic_key.eq(key),
                    ))
                    .on_conflict((hidden_topics::user_id, hidden_topics::topic_key))
                    .do_nothing(),
            )?;
        }
    } else {
        execute_natively(
            conn,
            diesel::delete(of_user().filter(hidden_topics::topic_key.eq_any(&changing))),
        )?;
    }
    crate::audit::record(conn, by, &[hidden_topics_changed(user.as_uuid())])?;
    Ok(TopicListChange::Changed)
}

/// On PostgreSQL, locks the row of the user `user_id` until the
/// transaction ends, so that changes to one person's lists count one
/// after the other (SQLite writes one transaction at a time).
pub(super) fn lock_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<()> {
    if let DbConnection::Postgres(pg) = conn {
        users::table
            .find(user_id)
            .select(users::id)
            .for_update()
            .load::<String>(pg)?;
    }
    Ok(())
}

/// The topics `user` hid, by key.
pub(super) fn hidden_of(conn: &mut DbConnection, user: UserId) -> QueryResult<Vec<String>> {
    hidden_topics::table
        .filter(hidden_topics::user_id.eq(user.to_string()))
        .order(hidden_topics::topic_key)
        .select(hidden_topics::topic_key)
        .load(conn)
}
