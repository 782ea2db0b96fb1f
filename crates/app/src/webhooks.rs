//! The webhook use cases: subscribing other systems to changes, and
//! delivering what the outbox holds for them, at least once, in order per
//! resource, retried with exponential backoff and jitter until the
//! subscription is given up on.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use kenning_domain::{
    gives_up, parse_subscription, retry_delay, FieldViolation, Rule, Subscription,
    SubscriptionInput, SubscriptionState, ValidationErrors,
};
use kenning_ports::{Clock, OutboxCounts, SendOutcome, WebhookSender, WebhookStore};
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::error::{Missing, ServiceError};

/// How deliveries are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliverySettings {
    /// How long a failing delivery is retried before its subscription is
    /// marked failing.
    pub retry_for: TimeDelta,
    /// How long a process holds the deliveries it took before another may
    /// take them (longer than a delivery's timeout).
    pub lease: TimeDelta,
    /// How many deliveries one round takes.
    pub batch: u32,
    /// How many delivered deliveries the outbox keeps (the oldest go
    /// first).
    pub keep_delivered: u32,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        Self {
            retry_for: TimeDelta::hours(24),
            lease: TimeDelta::seconds(60),
            batch: 100,
            keep_delivered: 10_000,
        }
    }
}

impl DeliverySettings {
    /// The settings, when the lease outlasts `timeout`, the longest a
    /// delivery waits for its receiver: a shorter lease lets another
    /// instance take a delivery still under way, and send it twice.
    pub fn outlasting(self, timeout: std::time::Duration) -> Result<Self, LeaseTooShort> {
        let lease = self.lease.to_std().unwrap_or_default();
        if lease <= timeout {
            return Err(LeaseTooShort { lease, timeout });
        }
        Ok(self)
    }
}

/// A lease no longer than a delivery's timeout
/// ([`DeliverySettings::outlasting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the webhook lease ({} s) must be longer than the delivery timeout ({} s), \
     or another instance takes a delivery still under way",
    lease.as_secs(),
    timeout.as_secs()
)]
pub struct LeaseTooShort {
    /// The lease.
    pub lease: std::time::Duration,
    /// The delivery timeout.
    pub timeout: std::time::Duration,
}

/// What one round of [`WebhookService::deliver_due`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Round {
    /// Deliveries the receivers took.
    pub delivered: usize,
    /// Deliveries that failed and wait for another attempt.
    pub failed: usize,
    /// Subscriptions given up on in this round.
    pub given_up: usize,
}

/// Manages subscriptions and delivers their events.
#[derive(Clone)]
pub struct WebhookService {
    store: Arc<dyn WebhookStore>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    settings: DeliverySettings,
    /// Who calls: each use case asks whether they may.
    caller: Caller,
}

impl std::fmt::Debug for WebhookService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookService")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// A new subscription's secret: 256 random bits, hex, with a prefix that
/// says what it is.
fn new_secret() -> Result<String, ServiceError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServiceError::Internal(format!("no randomness: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("whsec_{hex}"))
}

/// A number from 0 to 1 for the jitter of a retry.
fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    match getrandom::fill(&mut bytes) {
        Ok(()) => f64::from(u32::from_le_bytes(bytes)) / f64::from(u32::MAX),
        // Without randomness the waits are merely not spread.
        Err(_) => 1.0,
    }
}

