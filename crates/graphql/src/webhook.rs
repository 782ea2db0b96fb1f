//! The webhook objects: subscriptions, and a new one with its secret.

use chrono::{DateTime, Utc};
use juniper::graphql_object;
use kenning_domain::{Subscription, SubscriptionState};
use kenning_ports::OutboxCounts;
use uuid::Uuid;

use crate::context::Context;

/// A subscription with what waits for it.
#[derive(Debug)]
pub struct WebhookObject {
    pub subscription: Subscription,
    pub counts: Option<OutboxCounts>,
}

#[graphql_object(name = "Webhook", context = Context)]
impl WebhookObject {
    fn id(&self) -> Uuid {
        self.subscription.id
    }

    /// Where the events are posted.
    fn url(&self) -> &str {
        &self.subscription.url
    }

    /// The kinds of change delivered; empty: every kind.
    fn kinds(&self) -> Vec<&str> {
        self.subscription.kinds.iter().map(|k| k.as_str()).collect()
    }

    /// `ACTIVE`, or `FAILING` when deliveries kept failing (its events are
    /// kept; `resumeWebhook` delivers them).
    fn state(&self) -> &str {
        self.subscription.state.as_str()
    }

    /// Since when it is failing.
    fn failing_since(&self) -> Option<DateTime<Utc>> {
        match self.subscription.state {
            SubscriptionState::Active => None,
            SubscriptionState::Failing { since } => Some(since),
        }
    }

    fn created_at(&self) -> DateTime<Utc> {
        self.subscription.created
    }

    /// Events waiting to be delivered.
    fn pending(&self) -> i32 {
        self.counts
            .as_ref()
            .map_or(0, |c| i32::try_from(c.pending).unwrap_or(i32::MAX))
    }

    /// Events delivered and still kept in the outbox.
    fn delivered(&self) -> i32 {
        self.counts
            .as_ref()
            .map_or(0, |c| i32::try_from(c.delivered).unwrap_or(i32::MAX))
    }
}

/// A subscription just made, with the secret its deliveries are signed
/// with: shown this once.
#[derive(Debug)]
pub struct CreatedWebhookObject(pub Subscription);

#[graphql_object(name = "CreatedWebhook", context = Context)]
impl CreatedWebhookObject {
    fn webhook(&self) -> WebhookObject {
        WebhookObject {
            subscription: self.0.clone(),
            counts: None,
        }
    }

    /// The key of the HMAC-SHA256 signature in `Kenning-Signature`; it
    /// cannot be shown again.
    fn secret(&self) -> &str {
        &self.0.secret
    }
}
