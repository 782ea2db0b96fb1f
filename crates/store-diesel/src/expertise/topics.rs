//! The topics across people: those anyone learned, their labels, and the
//! topics met beside one in the actions that teach it.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use kenning_domain::commonest_labels;
use kenning_ports::Cooccurring;

use super::rows::KEYS_PER_READ;
use crate::connection::DbConnection;
use crate::schema::{standings, topic_learners};
use crate::sql::Binder;

/// The key of every topic somebody has a standing on, in key order, read
/// from the counts.
pub(super) fn learned_keys(conn: &mut DbConnection) -> QueryResult<Vec<String>> {
    topic_learners::table
        .filter(topic_learners::people.gt(0))
        .order(topic_learners::topic_key)
        .select(topic_learners::topic_key)
        .load(conn)
}

/// A label of each of `keys` that somebody has a standing on (the least
/// of their labels).
pub(super) fn labels_of(
    conn: &mut DbConnection,
    keys: &[String],
) -> QueryResult<HashMap<String, String>> {
    let mut found = HashMap::with_capacity(keys.len());
    for keys in keys.chunks(KEYS_PER_READ) {
        let rows: Vec<(String, Option<String>)> = standings::table
            .filter(standings::topic_key.eq_any(keys))
            .group_by(standings::topic_key)
            .select((standings::topic_key, diesel::dsl::min(standings::label)))
            .load(conn)?;
        found.extend(rows.into_iter().filter_map(|(k, l)| Some((k, l?))));
    }
    Ok(found)
}

/// An action that taught a topic, as the read of the newest reads it.
#[derive(QueryableByName)]
struct TeachingRow {
    #[diesel(sql_type = Text)]
    id: String,
}

/// A topic of the actions read, in one of its forms, and in how many it
/// appeared.
#[derive(QueryableByName)]
struct TogetherRow {
    #[diesel(sql_type = Text)]
    topic_key: String,
    #[diesel(sql_type = Text)]
    label: String,
    #[diesel(sql_type = BigInt)]
    together: i64,
}

/// The condition that keeps the rows of `action_topics t` whose person
/// did not hide their topic: one look-up of `hidden_topics`' key a row.
const NOT_HIDDEN: &str = "NOT EXISTS (SELECT 1 FROM hidden_topics h \
     WHERE h.user_id = t.user_id AND h.topic_key = t.topic_key)";

/// The shown topics taught together with `key` by the newest `sample`
/// actions that taught it, and the number of actions read: actions of
/// ranked learners (one look-up of `learners_ranked` a row) who did not
/// hide `key`, and in each the topics its person did not hide.
pub(super) fn cooccurring(
    conn: &mut DbConnection,
    key: &str,
    sample: u32,
) -> QueryResult<Cooccurring> {
    let mut sql = Binder::new(conn.backend());
    let topic = sql.text(key);
    let limit = sql.int(i64::from(sample));
    let teaching: Vec<String> = sql
        .statement(format!(
            "SELECT a.id AS id FROM action_topics t JOIN actions a ON a.id = t.action_id \
             WHERE t.topic_key = {topic} \
             AND EXISTS (SELECT 1 FROM learners l WHERE l.user_id = t.user_id AND l.ranked) \
             AND {NOT_HIDDEN} \
             ORDER BY a.action_date DESC, a.id ASC LIMIT {limit}"
        ))
        .load::<TeachingRow>(conn)?
        .into_iter()
        .map(|row| row.id)
        .collect();
    let mut rows = Vec::new();
    for ids in teaching.chunks(KEYS_PER_READ) {
        let mut sql = Binder::new(conn.backend());
        let topic = sql.text(key);
        let ids: Vec<String> = ids.iter().map(|id| sql.text(id.as_str())).collect();
        rows.extend(
            sql.statement(format!(
                "SELECT t.topic_key AS topic_key, t.label AS label, COUNT(*) AS together \
                 FROM action_topics t \
                 WHERE t.action_id IN ({ids}) AND t.topic_key <> {topic} AND t.shown \
                 AND {NOT_HIDDEN} \
                 GROUP BY t.topic_key, t.label",
                ids = ids.join(", ")
            ))
            .load::<TogetherRow>(conn)?,
        );
    }
    Ok(Cooccurring {
        actions: teaching.len() as u64,
        topics: commonest_labels(rows.into_iter().map(|row| {
            (
                row.topic_key,
                row.label,
                u64::try_from(row.together).unwrap_or_default(),
            )
        })),
    })
}
