//! The erasure of everything learned about a person, with the person
//! taken out of the counts.

use diesel::prelude::*;

use super::counts::shard;
use super::rows::KEYS_PER_READ;
use crate::connection::DbConnection;
use crate::schema::{
    action_topics, actions, declared_topics, hidden_topics, learner_totals, learners, standings,
    topic_learners,
};

/// Removes everything learned about a user, and the user from the counts;
/// used when it is anonymized, inside the transaction that anonymizes it.
pub(crate) fn erase_expertise(conn: &mut DbConnection, user_id: &str) -> QueryResult<()> {
    let mut known: Vec<String> = standings::table
        .filter(standings::user_id.eq(user_id))
        .select(standings::topic_key)
        .load(conn)?;
    known.sort_unstable();
    for keys in known.chunks(KEYS_PER_READ) {
        if let DbConnection::Postgres(pg) = conn {
            // Row locks in key order, as uploads take them, so that an
            // erasure and an upload never wait for each other in a cycle.
            topic_learners::table
                .filter(topic_learners::topic_key.eq_any(keys))
                .order(topic_learners::topic_key)
                .select(topic_learners::topic_key)
                .for_update()
                .load::<String>(pg)?;
        }
        let counted = || topic_learners::table.filter(topic_learners::topic_key.eq_any(keys));
        diesel::update(counted())
            .set(topic_learners::people.eq(topic_learners::people - 1))
            .execute(conn)?;
        // A topic nobody knows any more leaves no trace.
        diesel::delete(counted().filter(topic_learners::people.le(0))).execute(conn)?;
    }
    let learned: Option<i32> = learners::table
        .find(user_id)
        .select(learners::actions)
        .first(conn)
        .optional()?;
    if let Some(actions) = learned {
        diesel::update(learner_totals::table.find(shard(user_id)))
            .set((
                learner_totals::people.eq(learner_totals::people - 1),
                learner_totals::actions.eq(learner_totals::actions - i64::from(actions)),
            ))
            .execute(conn)?;
    }
    diesel::delete(action_topics::table.filter(action_topics::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(learners::table.filter(learners::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(standings::table.filter(standings::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(hidden_topics::table.filter(hidden_topics::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(declared_topics::table.filter(declared_topics::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(actions::table.filter(actions::user_id.eq(user_id))).execute(conn)?;
    Ok(())
}
