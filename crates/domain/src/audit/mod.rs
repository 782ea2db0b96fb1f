//! The audit trail's rules: who made a change ([`Actor`]) through which
//! door ([`Channel`]), and what a change of a user, a group or a
//! credential was ([`Change`]). A change is told by the names of the
//! fields it touched, never their values, so nothing personal outlives an
//! anonymization in the trail.
//!
//! Who made a change is in `actor`, what kinds of change there are and the
//! changes named by their kind alone in `change`, and the changes found by
//! comparing a user or a group before and after in `diff`. This module
//! holds the trail as it is kept and read back.

mod actor;
mod change;
mod diff;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::validation::{FieldViolation, Rule};

pub use actor::{Actor, Attribution, Channel};
pub use change::{
    credential_issued, credential_revoked, declared_topics_changed, group_deleted,
    group_members_changed, hidden_topics_changed, user_exported, user_forgotten,
    user_learning_changed, user_signed_in, user_signed_out, Change, ChangeKind, ResourceKind,
    UnknownChangeKind,
};
pub use diff::{group_changed, group_created, user_changes, user_created};

/// The position an audit cursor (`before`) names, as the trail wrote
/// it; anything else is a violation on `before`.
pub fn parse_audit_cursor(raw: &str) -> Result<u64, FieldViolation> {
    raw.parse::<u64>()
        .ok()
        .filter(|position| *position >= 1)
        .ok_or_else(|| FieldViolation::new("before", Rule::InvalidCursor))
}

/// A change as the audit trail keeps it: when, by whom, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its place in the trail: a later entry has a greater one.
    pub position: u64,
    /// When the change was made.
    pub at: DateTime<Utc>,
    /// Who made it.
    pub actor: Actor,
    /// What changed.
    pub change: Change,
}

/// The resource an entry names once the person it was about is no longer
/// named ([`AuditEntry::anonymized`]): the nil UUID.
pub const NOBODY: Uuid = Uuid::nil();

impl AuditEntry {
    /// Whether the entry records the own use of Kenning of the person
    /// `user` ([`ChangeKind::records_personal_use`]), which goes with
    /// them when they are anonymized or forgotten.
    pub fn records_use_by(&self, user: Uuid) -> bool {
        self.change.kind.records_personal_use() && self.change.resource_id == user
    }

    /// The entry naming nobody: the resource [`NOBODY`] and the actor
    /// [`Actor::anonymous`]. When, what and how stay, so the trail still
    /// counts sign-ins, no longer whose.
    pub fn anonymized(self) -> Self {
        Self {
            actor: Actor::anonymous(),
            change: Change {
                resource_id: NOBODY,
                ..self.change
            },
            ..self
        }
    }
}

#[cfg(test)]
mod tests;
