//! What the store holds, behind its one lock.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, NaiveDate, Utc};
use kenning_domain::{AuditEntry, Group, GroupId, RuleInForce, Subscription, User, UserId};
use kenning_ports::{StoredCredential, StoredLink, StoredRun, StoredSession};
use uuid::Uuid;

use crate::learned::Learned;

/// Everything the store holds; each port's implementation reads and
/// writes it under the lock.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) users: HashMap<UserId, User>,
    pub(crate) groups: HashMap<GroupId, Group>,
    pub(crate) credentials: Vec<StoredCredential>,
    pub(crate) expertise: Learned,
    /// The audit trail, oldest first.
    pub(crate) audit: Vec<AuditEntry>,
    /// The position the next entry gets.
    pub(crate) next_position: u64,
    /// The webhook subscriptions, oldest first.
    pub(crate) subscriptions: Vec<Subscription>,
    /// What waits for them and what was delivered, oldest first.
    pub(crate) outbox: Vec<OutboxRow>,
    /// The id the last queued delivery got.
    pub(crate) next_delivery: u64,
    /// Every sign-in link issued, used or not.
    pub(crate) links: Vec<IssuedLink>,
    /// The open sessions, by id.
    pub(crate) sessions: HashMap<Uuid, StoredSession>,
    /// The rules on learning, people's choices, the subjects asked.
    pub(crate) privacy: Privacy,
    /// Connectors' runs, in the order recorded.
    pub(crate) runs: Vec<StoredRun>,
}

/// A sign-in link, and when it was used.
#[derive(Debug, Clone)]
pub(crate) struct IssuedLink {
    pub(crate) link: StoredLink,
    pub(crate) used: Option<DateTime<Utc>>,
}

/// One change queued for one subscription.
#[derive(Debug, Clone)]
pub(crate) struct OutboxRow {
    pub(crate) id: u64,
    pub(crate) subscription: Uuid,
    /// The audit entry it tells.
    pub(crate) position: u64,
    pub(crate) resource: Uuid,
    pub(crate) attempts: u32,
    pub(crate) first_attempt: Option<DateTime<Utc>>,
    pub(crate) next_attempt: DateTime<Utc>,
    pub(crate) lease_until: Option<DateTime<Utc>>,
    pub(crate) delivered: Option<DateTime<Utc>>,
}

/// Users, groups, credentials, what uploads taught (actions, standings,
/// each user's action count), the audit trail, webhooks, sign-in links,
/// sessions, the rules on learning and connectors' runs, held in memory
/// behind one lock, implementing `UserStore`, `GroupStore`,
/// `CredentialStore`, `ExpertiseStore`, `AuditTrail`, `WebhookStore`,
/// `SessionStore`, `PrivacyStore` and `ConnectorRunStore`.
#[derive(Debug, Default)]
pub struct MemoryStore {
    state: Mutex<State>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-applied change:
        // every write is a single insert of a finished value.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The rules, the choices and the counts of subjects asked.
#[derive(Debug, Default)]
pub(crate) struct Privacy {
    pub(crate) rules: Vec<RuleInForce>,
    pub(crate) choices: HashMap<UserId, bool>,
    /// (day, subject key, holders) → (label, asks).
    pub(crate) asked: BTreeMap<(NaiveDate, String, u8), (String, u64)>,
}
