//! The sender as the webhook use cases see it ([`WebhookSender`]): a
//! subscription's URL checked under the network policy, and one change
//! posted as a signed CloudEvent.

use std::time::Duration;

use chrono::{DateTime, Utc};
use kenning_domain::{AuditEntry, Subscription};
use kenning_ports::{SendOutcome, WebhookSender};

use crate::delivery::{Outcome, Sender};
use crate::event::{cloud_event, event_id, EventSource};
use crate::policy::NetworkPolicy;
use crate::refusal::Refusal;
use crate::target::check_url;

/// Posts deliveries under a network policy, each within a timeout, as
/// events from `source`.
#[derive(Debug)]
pub struct Webhooks {
    sender: Sender,
    policy: NetworkPolicy,
    source: EventSource,
}

impl Webhooks {
    /// Deliveries under `policy`, each ending within `timeout`, their
    /// events' `source` `source`.
    pub fn new(policy: NetworkPolicy, timeout: Duration, source: EventSource) -> Self {
        Self {
            sender: Sender::new(policy.clone(), timeout),
            policy,
            source,
        }
    }
}

/// A URL's refusal as a problem completing "url ...", for a validation
/// error on the field.
fn problem(refusal: &Refusal) -> &'static str {
    match refusal {
        Refusal::TooLong { .. } => "must be at most 2048 characters long",
        Refusal::Unprintable => "must not contain spaces or control characters",
        Refusal::Malformed { .. } => "must be an absolute URL",
        Refusal::Scheme { .. } => "must use https",
        Refusal::Credentials => "must not carry a user name or password",
        Refusal::Fragment => "must not have a fragment",
        Refusal::PlainHttp => {
            "must use https; plain http is allowed only to networks the operator allows"
        }
        Refusal::BlockedAddress { .. } => {
            "must not reach a loopback, private, link-local or other special-purpose address \
             the operator does not allow"
        }
        _ => "cannot be sent to",
    }
}

impl WebhookSender for Webhooks {
    fn check_url(&self, url: &str) -> Result<(), &'static str> {
        check_url(url, &self.policy)
            .map(|_| ())
            .map_err(|refusal| problem(&refusal))
    }

    fn send(
        &self,
        subscription: &Subscription,
        entry: &AuditEntry,
        now: DateTime<Utc>,
    ) -> SendOutcome {
        let id = event_id(entry, &self.source);
        let body = match cloud_event(entry, &self.source) {
            Ok(body) => body,
            Err(error) => return SendOutcome::Blocked(error.to_string()),
        };
        let secret = subscription.secret.as_bytes();
        match self
            .sender
            .deliver(&subscription.url, secret, &id, &body, now)
        {
            Outcome::Delivered { .. } => SendOutcome::Delivered,
            Outcome::Retry { reason } => SendOutcome::Retry(reason.to_string()),
            Outcome::Rejected { status } => {
                SendOutcome::Rejected(format!("the receiver answered {status}"))
            }
            Outcome::Blocked { reason } => SendOutcome::Blocked(reason.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_url_reads_as_a_rule_on_the_field() {
        let webhooks = Webhooks::new(
            NetworkPolicy::default(),
            Duration::from_secs(1),
            EventSource::default(),
        );
        assert_eq!(webhooks.check_url("https://hooks.example/in"), Ok(()));
        assert_eq!(
            webhooks.check_url("ftp://hooks.example/in"),
            Err("must use https")
        );
        assert!(webhooks.check_url("http://127.0.0.1:9/in").is_err());
        assert!(webhooks
            .check_url("http://hooks.example/in")
            .unwrap_err()
            .starts_with("must use https"));
        assert!(webhooks
            .check_url("https://10.0.0.1/in")
            .unwrap_err()
            .contains("private"));
    }
}
