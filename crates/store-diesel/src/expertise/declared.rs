//! The topics a person says they know, apart from what uploads teach.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::{declared_topics_changed, Attribution, DeclaredTopic, UserId};
use kenning_ports::{StoreError, TopicListChange};

use super::rows::parse_user;
use crate::connection::{execute_natively, DbConnection, TxError};
use crate::rows::{from_db_time, to_db_time};
use crate::schema::declared_topics;

/// A stored declaration: user id, key, label and when.
pub(super) type DeclaredRow = (String, String, String, NaiveDateTime);

fn topic_of((_, key, label, at): DeclaredRow) -> DeclaredTopic {
    DeclaredTopic {
        key,
        label,
        declared: from_db_time(at),
    }
}

/// Records that `user` says they know `topic`, or withdraws the
/// declaration of `key` (`None`), in the caller's transaction, recording
/// the change when there is one; a user who declared `most` topics
/// declares no other. On PostgreSQL the user's row is locked first, so
/// that two declarations at once count one after the other (SQLite
/// writes one transaction at a time).
pub(super) fn set_declared(
    conn: &mut DbConnection,
    user: UserId,
    key: &str,
    topic: Option<&DeclaredTopic>,
    most: usize,
    by: &Attribution,
) -> Result<TopicListChange, TxError> {
    let user_id = user.to_string();
    let of_user = || declared_topics::table.filter(declared_topics::user_id.eq(user_id.clone()));
    let changed = match topic {
        Some(topic) => {
            super::person::lock_user(conn, &user_id)?;
            let already = of_user()
                .filter(declared_topics::topic_key.eq(key))
                .count()
                .get_result::<i64>(conn)?;
            if already > 0 {
                return Ok(TopicListChange::Unchanged);
            }
            let declared = of_user().count().get_result::<i64>(conn)?;
            if usize::try_from(declared).unwrap_or(usize::MAX) >= most {
                return Ok(TopicListChange::Full);
            }
            execute_natively(
                conn,
                diesel::insert_into(declared_topics::table)
                    .values((
                        declared_topics::user_id.eq(&user_id),
                        declared_topics::topic_key.eq(key),
                        declared_topics::label.eq(&topic.label),
                        declared_topics::declared_at.eq(to_db_time(topic.declared)),
                    ))
                    .on_conflict((declared_topics::user_id, declared_topics::topic_key))
                    .do_nothing(),
            )?
        }
        None => execute_natively(
            conn,
            diesel::delete(of_user().filter(declared_topics::topic_key.eq(key))),
        )?,
    };
    if changed == 0 {
        return Ok(TopicListChange::Unchanged);
    }
    crate::audit::record(conn, by, &[declared_topics_changed(user.as_uuid())])?;
    Ok(TopicListChange::Changed)
}

/// The columns of a declaration, as [`DeclaredRow`] holds them.
type DeclaredColumns = (
    declared_topics::user_id,
    declared_topics::topic_key,
    declared_topics::label,
    declared_topics::declared_at,
);

const COLUMNS: DeclaredColumns = (
    declared_topics::user_id,
    declared_topics::topic_key,
    declared_topics::label,
    declared_topics::declared_at,
);

/// The topics `user` says they know, by key.
pub(super) fn declared_of(
    conn: &mut DbConnection,
    user: UserId,
) -> QueryResult<Vec<DeclaredTopic>> {
    let rows: Vec<DeclaredRow> = declared_topics::table
        .filter(declared_topics::user_id.eq(user.to_string()))
        .order(declared_topics::topic_key)
        .select(COLUMNS)
        .load(conn)?;
    Ok(rows.into_iter().map(topic_of).collect())
}

/// The newest `per_key` declarations that speak of each of `keys` (the
/// key itself, or a key holding it as whole words), each with the key
/// asked. A person declares a handful of topics, so the words are matched
/// by a pattern over the table rather than an index of every word.
pub(super) fn declared_on(
    conn: &mut DbConnection,
    keys: &[String],
    per_key: u32,
) -> QueryResult<Vec<(String, DeclaredRow)>> {
    let mut found = Vec::new();
    for key in keys {
        let words = escaped(key);
        let rows: Vec<DeclaredRow> = declared_topics::table
            .filter(
                declared_topics::topic_key
                    .eq(key)
                    .or(declared_topics::topic_key
                        .like(format!("{words} %"))
                        .escape('\\'))
                    .or(declared_topics::topic_key
                        .like(format!("% {words}"))
                        .escape('\\'))
                    .or(declared_topics::topic_key
                        .like(format!("% {words} %"))
                        .escape('\\')),
            )
            .order(declared_topics::declared_at.desc())
            .limit(i64::from(per_key))
            .select(COLUMNS)
            .load(conn)?;
        found.extend(rows.into_iter().map(|row| (key.clone(), row)));
    }
    Ok(found)
}

/// `key` as a `LIKE` pattern matches it literally.
fn escaped(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `rows` with whose each is.
pub(super) fn with_users(
    rows: Vec<(String, DeclaredRow)>,
) -> Result<Vec<(String, UserId, DeclaredTopic)>, StoreError> {
    rows.into_iter()
        .map(|(key, row)| Ok((key, parse_user(&row.0)?, topic_of(row))))
        .collect()
}
