//! What a ranking reads of the store: the best standings and actions on
//! each topic asked, who knows each topic, the population and who hid
//! which topic, all of one state of the database.

use diesel::prelude::*;
use kenning_domain::{ActionTopic, Evidence, GroupId, Scoring};
use kenning_ports::StoreError;

use super::best_rows::BestRows;
use super::counts::{count_people_on, count_population};
use super::rows::{action_topics_of, parse_user, ActionTopicRow, StandingRow, KEYS_PER_READ};
use crate::connection::DbConnection;
use crate::database::Database;
use crate::prepared::generic_plans;
use crate::schema::hidden_topics;

impl Database {
    /// [`ExpertiseStore::best_actions_on`](kenning_ports::ExpertiseStore::best_actions_on):
    /// the actions in which each of `keys` is most relevant, at most
    /// `per_key` a key.
    pub(super) fn best_actions(
        &self,
        keys: &[String],
        per_key: u32,
        scoring: &Scoring,
    ) -> Result<Vec<ActionTopic>, StoreError> {
        let rows =
            self.read(|conn| BestRows::Actions.read::<ActionTopicRow>(conn, keys, per_key, None))?;
        action_topics_of(rows, scoring)
    }

    /// [`ExpertiseStore::evidence`](kenning_ports::ExpertiseStore::evidence),
    /// of the members of `within` alone when given: every read in one read transaction ([`generic_plans`]), so
    /// the standings, the counts, the actions and the hidden topics are of
    /// one state of the database, whatever uploads commit meanwhile (on
    /// PostgreSQL with the plans made once without values); each key's
    /// rows bounded by their own `LIMIT`.
    pub(super) fn evidence_of(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
        within: Option<GroupId>,
    ) -> Result<Evidence, StoreError> {
        let reads = |conn: &mut DbConnection| {
            Ok((
                BestRows::Standings.read::<StandingRow>(conn, keys, per_key, within)?,
                count_people_on(conn, keys)?,
                count_population(conn)?,
                BestRows::Actions.read::<ActionTopicRow>(conn, keys, actions_per_key, within)?,
                hidden_on(conn, keys)?,
            ))
        };
        let (rows, knowing, population, actions, hidden) =
            self.read(|conn| generic_plans(conn, reads))?;
        let standings = rows
            .into_iter()
            .map(StandingRow::into_standing)
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Evidence {
            standings,
            knowing,
            population,
            actions: action_topics_of(actions, scoring)?,
            hidden: hidden
                .into_iter()
                .map(|(user, key)| Ok((parse_user(&user)?, key)))
                .collect::<Result<_, StoreError>>()?,
            declared: std::collections::HashSet::new(),
        })
    }
}

/// Who hid which of `keys`: each (user id, key) pair.
fn hidden_on(conn: &mut DbConnection, keys: &[String]) -> QueryResult<Vec<(String, String)>> {
    let mut rows = Vec::new();
    for keys in keys.chunks(KEYS_PER_READ) {
        rows.extend(
            hidden_topics::table
                .filter(hidden_topics::topic_key.eq_any(keys))
                .select((hidden_topics::user_id, hidden_topics::topic_key))
                .load::<(String, String)>(conn)?,
        );
    }
    Ok(rows)
}
