//! Where actions and the expertise learned from them are kept.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use kenning_domain::{
    ActionTopic, Attribution, DeclaredTopic, EntityTopic, Evidence, GroupId, Population, Scoring,
    StoredStanding, UserId,
};
use uuid::Uuid;

use crate::errors::StoreError;

/// An accepted action, ready to be stored.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAction {
    /// A fresh id for the action.
    pub id: Uuid,
    /// The folded e-mail key of the acting user.
    pub user_email_key: String,
    /// The kind of entity acted on.
    pub entity_type: String,
    /// What the user did.
    pub action_type: String,
    /// When the user did it.
    pub action_date: DateTime<Utc>,
    /// The connector's id of the action; at most one stored action has it.
    pub alias: Option<String>,
    /// When the upload was accepted.
    pub received: DateTime<Utc>,
    /// The entity's topics with their relevance per descriptor.
    pub topics: Vec<EntityTopic>,
}

/// An action as listed among the reasons for a topic.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionRecord {
    /// The action's id.
    pub id: Uuid,
    /// The kind of entity acted on.
    pub entity_type: String,
    /// What the user did.
    pub action_type: String,
    /// When the user did it.
    pub action_date: DateTime<Utc>,
    /// The connector's id of the action, if it gave one.
    pub alias: Option<String>,
    /// The topic's relevance in the entity, under the current scoring.
    pub relevance: f64,
}

/// An action stored: for whom, and whether it taught anything. An action
/// of a person who is not learned about, or of a type the organisation
/// excluded from learning, is stored (its alias spent) but teaches nothing
/// ([`crate::PrivacyStore`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// The user the action was recorded for.
    pub user: UserId,
    /// Whether it taught its topics.
    pub taught: bool,
}