impl WebhookService {
    /// The service over `store`, posting through `sender`; it serves the
    /// operator until [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(
        store: Arc<dyn WebhookStore>,
        sender: Arc<dyn WebhookSender>,
        clock: Arc<dyn Clock>,
        settings: DeliverySettings,
    ) -> Self {
        Self {
            store,
            sender,
            clock,
            settings,
            caller: Caller::operator(),
        }
    }

    /// The same service for `caller`, who manages subscriptions only with
    /// `webhooks:manage`.
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// A new subscription to the changes `input` names, its secret in it
    /// (shown this once); `ValidationError` on `url` (also when the
    /// network policy refuses it) and `kinds`.
    pub fn subscribe(&self, input: &SubscriptionInput) -> Result<Subscription, ServiceError> {
        self.caller.require(Operation::ManageWebhooks)?;
        let (url, kinds) = parse_subscription(input)?;
        self.sender.check_url(&url).map_err(|problem| {
            ValidationErrors::from(FieldViolation::new("url", Rule::Refused { problem }))
        })?;
        let subscription = Subscription {
            id: Uuid::new_v4(),
            url,
            kinds,
            secret: new_secret()?,
            created: self.clock.now(),
            state: SubscriptionState::Active,
        };
        self.store.insert_subscription(&subscription)?;
        Ok(subscription)
    }

    /// Every subscription, oldest first.
    pub fn subscriptions(&self) -> Result<Vec<Subscription>, ServiceError> {
        self.caller.require(Operation::ManageWebhooks)?;
        Ok(self.store.subscriptions()?)
    }

    /// Ends a subscription and drops what waits for it; `NotFound`
    /// ([`Missing::Subscription`]) when there is none.
    pub fn unsubscribe(&self, id: Uuid) -> Result<(), ServiceError> {
        self.caller.require(Operation::ManageWebhooks)?;
        if self.store.delete_subscription(id)? {
            Ok(())
        } else {
            Err(ServiceError::NotFound(Missing::Subscription))
        }
    }

    /// Delivers to a failing subscription again, what waits for it at
    /// once.
    pub fn resume(&self, id: Uuid) -> Result<(), ServiceError> {
        self.caller.require(Operation::ManageWebhooks)?;
        if self
            .store
            .set_subscription_state(id, SubscriptionState::Active)?
        {
            Ok(())
        } else {
            Err(ServiceError::NotFound(Missing::Subscription))
        }
    }

    /// What waits and what was delivered, per subscription.
    pub fn counts(&self) -> Result<Vec<OutboxCounts>, ServiceError> {
        self.caller.require(Operation::ManageWebhooks)?;
        Ok(self.store.outbox_counts()?)
    }

    /// Marks the subscription failing since `since`, logging `why`: it is
    /// not delivered to again until resumed, and its events are kept.
    fn give_up(
        &self,
        subscription: Uuid,
        since: DateTime<Utc>,
        why: &str,
    ) -> Result<(), ServiceError> {
        log::warn!("webhook {subscription}: {why}; failing until resumed, its events kept");
        self.store
            .set_subscription_state(subscription, SubscriptionState::Failing { since })?;
        Ok(())
    }

    /// One round of delivery: takes the deliveries due (leased, so another
    /// process does not take them too), posts each, and records what
    /// became of it; a subscription whose delivery kept failing for
    /// `retry_for` (or whose URL the network policy now refuses) is marked
    /// failing, its events kept. Then, when it delivered any, drops the
    /// oldest delivered beyond `keep_delivered`.
    pub fn deliver_due(&self) -> Result<Round, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        let now = self.clock.now();
        let leased =
            self.store
                .lease_deliveries(now, now + self.settings.lease, self.settings.batch)?;
        let mut round = Round::default();
        let mut given_up: Vec<Uuid> = Vec::new();
        for delivery in leased {
            if given_up.contains(&delivery.subscription.id) {
                continue;
            }
            let sent = self.clock.now();
            let outcome = self
                .sender
                .send(&delivery.subscription, &delivery.entry, sent);
            let reason = match outcome {
                SendOutcome::Delivered => {
                    self.store.delivered(delivery.id, self.clock.now())?;
                    round.delivered += 1;
                    continue;
                }
                SendOutcome::Blocked(reason) => {
                    self.give_up(delivery.subscription.id, sent, &reason)?;
                    given_up.push(delivery.subscription.id);
                    round.given_up += 1;
                    continue;
                }
                SendOutcome::Retry(reason) | SendOutcome::Rejected(reason) => reason,
            };
            let attempts = delivery.attempts.saturating_add(1);
            let first = delivery.first_attempt.unwrap_or(sent);
            let next = sent + retry_delay(attempts, jitter());
            self.store
                .retry_delivery(delivery.id, attempts, first, next)?;
            round.failed += 1;
            log::info!(
                "webhook {}: delivery {} failed ({reason}), attempt {attempts}",
                delivery.subscription.id,
                delivery.id
            );
            if gives_up(first, sent, self.settings.retry_for) {
                let why = format!("its deliveries failed since {first}");
                self.give_up(delivery.subscription.id, sent, &why)?;
                given_up.push(delivery.subscription.id);
                round.given_up += 1;
            }
        }
        // Only a delivery adds to what is kept delivered.
        if round.delivered > 0 {
            self.store.prune_outbox(self.settings.keep_delivered)?;
        }
        Ok(round)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_lease_must_outlast_the_delivery_timeout() {
        let settings = |lease| DeliverySettings {
            lease: TimeDelta::seconds(lease),
            ..DeliverySettings::default()
        };
        let timeout = Duration::from_secs(10);
        assert_eq!(settings(11).outlasting(timeout), Ok(settings(11)));
        let refused = settings(10).outlasting(timeout).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the webhook lease (10 s) must be longer than the delivery timeout (10 s), \
             or another instance takes a delivery still under way"
        );
        assert!(settings(-1).outlasting(timeout).is_err());
        assert!(DeliverySettings::default().outlasting(timeout).is_ok());
    }
}
