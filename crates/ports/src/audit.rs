//! The audit trail as the stores keep it: every write of a user, a group
//! or a credential records its changes ([`kenning_domain::Change`]) with
//! its [`Attribution`](kenning_domain::Attribution) in the same
//! transaction; this port reads them back and prunes the old ones.

use chrono::{DateTime, Utc};
use kenning_domain::{AuditEntry, ChangeKind, ResourceKind};
use uuid::Uuid;

use crate::errors::StoreError;

/// Which entries an audit read asks for, newest first. Every filter given
/// must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// Only entries older than this position (the cursor of a next page).
    pub before: Option<u64>,
    /// Only changes of this resource.
    pub resource_id: Option<Uuid>,
    /// Only changes of this kind of resource.
    pub resource_kind: Option<ResourceKind>,
    /// Only changes made with this credential.
    pub credential_id: Option<Uuid>,
    /// Only changes of these kinds (any when empty).
    pub kinds: Vec<ChangeKind>,
    /// Only changes made at or after this moment.
    pub from: Option<DateTime<Utc>>,
    /// Only changes made before this moment.
    pub until: Option<DateTime<Utc>>,
}

impl AuditQuery {
    /// Whether `entry` is one the query asks for: the rule every store's
    /// read follows.
    pub fn matches(&self, entry: &AuditEntry) -> bool {
        let change = &entry.change;
        self.resource_id.is_none_or(|id| change.resource_id == id)
            && self
                .resource_kind
                .is_none_or(|kind| change.kind.resource() == kind)
            && self
                .credential_id
                .is_none_or(|id| entry.actor.credential_id == Some(id))
            && (self.kinds.is_empty() || self.kinds.contains(&change.kind))
            && self.from.is_none_or(|from| entry.at >= from)
            && self.until.is_none_or(|until| entry.at < until)
            && self.before.is_none_or(|before| entry.position < before)
    }
}

/// Where the audit trail is read and pruned.
pub trait AuditTrail: Send + Sync {
    /// The entries `query` asks for, newest (greatest position) first, at
    /// most `limit`.
    fn audit_entries(&self, query: &AuditQuery, limit: u32) -> Result<Vec<AuditEntry>, StoreError>;

    /// Deletes the oldest entries made before `before`, at most `max` of
    /// them in one step; how many it deleted.
    fn prune_audit(&self, before: DateTime<Utc>, max: u32) -> Result<u32, StoreError>;
}
