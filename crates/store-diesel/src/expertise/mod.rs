//! The expertise store: actions, their topics and the standings.
//!
//! One subject a module: the rows of its tables (`rows`); the best rows on
//! a topic, read by walking an index (`best_rows`); the write path of an
//! upload (`uploads`); the counts of people and actions (`counts`); what a
//! ranking reads (`evidence`); a person's own topics (`person`); the topics
//! across people (`topics`); the erasure of a person (`erasure`); and the
//! rebuild of the standings under new settings (`rebuild`). This module
//! implements the port by handing each call to one of them.
//!
//! Where it learns from an action, it calls the domain:
//! `StandingChanges::of` on upload, `LabelledStanding::learn` on a rebuild
//! and after the retention forgot actions.
//!
//! `record_all` (`uploads`) writes a group of uploads in one transaction,
//! on SQLite on a connection of its own with a larger page cache
//! (`Database::write_uploads`). It first locks each person's user row, in
//! key order, and reads the rules on learning. A taken alias inserts
//! nothing (`DuplicateAlias`); an unknown person is `UnknownUser`; an
//! action not learned from is kept with `taught` false. Otherwise it writes
//! the action's topics and the standings `StandingChanges::of` gives. The
//! counts ranking reads (`topic_learners`, `learner_totals`) are summed and
//! written last, in key order.
//!
//! `experts` reads (`evidence`), in one read transaction, each topic's best
//! standings by `rank_key` and its best actions by `relevance`, each from an
//! index in that order, so its cost does not grow with the people or
//! actions on a topic. A start under changed scoring settings rebuilds the
//! standings learner batch by learner batch (`rebuild`), while the server
//! serves.

mod best_rows;
mod counts;
mod declared;
mod erasure;
mod evidence;
mod person;
mod rebuild;
mod rows;
mod topics;
mod uploads;

use std::collections::HashMap;

use kenning_domain::{
    ActionTopic, Attribution, DeclaredTopic, Evidence, GroupId, Population, Scoring,
};
use kenning_domain::{StoredStanding, UserId};
use kenning_ports::{
    ActionRecord, Cooccurring, ExpertiseStore, NewAction, RecordError, Recorded, StoreError,
    TopicListChange,
};

use crate::database::Database;
use rows::StandingRow;

pub(crate) use best_rows::BestRows;
pub(crate) use counts::shard;
pub(crate) use erasure::erase_expertise;
pub(crate) use rebuild::relearn;
pub(crate) use uploads::learning_user;

impl ExpertiseStore for Database {
    fn record_all(
        &self,
        actions: &[NewAction],
        scoring: &Scoring,
    ) -> Result<Vec<Result<Recorded, RecordError>>, StoreError> {
        self.record_uploads(actions, scoring)
    }

    fn best_actions_on(
        &self,
        keys: &[String],
        per_key: u32,
        scoring: &Scoring,
    ) -> Result<Vec<ActionTopic>, StoreError> {
        self.best_actions(keys, per_key, scoring)
    }

    fn evidence(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
    ) -> Result<Evidence, StoreError> {
        self.evidence_of(keys, per_key, actions_per_key, scoring, None)
    }

    fn evidence_within(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
        group: GroupId,
    ) -> Result<Evidence, StoreError> {
        self.evidence_of(keys, per_key, actions_per_key, scoring, Some(group))
    }

    fn population(&self) -> Result<Population, StoreError> {
        self.read(counts::count_population)
    }

    fn people_on(&self, keys: &[String]) -> Result<HashMap<String, u64>, StoreError> {
        self.read(|conn| counts::count_people_on(conn, keys))
    }

    fn learned_keys(&self) -> Result<Vec<String>, StoreError> {
        self.read(topics::learned_keys)
    }

    fn labels_of(&self, keys: &[String]) -> Result<HashMap<String, String>, StoreError> {
        self.read(|conn| topics::labels_of(conn, keys))
    }

    fn cooccurring(&self, key: &str, sample: u32) -> Result<Cooccurring, StoreError> {
        // The actions and their topics from one state: an action erased
        // between the two reads would count without its topics.
        self.read_snapshot(|conn| topics::cooccurring(conn, key, sample))
    }

    fn standings_of(&self, user: UserId) -> Result<Vec<StoredStanding>, StoreError> {
        let rows = self.read(|conn| person::standings_of(conn, user))?;
        rows.into_iter().map(StandingRow::into_standing).collect()
    }

    fn actions_on(
        &self,
        user: UserId,
        key: &str,
        scoring: &Scoring,
        max: u32,
    ) -> Result<Vec<ActionRecord>, StoreError> {
        let rows = self.read(|conn| person::actions_on(conn, user, key, max))?;
        person::action_records(rows, scoring)
    }

    fn set_hidden(
        &self,
        user: UserId,
        keys: &[&str],
        hidden: bool,
        most: usize,
        by: &Attribution,
    ) -> Result<TopicListChange, StoreError> {
        self.write(|conn| person::set_hidden(conn, user, keys, hidden, most, by))
            .map_err(StoreError::from)
    }

    fn hidden_of(&self, user: UserId) -> Result<Vec<String>, StoreError> {
        self.read(|conn| person::hidden_of(conn, user))
    }

    fn set_declared(
        &self,
        user: UserId,
        key: &str,
        topic: Option<&DeclaredTopic>,
        most: usize,
        by: &Attribution,
    ) -> Result<TopicListChange, StoreError> {
        self.write(|conn| declared::set_declared(conn, user, key, topic, most, by))
            .map_err(StoreError::from)
    }

    fn declared_of(&self, user: UserId) -> Result<Vec<DeclaredTopic>, StoreError> {
        self.read(|conn| declared::declared_of(conn, user))
    }

    fn declared_on(
        &self,
        keys: &[String],
        per_key: u32,
    ) -> Result<Vec<(String, UserId, DeclaredTopic)>, StoreError> {
        declared::with_users(self.read(|conn| declared::declared_on(conn, keys, per_key))?)
    }

    fn rebuild_if_changed(&self, scoring: &Scoring) -> Result<bool, StoreError> {
        self.rebuild_standings(scoring)
    }
}
