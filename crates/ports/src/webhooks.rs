//! Webhooks: the subscriptions, the outbox every change is queued in for
//! them (in the transaction that made it), and the sender that posts one
//! delivery.

use chrono::{DateTime, Utc};
use kenning_domain::{AuditEntry, Subscription, SubscriptionState};
use uuid::Uuid;

use crate::errors::StoreError;

/// One change waiting in the outbox for one subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Its id in the outbox.
    pub id: u64,
    /// Where it goes, and the secret it is signed with.
    pub subscription: Subscription,
    /// What it tells.
    pub entry: AuditEntry,
    /// How many attempts failed so far.
    pub attempts: u32,
    /// When it was first attempted, if it was.
    pub first_attempt: Option<DateTime<Utc>>,
}

/// How many deliveries of a subscription wait and were delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxCounts {
    /// The subscription.
    pub subscription: Uuid,
    /// Not delivered yet.
    pub pending: u64,
    /// Delivered and still kept.
    pub delivered: u64,
    /// Of the pending ones, those whose last attempt failed.
    pub failed: u64,
}

/// Where subscriptions and the outbox live.
///
/// Every write of the audit trail ([`crate::AuditTrail`]) also queues each
/// change for every subscription that wants its kind, in the same atomic
/// step, so a committed change is delivered (at least once) and a change
/// rolled back never is.
pub trait WebhookStore: Send + Sync {
    /// Stores a new subscription.
    fn insert_subscription(&self, subscription: &Subscription) -> Result<(), StoreError>;

    /// Every subscription, oldest first.
    fn subscriptions(&self) -> Result<Vec<Subscription>, StoreError>;

    /// Deletes the subscription and its deliveries; false if there is none.
    fn delete_subscription(&self, id: Uuid) -> Result<bool, StoreError>;

    /// Sets the subscription's state; made ACTIVE, its waiting deliveries
    /// are due at once. False if there is no such subscription.
    fn set_subscription_state(
        &self,
        id: Uuid,
        state: SubscriptionState,
    ) -> Result<bool, StoreError>;

    /// Leases at most `max` deliveries due at `now` until `lease_until`:
    /// of ACTIVE subscriptions only, and for each subscription and
    /// resource only its oldest waiting delivery (so a resource's changes
    /// go out in their order). A leased delivery is leased by nobody else
    /// before `lease_until`, whichever process asks.
    fn lease_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        max: u32,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// Marks the delivery delivered at `at`.
    fn delivered(&self, id: u64, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Records a failed attempt: `attempts` failed so far, the first at
    /// `first_attempt`; the delivery is due again at `next_attempt`.
    fn retry_delivery(
        &self,
        id: u64,
        attempts: u32,
        first_attempt: DateTime<Utc>,
        next_attempt: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// The deliveries waiting and delivered, per subscription.
    fn outbox_counts(&self) -> Result<Vec<OutboxCounts>, StoreError>;

    /// Deletes the oldest delivered deliveries beyond the newest
    /// `keep_delivered`; how many it deleted. Waiting ones are kept.
    fn prune_outbox(&self, keep_delivered: u32) -> Result<u64, StoreError>;
}

/// What became of one attempt to deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// The receiver took it (2xx).
    Delivered,
    /// It failed in a way worth trying again (5xx, 408, 429, a timeout, no
    /// connection); why.
    Retry(String),
    /// The receiver refused it (another 4xx, or a redirect, which is not
    /// followed); why. Tried again too, as the receiver may be fixed.
    Rejected(String),
    /// The network policy refuses the URL or its address; why. Not tried
    /// again until the subscription is resumed.
    Blocked(String),
}

/// Posts deliveries: signed CloudEvents, only where the network policy
/// allows.
pub trait WebhookSender: Send + Sync {
    /// Why `url` may not be subscribed to, if it may not (its scheme, its
    /// form, or an address the network policy refuses), as a problem that
    /// completes a sentence starting with the field's name (`must use
    /// https`).
    fn check_url(&self, url: &str) -> Result<(), &'static str>;

    /// Posts `entry` to the subscription's URL, signed with its secret.
    fn send(
        &self,
        subscription: &Subscription,
        entry: &AuditEntry,
        now: DateTime<Utc>,
    ) -> SendOutcome;
}
