//! Webhooks: Kenning telling other systems about its changes.
//!
//! This crate writes a change of the audit trail as the document a
//! webhook carries, a CloudEvents 1.0 event in JSON ([`cloud_event`]),
//! whose id ([`event_id`]) is the same each time the change is sent. It
//! checks where a webhook may go: a subscription's URL ([`check_url`])
//! and each address it reaches, under the operator's [`NetworkPolicy`],
//! which by default lets webhooks reach only public unicast addresses,
//! over `https`. It signs what it sends, so a receiver can tell a
//! delivery from Kenning from a forgery or a replay. And it delivers one
//! event to one URL ([`Sender::deliver`]), blocking, and says what came of
//! it ([`Outcome`]); subscriptions, retries and their schedule are the
//! caller's.
//!
//! # A delivery
//!
//! One `POST` to the subscription's URL, its body the event's JSON, with
//! these headers:
//!
//! | header | value |
//! | --- | --- |
//! | `Content-Type` | `application/cloudevents+json` ([`CONTENT_TYPE`]) |
//! | `Webhook-Id` ([`ID_HEADER`]) | the event's id, also its CloudEvents `id`: the same on every attempt, so a receiver drops duplicates by it |
//! | `Kenning-Signature` ([`SIGNATURE_HEADER`]) | the signature, below |
//!
//! A 2xx answer delivers it. The sender cannot be turned against the
//! network it runs in: it connects only to addresses the
//! [`NetworkPolicy`] admits, checking every address a name resolves to
//! and connecting to those alone (no second lookup, no proxy); it never
//! follows a redirect; each delivery ends within its timeout; and it reads
//! no answer's body. See [`Sender`].
//!
//! # The signature
//!
//! Each delivery carries the header [`SIGNATURE_HEADER`]
//! (`Kenning-Signature`), in the scheme Stripe signs its webhooks with:
//!
//! ```text
//! Kenning-Signature: t=1700000000,v1=4ea13d88d9360c1a6dd4285d433ca4bf6e5a184e712d096e4b1bf3e083966694
//! ```
//!
//! `t` is the moment of sending in Unix seconds; `v1` is the lower-case hex
//! HMAC-SHA256, keyed with the subscription's secret, of `t`'s digits, a
//! full stop, and the request body exactly as received (bytes, before any
//! JSON parsing). To verify a delivery, a receiver:
//!
//! 1. splits the header on commas into `key=value` pairs, taking `t` and
//!    every `v1` (there are several while a secret is being replaced) and
//!    ignoring other keys;
//! 2. computes the HMAC of `"{t}.{body}"` with its secret, in lower-case
//!    hex, and compares it with each `v1` in constant time;
//! 3. refuses the delivery unless one matches and `t` lies within a few
//!    minutes of its own clock ([`DEFAULT_TOLERANCE_SECS`]), so a captured
//!    request cannot be replayed later.
//!
//! [`verify`] does exactly that:
//!
//! ```
//! use kenning_webhook::{sign, verify, DEFAULT_TOLERANCE_SECS};
//!
//! let secret = b"the subscription's secret";
//! let body = br#"{"specversion":"1.0","type":"io.kenning.user.created"}"#;
//! let header = sign(secret, 1_700_000_000, body);
//! assert_eq!(
//!     header,
//!     "t=1700000000,v1=4ea13d88d9360c1a6dd4285d433ca4bf6e5a184e712d096e4b1bf3e083966694"
//! );
//!
//! // The receiver, a minute later:
//! let now = 1_700_000_060;
//! assert!(verify(&header, secret, body, now, DEFAULT_TOLERANCE_SECS));
//! assert!(!verify(&header, secret, b"{}", now, DEFAULT_TOLERANCE_SECS));
//! assert!(!verify(&header, b"another secret", body, now, DEFAULT_TOLERANCE_SECS));
//! assert!(!verify(&header, secret, body, now + 3600, DEFAULT_TOLERANCE_SECS));
//! ```
//!
//! Without Rust, the expected `v1` of a body saved in `body.json` is
//!
//! ```text
//! { printf '%s.' "$t"; cat body.json; } | openssl dgst -sha256 -hmac "$secret"
//! ```

mod adapter;
mod delivery;
mod event;
mod policy;
mod ranges;
mod refusal;
mod resolver;
mod signature;
mod target;

pub use adapter::Webhooks;
pub use delivery::{Outcome, RetryReason, Sender, ID_HEADER, MAX_ID_CHARS};
pub use event::{
    cloud_event, event_id, EventError, EventSource, InvalidSource, CONTENT_TYPE, MAX_SOURCE_CHARS,
    TYPE_PREFIX,
};
pub use policy::{NetworkPolicy, Scheme};
pub use ranges::{special_range, AddressRange};
pub use refusal::Refusal;
pub use signature::{sign, verify, DEFAULT_TOLERANCE_SECS, SIGNATURE_HEADER};
pub use target::{check_url, WebhookUrl, MAX_URL_CHARS};
