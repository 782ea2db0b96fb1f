//! Webhooks: Kenning telling other systems about its changes.
//!
//! This crate checks where a webhook may go: a subscription's URL
//! ([`check_url`]) and each address it reaches, under the operator's
//! [`NetworkPolicy`], which by default lets webhooks reach only public
//! unicast addresses, over `https`.

mod policy;
mod ranges;
mod refusal;
mod target;

pub use policy::{NetworkPolicy, Scheme};
pub use ranges::{special_range, AddressRange};
pub use refusal::Refusal;
pub use target::{check_url, WebhookUrl, MAX_URL_CHARS};
