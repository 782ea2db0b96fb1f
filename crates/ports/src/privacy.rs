//! Where the privacy rules, a person's choice of being learned about, and
//! the counts of what people ask that nobody knows are kept; and the
//! reads and erasures a person's rights over their data need.

use chrono::{DateTime, NaiveDate, Utc};
use kenning_domain::{
    AskedCount, AskedSubject, Attribution, Learning, LearningRule, LearningRules, Scoring, UserId,
};
use uuid::Uuid;

use crate::errors::StoreError;

/// An action as a person's data lists it: everything stored of it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAction {
    /// The action's id.
    pub id: Uuid,
    /// The kind of entity acted on.
    pub entity_type: String,
    /// What the person did.
    pub action_type: String,
    /// When they did it.
    pub action_date: DateTime<Utc>,
    /// The connector's id of the action, if it gave one.
    pub alias: Option<String>,
    /// When the upload was accepted.
    pub received: DateTime<Utc>,
    /// The keys of the topics it taught, in key order (none when it was
    /// accepted while the person was not learned about, or its types were
    /// excluded).
    pub topics: Vec<String>,
}

/// Where the privacy rules and choices live.
///
/// Contract (checked by the contract suite): every write is atomic with its
/// audit entry; a person who is not learned about
/// ([`LearningRules::learns`] of their choice and groups) is not ranked by
/// [`crate::ExpertiseStore::evidence`], and an upload for them, or of an
/// excluded type, is stored without teaching anything (its alias spent);
/// both hold from the moment the write that changed a rule, a choice or a
/// group's members returns.
pub trait PrivacyStore: Send + Sync {
    /// The rules in force.
    fn learning_rules(&self) -> Result<LearningRules, StoreError>;

    /// Sets `rule` (`set`) or lifts it, recorded under `by`; a rule that
    /// [`LearningRule::is_single`] replaces the other of its kind. Whether
    /// that changed anything; nothing is recorded when it did not.
    fn set_learning_rule(
        &self,
        rule: &LearningRule,
        set: bool,
        by: &Attribution,
    ) -> Result<bool, StoreError>;

    /// The learning of the user `user`; `None` for no user, or a deleted
    /// one.
    fn learning_of(&self, user: UserId) -> Result<Option<Learning>, StoreError>;

    /// Sets the choice of the user `user` (`None`: back to the
    /// organisation's default), recorded under `by` when it changed; her
    /// learning after it, `None` for no user or a deleted one.
    fn set_learning_choice(
        &self,
        user: UserId,
        choice: Option<bool>,
        by: &Attribution,
    ) -> Result<Option<Learning>, StoreError>;

    /// Erases the actions and the expertise of `user` (the account stays),
    /// and makes her sign-ins and sign-outs in the audit trail name nobody
    /// (as anonymizing her does, [`Erasure`](kenning_domain::Erasure)),
    /// recorded under `by`; whether the user exists (and is not deleted).
    fn forget(&self, user: UserId, by: &Attribution) -> Result<bool, StoreError>;

    /// Expires at most `max` actions whose date is before `before` (the
    /// retention), the oldest first, with what they taught (the standings
    /// of their people are learned again from the actions left, under
    /// `scoring`), in one atomic step; how many it expired.
    fn expire_before(
        &self,
        before: DateTime<Utc>,
        max: u32,
        scoring: &Scoring,
    ) -> Result<u32, StoreError>;

    /// Every action stored of `user`, oldest first.
    fn actions_of(&self, user: UserId) -> Result<Vec<StoredAction>, StoreError>;

    /// Records in the audit trail that what is kept about `user` was
    /// handed out under `by`.
    fn record_export(&self, user: UserId, by: &Attribution) -> Result<(), StoreError>;

    /// Adds `asks` to the count of `subject` asked on `day`.
    fn count_asked(
        &self,
        day: NaiveDate,
        subject: &AskedSubject,
        asks: u64,
    ) -> Result<(), StoreError>;

    /// The subjects asked on `since` or later, each once per number of
    /// holders, the most asked first, at most `max`.
    fn asked_since(&self, since: NaiveDate, max: u32) -> Result<Vec<AskedCount>, StoreError>;

    /// Deletes the counts of the days before `before`; how many it deleted.
    fn prune_asked(&self, before: NaiveDate) -> Result<u64, StoreError>;
}
