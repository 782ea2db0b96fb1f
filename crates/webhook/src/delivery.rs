//! Sending one event to one URL: the request, its limits, and what came of
//! it.

use std::fmt;
use std::time::Duration;

use chrono::{DateTime, Utc};
use ureq::unversioned::transport::DefaultConnector;
use ureq::Agent;

use crate::event::CONTENT_TYPE;
use crate::policy::NetworkPolicy;
use crate::refusal::Refusal;
use crate::resolver::{refusal_in, GuardedResolver};
use crate::signature::{sign, SIGNATURE_HEADER};
use crate::target::check_url;

/// The header that carries the event's id, the key a receiver drops
/// duplicates by (also the CloudEvents `id`).
pub const ID_HEADER: &str = "Webhook-Id";

/// The longest event id sent, in characters.
pub const MAX_ID_CHARS: usize = 200;

/// The most bytes of status line and headers read from a receiver; its
/// body is never read.
const MAX_RESPONSE_HEAD_BYTES: usize = 16 * 1024;

const USER_AGENT: &str = concat!("Kenning-Webhook/", env!("CARGO_PKG_VERSION"));

/// What came of a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The receiver answered 2xx: it has the event.
    Delivered {
        /// The status it answered.
        status: u16,
    },
    /// The receiver could not take the event now; try again later.
    Retry {
        /// Why.
        reason: RetryReason,
    },
    /// The receiver answered a 4xx other than 408 and 429, or a redirect,
    /// which is not followed. Still worth trying again with a backoff (a
    /// receiver misconfigured today may be fixed tomorrow), but worth
    /// telling apart in logs and metrics.
    Rejected {
        /// The status it answered.
        status: u16,
    },
    /// The sender refused to send, before connecting: the URL or an
    /// address it resolves to is not allowed, or the id cannot be sent.
    /// Never to be tried again as it is.
    Blocked {
        /// The rule broken.
        reason: Refusal,
    },
}

/// Why a delivery is to be tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryReason {
    /// The receiver answered 5xx, 408 (request timeout) or 429 (too many
    /// requests).
    Status(u16),
    /// No answer within the sender's timeout.
    Timeout,
    /// The receiver could not be reached or did not answer in HTTP: its
    /// name did not resolve, the connection was refused or broken, TLS
    /// failed, or the answer was not HTTP.
    Unreachable(String),
}

impl fmt::Display for RetryReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetryReason::Status(status) => write!(f, "the receiver answered {status}"),
            RetryReason::Timeout => f.write_str("the receiver did not answer in time"),
            RetryReason::Unreachable(why) => write!(f, "the receiver was not reached: {why}"),
        }
    }
}

/// Sends webhooks, one blocking request at a time per call, within the
/// operator's [`NetworkPolicy`]. Meant for a thread of its own, never for
/// async code; one `Sender` may serve many threads.
///
/// What it guarantees, whatever the URL:
///
/// - it connects only where the policy admits: the URL is checked again
///   ([`check_url`](crate::check_url)), the host is resolved once and
///   every address it resolves to is checked, and only those addresses
///   are connected to (so a name cannot resolve to one address for the
///   check and another for the connection); plain `http` only into the
///   networks the operator allows;
/// - no proxy from the environment is used, since a proxy would resolve
///   and reach the host on the sender's behalf, unchecked;
/// - redirects are not followed (a 3xx is [`Outcome::Rejected`]);
/// - each delivery, resolution included, ends within the timeout;
/// - of the answer, only the status line and at most 16 KiB of headers
///   are read, never the body.
#[derive(Debug)]
pub struct Sender {
    agent: Agent,
    policy: NetworkPolicy,
}

