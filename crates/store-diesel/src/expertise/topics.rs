//! The topics across people: those anyone learned, their labels, and the
//! topics met beside one in the actions that teach it.

use std::collections::HashMap;

use diesel::prelude::*;
use kenning_domain::commonest_labels;
use kenning_ports::Cooccurring;

use super::rows::KEYS_PER_READ;
use crate::connection::DbConnection;
use crate::schema::{action_topics, actions, standings, topic_learners};

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

/// The shown topics taught together with `key` by the newest `sample`
/// actions that taught it, and the number of actions read.
pub(super) fn cooccurring(
    conn: &mut DbConnection,
    key: &str,
    sample: u32,
) -> QueryResult<Cooccurring> {
    let teaching: Vec<String> = action_topics::table
        .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
        .filter(action_topics::topic_key.eq(key))
        .order((actions::action_date.desc(), actions::id.asc()))
        .limit(i64::from(sample))
        .select(actions::id)
        .load(conn)?;
    let rows: Vec<(String, String, i64)> = action_topics::table
        .filter(action_topics::action_id.eq_any(&teaching))
        .filter(action_topics::topic_key.ne(key))
        .filter(action_topics::shown.eq(true))
        .group_by((action_topics::topic_key, action_topics::label))
        .select((
            action_topics::topic_key,
            action_topics::label,
            diesel::dsl::count_star(),
        ))
        .load(conn)?;
    Ok(Cooccurring {
        actions: teaching.len() as u64,
        topics: commonest_labels(
            rows.into_iter()
                .map(|(key, label, n)| (key, label, u64::try_from(n).unwrap_or_default())),
        ),
    })
}
