//! Forgetting some of a person's actions (the retention): the actions go,
//! their people's standings are learned again from the actions left, and
//! the counts follow, all in the caller's transaction.
//!
//! The people's rows are locked first, so nobody learns for them
//! meanwhile (PostgreSQL; SQLite writes one transaction at a time). The
//! standings are learned again by [`crate::expertise::relearn`], the
//! rebuild's own code, which applies the domain's `LabelledStanding::learn`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::Scoring;

use crate::connection::DbConnection;
use crate::expertise::{relearn, shard};
use crate::schema::{
    action_topics, actions, learner_totals, learners, standings, topic_learners, users,
};

/// Ids looked up or deleted by one statement: far below the
/// bound-parameter limits.
const IDS_PER_STATEMENT: usize = 1_000;

/// The (user, topic) pairs the users `ids` hold.
fn held(conn: &mut DbConnection, ids: &[String]) -> QueryResult<BTreeSet<(String, String)>> {
    let mut pairs = BTreeSet::new();
    for chunk in ids.chunks(IDS_PER_STATEMENT) {
        let rows: Vec<(String, String)> = standings::table
            .filter(standings::user_id.eq_any(chunk))
            .select((standings::user_id, standings::topic_key))
            .load(conn)?;
        pairs.extend(rows);
    }
    Ok(pairs)
}

/// Locks the rows of `people` (PostgreSQL; SQLite writes one transaction
/// at a time) in id order, as uploads and rebuilds lock them: nobody
/// learns for them meanwhile.
fn lock(conn: &mut DbConnection, people: &[String]) -> QueryResult<()> {
    if let DbConnection::Postgres(pg) = conn {
        users::table
            .filter(users::id.eq_any(people))
            .order(users::id)
            .select(users::id)
            .for_update()
            .load::<String>(pg)?;
    }
    Ok(())
}

/// Deletes the actions `ids` and their topics.
fn delete_actions(conn: &mut DbConnection, ids: &[&String]) -> QueryResult<()> {
    for chunk in ids.chunks(IDS_PER_STATEMENT) {
        diesel::delete(action_topics::table.filter(action_topics::action_id.eq_any(chunk)))
            .execute(conn)?;
        diesel::delete(actions::table.filter(actions::id.eq_any(chunk))).execute(conn)?;
    }
    Ok(())
}

/// Counts each topic one person fewer for every (user, topic) pair of
/// `lost`, and forgets the count of a topic nobody holds any more.
fn uncount_topics<'a>(
    conn: &mut DbConnection,
    lost: impl Iterator<Item = &'a (String, String)>,
) -> QueryResult<()> {
    let mut by_topic: BTreeMap<&str, i64> = BTreeMap::new();
    for (_, key) in lost {
        *by_topic.entry(key.as_str()).or_default() += 1;
    }
    for (key, people) in &by_topic {
        let counted = || topic_learners::table.filter(topic_learners::topic_key.eq(*key));
        diesel::update(counted())
            .set(topic_learners::people.eq(topic_learners::people - people))
            .execute(conn)?;
        diesel::delete(counted().filter(topic_learners::people.le(0))).execute(conn)?;
    }
    Ok(())
}

/// Counts again the actions of each of `people` that taught, who were
/// counted `counted` before: a learner left with none is forgotten, and
/// the totals follow.
fn recount_learners(
    conn: &mut DbConnection,
    people: &[String],
    counted: &HashMap<String, i32>,
) -> QueryResult<()> {
    for person in people {
        let Some(old) = counted.get(person).copied() else {
            continue;
        };
        let left: i64 = actions::table
            .filter(actions::user_id.eq(person))
            .filter(actions::taught.eq(true))
            .count()
            .get_result(conn)?;
        let (gone, actions_gone) = if left == 0 {
            diesel::delete(learners::table.find(person)).execute(conn)?;
            (1, i64::from(old))
        } else {
            diesel::update(learners::table.find(person))
                .set(learners::actions.eq(i32::try_from(left).unwrap_or(i32::MAX)))
                .execute(conn)?;
            (0, i64::from(old) - left)
        };
        diesel::update(learner_totals::table.find(shard(person)))
            .set((
                learner_totals::people.eq(learner_totals::people - gone),
                learner_totals::actions.eq(learner_totals::actions - actions_gone),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Expires at most `max` actions dated before `before`, the oldest first,
/// and what they taught; how many it expired.
pub(crate) fn expire_before(
    conn: &mut DbConnection,
    before: NaiveDateTime,
    max: u32,
    scoring: &Scoring,
) -> QueryResult<u32> {
    let doomed: Vec<(String, String)> = actions::table
        .filter(actions::action_date.lt(before))
        .order((actions::action_date, actions::id))
        .limit(i64::from(max))
        .select((actions::id, actions::user_id))
        .load(conn)?;
    if doomed.is_empty() {
        return Ok(0);
    }
    let people: Vec<String> = doomed
        .iter()
        .map(|(_, user)| user.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    lock(conn, &people)?;
    let before_pairs = held(conn, &people)?;
    let counted: HashMap<String, i32> = learners::table
        .filter(learners::user_id.eq_any(&people))
        .select((learners::user_id, learners::actions))
        .load::<(String, i32)>(conn)?
        .into_iter()
        .collect();
    let ids: Vec<&String> = doomed.iter().map(|(id, _)| id).collect();
    delete_actions(conn, &ids)?;
    relearn(conn, &people, scoring)?;
    let after_pairs = held(conn, &people)?;
    uncount_topics(conn, before_pairs.difference(&after_pairs))?;
    recount_learners(conn, &people, &counted)?;
    Ok(u32::try_from(doomed.len()).unwrap_or(u32::MAX))
}
