//! Why a webhook may not be sent where it was asked to go.

use std::net::IpAddr;

use crate::ranges::AddressRange;

/// Why the sender will not send a webhook, naming the rule broken: a URL
/// or an address it refuses, or an event id no header can carry. Sending
/// it again would be refused again.
///
/// The message of a URL's refusal completes a sentence about the
/// subscription's `url` ("url must use https"), so it can be shown to the
/// caller who gave it as a validation error on that field;
/// [`Refusal::code`] is the stable machine name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The URL is longer than `limit` characters.
    #[error("url must be at most {limit} characters long")]
    TooLong {
        /// The most characters allowed.
        limit: usize,
    },
    /// The URL holds a space or a control character, which a parser would
    /// silently drop or encode.
    #[error("url must not contain spaces or control characters")]
    Unprintable,
    /// The URL does not parse as an absolute URL.
    #[error("url must be an absolute URL ({reason})")]
    Malformed {
        /// The parser's reason.
        reason: String,
    },
    /// The scheme is neither `https` nor `http`.
    #[error("url must use https, not {scheme}")]
    Scheme {
        /// The scheme given.
        scheme: String,
    },
    /// The URL carries a user name or a password.
    #[error("url must not carry a user name or password; the signature authenticates Kenning")]
    Credentials,
    /// The URL has a fragment, which is never sent.
    #[error("url must not have a fragment")]
    Fragment,
    /// Plain `http` to a host outside the networks the operator allows.
    #[error("url must use https; plain http is allowed only to networks the operator allows")]
    PlainHttp,
    /// The host is, or resolves to, an address in a range the operator
    /// does not allow.
    #[error("url reaches {address}, in the {range} range, which the operator does not allow")]
    BlockedAddress {
        /// The address refused.
        address: IpAddr,
        /// The range it lies in.
        range: AddressRange,
    },
    /// The event id is empty or holds what a header value cannot (only
    /// visible ASCII can be sent), so no delivery could carry it.
    #[error("the event id must be visible ASCII, at most {limit} characters long")]
    EventId {
        /// The most characters allowed.
        limit: usize,
    },
}

impl Refusal {
    /// Every code [`Refusal::code`] gives.
    pub const CODES: [&'static str; 9] = [
        "UrlTooLong",
        "UrlUnprintable",
        "UrlMalformed",
        "UrlScheme",
        "UrlCredentials",
        "UrlFragment",
        "PlainHttp",
        "BlockedAddress",
        "EventId",
    ];

    /// The stable machine name of the rule broken.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::TooLong { .. } => "UrlTooLong",
            Refusal::Unprintable => "UrlUnprintable",
            Refusal::Malformed { .. } => "UrlMalformed",
            Refusal::Scheme { .. } => "UrlScheme",
            Refusal::Credentials => "UrlCredentials",
            Refusal::Fragment => "UrlFragment",
            Refusal::PlainHttp => "PlainHttp",
            Refusal::BlockedAddress { .. } => "BlockedAddress",
            Refusal::EventId { .. } => "EventId",
        }
    }
}