impl Sender {
    /// A sender under `policy` whose deliveries each end within `timeout`.
    pub fn new(policy: NetworkPolicy, timeout: Duration) -> Self {
        let config = Agent::config_builder()
            .proxy(None)
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .max_response_header_size(MAX_RESPONSE_HEAD_BYTES)
            .user_agent(USER_AGENT)
            .build();
        let resolver = GuardedResolver::new(policy.clone());
        Self {
            agent: Agent::with_parts(config, DefaultConnector::new(), resolver),
            policy,
        }
    }

    /// POSTs `body` (a document of [`cloud_event`](crate::cloud_event)) to
    /// `url`, with the headers `Content-Type: application/cloudevents+json`,
    /// [`ID_HEADER`] `id` and [`SIGNATURE_HEADER`], signed with `secret`
    /// at `now`.
    pub fn deliver(
        &self,
        url: &str,
        secret: &[u8],
        id: &str,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Outcome {
        if !is_sendable_id(id) {
            return Outcome::Blocked {
                reason: Refusal::EventId {
                    limit: MAX_ID_CHARS,
                },
            };
        }
        let target = match check_url(url, &self.policy) {
            Ok(target) => target,
            Err(reason) => return Outcome::Blocked { reason },
        };
        let sent = self
            .agent
            .post(target.as_str())
            .header("Content-Type", CONTENT_TYPE)
            .header(ID_HEADER, id)
            .header(SIGNATURE_HEADER, sign(secret, now.timestamp(), body))
            .send(body);
        // The answer's body is dropped unread: the status says all.
        match sent {
            Ok(response) => outcome_of_status(response.status().as_u16()),
            Err(error) => outcome_of_error(&error),
        }
    }
}

fn is_sendable_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_CHARS && id.bytes().all(|b| b.is_ascii_graphic())
}

fn outcome_of_status(status: u16) -> Outcome {
    match status {
        200..=299 => Outcome::Delivered { status },
        408 | 429 | 500..=599 => Outcome::Retry {
            reason: RetryReason::Status(status),
        },
        _ => Outcome::Rejected { status },
    }
}

fn outcome_of_error(error: &ureq::Error) -> Outcome {
    if let Some(refusal) = refusal_in(error) {
        return Outcome::Blocked {
            reason: refusal.clone(),
        };
    }
    let reason = match error {
        ureq::Error::Timeout(_) => RetryReason::Timeout,
        other => RetryReason::Unreachable(other.to_string()),
    };
    Outcome::Retry { reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_says_what_came_of_a_delivery() {
        for status in [200, 201, 202, 204, 299] {
            assert_eq!(outcome_of_status(status), Outcome::Delivered { status });
        }
        for status in [408, 429, 500, 502, 503, 504, 599] {
            assert_eq!(
                outcome_of_status(status),
                Outcome::Retry {
                    reason: RetryReason::Status(status)
                }
            );
        }
        for status in [
            100, 301, 302, 303, 307, 308, 400, 401, 403, 404, 410, 413, 422,
        ] {
            assert_eq!(outcome_of_status(status), Outcome::Rejected { status });
        }
    }

    #[test]
    fn an_id_no_header_can_carry_is_refused() {
        let sender = Sender::new(NetworkPolicy::default(), Duration::from_secs(1));
        let long = "a".repeat(MAX_ID_CHARS + 1);
        for id in ["", "two words", "line\nbreak", "caf\u{e9}", long.as_str()] {
            let outcome = sender.deliver("https://127.0.0.1/", b"s", id, b"{}", Utc::now());
            let Outcome::Blocked { reason } = outcome else {
                panic!("{id:?}: {outcome:?}");
            };
            assert_eq!(reason.code(), "EventId", "{id:?}");
        }
        assert!(is_sendable_id("82f7a5e1-74e5-5e04-95de-26cc626132e2"));
    }

    #[test]
    fn a_retry_reason_reads_as_a_sentence() {
        assert_eq!(
            RetryReason::Status(503).to_string(),
            "the receiver answered 503"
        );
        assert_eq!(
            RetryReason::Timeout.to_string(),
            "the receiver did not answer in time"
        );
    }
}