/// Why an action was not stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// No ACTIVE or DEACTIVATED user has the e-mail key.
    #[error("no active or deactivated user has this e-mail address")]
    UnknownUser,
    /// An action with the alias is stored already: the action, and when
    /// it was received.
    #[error("the action_alias was accepted before, at {received}, as action {action}")]
    DuplicateAlias {
        /// The stored action's id.
        action: Uuid,
        /// When it was received.
        received: DateTime<Utc>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where actions and expertise live.
///
/// Contract (checked by the contract suite): `record` is atomic (the
/// action, its topics and the standings all, or nothing); an alias is
/// accepted once, also when uploads race; a user's actions and standings
/// disappear when the user is anonymized; the counts of `people_on` and
/// `population` are those of the standings and actions stored, after every
/// upload, erasure and rebuild.
pub trait ExpertiseStore: Send + Sync {
    /// Stores `action` for the ACTIVE or DEACTIVATED user with its e-mail
    /// key and, when the user is learned about and its types are not
    /// excluded, adds each topic's contribution (weight × relevance) to the
    /// user's standings; returns the user and whether it taught. The action
    /// is durable when this returns `Ok`.
    fn record(&self, action: &NewAction, scoring: &Scoring) -> Result<Recorded, RecordError> {
        self.record_all(std::slice::from_ref(action), scoring)?
            .pop()
            .unwrap_or_else(|| {
                Err(StoreError::backend_message("recording one action answered nothing").into())
            })
    }

    /// Stores each of `actions` as [`record`](ExpertiseStore::record)
    /// would, one after another in their order, and returns one answer per
    /// action in that order: an action refused (its user unknown, its
    /// alias taken, also by an earlier action of the same call) leaves
    /// nothing behind and does not stop the others. The accepted ones are
    /// written together (one transaction, one sync to disk) and are all
    /// durable when this returns. `Err` when the store failed: then none
    /// of them was stored.
    fn record_all(
        &self,
        actions: &[NewAction],
        scoring: &Scoring,
    ) -> Result<Vec<Result<Recorded, RecordError>>, StoreError>;

    /// Everything ranking `keys` reads: the best `per_key` standings on
    /// each of `keys` (by score now, as
    /// [`kenning_domain::Standing::rank_key`] orders them: time without
    /// the bound ranking puts on it, so on a key more than `per_key` users
    /// hold an early author behind `per_key` later ones is not read) of
    /// users who are ACTIVE and not hidden, how many users have a standing
    /// on each key, the population,
    /// the `actions_per_key` actions in which each key is most relevant
    /// ([`ExpertiseStore::best_actions_on`] under `scoring`), and who hid
    /// which of `keys` ([`ExpertiseStore::set_hidden`]; ranking drops
    /// those). Its cost does not grow with the number of people who know a
    /// topic, nor with the number of people who learned anything.
    fn evidence(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
    ) -> Result<Evidence, StoreError>;

    /// [`evidence`](ExpertiseStore::evidence) of the members of `group`
    /// alone: their best standings and actions (the counts of people per
    /// topic and the population stay the whole organisation's). Its cost
    /// grows with neither the people outside the group nor the number of
    /// people who know a topic.
    fn evidence_within(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
        group: GroupId,
    ) -> Result<Evidence, StoreError>;

    /// The `per_key` actions of users who are ACTIVE and not hidden in
    /// which each of `keys` is most relevant (by relevance under the
    /// settings the store was last built with, `rebuild_if_changed`), each
    /// with the topic's relevance in it under `scoring`. Its cost does not
    /// grow with the number of actions that taught a topic.
    fn best_actions_on(
        &self,
        keys: &[String],
        per_key: u32,
        scoring: &Scoring,
    ) -> Result<Vec<ActionTopic>, StoreError>;

    /// How many users learned anything, and their number of actions; a
    /// count kept up to date by every write, not a scan.
    fn population(&self) -> Result<Population, StoreError>;

    /// How many users have a standing on each of `keys` (keys nobody has
    /// are left out); counts kept up to date by every write, not a scan.
    fn people_on(&self, keys: &[String]) -> Result<HashMap<String, u64>, StoreError>;

    /// The key of every topic somebody has a standing on, in key order: a
    /// read of the counted topics, not of the standings.
    fn learned_keys(&self) -> Result<Vec<String>, StoreError>;

    /// A label of each of `keys` that somebody has a standing on (keys
    /// nobody has are left out): the text a topic is read as when its
    /// meaning is sought.
    fn labels_of(&self, keys: &[String]) -> Result<HashMap<String, String>, StoreError>;

    /// The shown topics taught together with `key` by the newest `sample`
    /// actions that taught it, each other topic's key, a label, and in how
    /// many of those actions it appeared; and the number of actions read.
    /// Only what `experts` would rank counts: the actions of users who are
    /// ACTIVE, not hidden and learned about
    /// ([`kenning_domain::User::ranks`]) and did not hide `key`, and in
    /// each, the topics its user did not hide
    /// ([`ExpertiseStore::set_hidden`]).
    fn cooccurring(&self, key: &str, sample: u32) -> Result<Cooccurring, StoreError>;

    /// Every standing of `user`.
    fn standings_of(&self, user: UserId) -> Result<Vec<StoredStanding>, StoreError>;

    /// Up to `max` actions of `user` that taught `key`, newest first.
    fn actions_on(
        &self,
        user: UserId,
        key: &str,
        scoring: &Scoring,
        max: u32,
    ) -> Result<Vec<ActionRecord>, StoreError>;

    /// Recomputes every standing from the stored actions when they were
    /// built under other settings than `scoring`; returns whether it did.
    fn rebuild_if_changed(&self, scoring: &Scoring) -> Result<bool, StoreError>;

    /// Hides the topics `keys` from `user`'s profile and ranking
    /// (`hidden`) or shows them again, all in one atomic step, and when
    /// that changed anything records it once in the audit trail under
    /// `by` ([`kenning_domain::hidden_topics_changed`]) in the same step. A
    /// user hides at most `most` topics: hiding keys that would pass it
    /// changes nothing ([`TopicListChange::Full`]), also when several hide
    /// at once; showing is never refused. Uploads go on teaching a hidden
    /// topic, but it stays hidden until shown again; erasing the user
    /// forgets it.
    fn set_hidden(
        &self,
        user: UserId,
        keys: &[&str],
        hidden: bool,
        most: usize,
        by: &Attribution,
    ) -> Result<TopicListChange, StoreError>;

    /// The keys `user` hid, in key order.
    fn hidden_of(&self, user: UserId) -> Result<Vec<String>, StoreError>;

    /// Records that `user` says they know `topic` (`Some`), or no longer
    /// says they know the topic `key` (`None`), and when that changed
    /// anything records it in the audit trail under `by`
    /// ([`kenning_domain::declared_topics_changed`]) in the same atomic
    /// step. A user says they know at most `most` topics: one more then
    /// changes nothing ([`TopicListChange::Full`]), also when several
    /// declare at once; withdrawing is never refused. Saying again what
    /// they said changes nothing. Erasing the user forgets their
    /// declarations.
    fn set_declared(
        &self,
        user: UserId,
        key: &str,
        topic: Option<&DeclaredTopic>,
        most: usize,
        by: &Attribution,
    ) -> Result<TopicListChange, StoreError>;

    /// The topics `user` says they know, in key order.
    fn declared_of(&self, user: UserId) -> Result<Vec<DeclaredTopic>, StoreError>;

    /// The declarations that speak of each of `keys`: whose key is the
    /// key, or holds it as whole words ("cobol" and "batch job" speak of
    /// "cobol batch job"); each with the key asked and whose it is, at
    /// most `per_key` a key (the newest), of every user, ranked or not.
    fn declared_on(
        &self,
        keys: &[String],
        per_key: u32,
    ) -> Result<Vec<(String, UserId, DeclaredTopic)>, StoreError>;
}

/// What [`ExpertiseStore::set_hidden`] or
/// [`ExpertiseStore::set_declared`] did to a person's list of topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicListChange {
    /// The topic is on the list now, or off it.
    Changed,
    /// It was on the list, or off it, already: nothing was written.
    Unchanged,
    /// Not added: the list is as long as it may be already.
    Full,
}

/// The topics that appeared together with one topic.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cooccurring {
    /// The actions read.
    pub actions: u64,
    /// (key, label, actions it appeared in), in no particular order.
    pub topics: Vec<(String, String, u64)>,
}
