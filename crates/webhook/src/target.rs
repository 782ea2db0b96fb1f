//! A webhook's URL, checked when a subscription names it and again before
//! each delivery.

use std::fmt;

use url::{Host, Url};

use crate::policy::{NetworkPolicy, Scheme};
use crate::refusal::Refusal;

/// The longest URL accepted, in characters.
pub const MAX_URL_CHARS: usize = 2048;

/// A URL a webhook may be sent to: absolute, `https` (or `http` where the
/// policy allows it), with a host, without credentials or fragment, and,
/// when its host is an IP address, an address the policy admits. Built
/// only by [`check_url`].
///
/// A host name is not resolved here: its addresses can change at any time,
/// so the sender checks every one of them again at each delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl {
    url: Url,
    scheme: Scheme,
}

impl WebhookUrl {
    /// The URL in its normalised form (the form that is requested).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// Its scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }
}

impl fmt::Display for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `raw` as a URL a webhook may be sent to under `policy`, or the first
/// rule it breaks.
///
/// A host given as an IP address (in any spelling a browser accepts, such
/// as `0x7f.1`) is checked against the policy at once. A host name passes
/// here, and plain `http` to a host name passes only when the policy
/// allows some network: whether its addresses lie there is known only when
/// it is resolved, at delivery.
pub fn check_url(raw: &str, policy: &NetworkPolicy) -> Result<WebhookUrl, Refusal> {
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(Refusal::TooLong {
            limit: MAX_URL_CHARS,
        });
    }
    // The URL standard strips surrounding spaces and drops tabs and line
    // breaks anywhere, so what such a value names is not what it shows.
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Refusal::Unprintable);
    }
    let url = Url::parse(raw).map_err(|e| Refusal::Malformed {
        reason: e.to_string(),
    })?;
    let scheme = match url.scheme() {
        "https" => Scheme::Https,
        "http" => Scheme::Http,
        other => {
            return Err(Refusal::Scheme {
                scheme: other.to_owned(),
            })
        }
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Credentials);
    }
    if url.fragment().is_some() {
        return Err(Refusal::Fragment);
    }
    match url.host() {
        // An http or https URL always has a host once parsed.
        None => {
            return Err(Refusal::Malformed {
                reason: "no host".to_owned(),
            })
        }
        Some(Host::Ipv4(address)) => policy.admit(address.into(), scheme)?,
        Some(Host::Ipv6(address)) => policy.admit(address.into(), scheme)?,
        Some(Host::Domain(_)) => {
            if scheme == Scheme::Http && policy.allowed().is_empty() {
                return Err(Refusal::PlainHttp);
            }
        }
    }
    Ok(WebhookUrl { url, scheme })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::net::IpAddr;

    use super::*;
    use crate::ranges::AddressRange;

    fn open() -> NetworkPolicy {
        NetworkPolicy::default()
    }

    fn local() -> NetworkPolicy {
        NetworkPolicy::allowing(["127.0.0.0/8".parse().unwrap()])
    }

    #[test]
    fn a_public_https_url_is_accepted_and_normalised() {
        let url = check_url("HTTPS://Hooks.Example.COM/kenning?x=1", &open()).unwrap();
        assert_eq!(url.as_str(), "https://hooks.example.com/kenning?x=1");
        assert_eq!(url.scheme(), Scheme::Https);
        let url = check_url("https://93.184.215.14:8443/in", &open()).unwrap();
        assert_eq!(url.to_string(), "https://93.184.215.14:8443/in");
    }

    #[test]
    fn plain_http_to_a_public_address_is_refused_by_default() {
        for raw in ["http://93.184.215.14/in", "http://hooks.example.com/in"] {
            assert_eq!(check_url(raw, &open()), Err(Refusal::PlainHttp), "{raw}");
        }
        assert_eq!(
            check_url("http://93.184.215.14/in", &local()),
            Err(Refusal::PlainHttp)
        );
    }

    #[test]
    fn plain_http_is_accepted_into_an_allowed_network() {
        let url = check_url("http://127.0.0.1:8080/hook", &local()).unwrap();
        assert_eq!(url.scheme(), Scheme::Http);
        // A name's addresses are checked when it is resolved.
        assert!(check_url("http://receiver.internal/hook", &local()).is_ok());
    }

    #[test]
    fn an_address_in_a_blocked_range_is_refused_in_any_spelling() {
        for (raw, address, range) in [
            ("https://127.0.0.1/", "127.0.0.1", AddressRange::Loopback),
            ("https://0x7f.1/", "127.0.0.1", AddressRange::Loopback),
            ("https://2130706433/", "127.0.0.1", AddressRange::Loopback),
            ("https://[::1]/", "::1", AddressRange::Loopback),
            (
                "https://[::ffff:127.0.0.1]/",
                "::ffff:127.0.0.1",
                AddressRange::Loopback,
            ),
            (
                "https://169.254.169.254/latest/meta-data/",
                "169.254.169.254",
                AddressRange::LinkLocal,
            ),
            ("https://10.0.0.1/", "10.0.0.1", AddressRange::Private),
            ("https://[fd00::1]/", "fd00::1", AddressRange::Private),
            ("http://0.0.0.0:80/", "0.0.0.0", AddressRange::Unspecified),
        ] {
            let address: IpAddr = address.parse().unwrap();
            assert_eq!(
                check_url(raw, &open()),
                Err(Refusal::BlockedAddress { address, range }),
                "{raw}"
            );
        }
    }

    #[test]
    fn every_rule_has_its_refusal() {
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        let cases = [
            (long.as_str(), "UrlTooLong"),
            ("https://exam\tple.com/", "UrlUnprintable"),
            (" https://example.com/", "UrlUnprintable"),
            ("https://example.com/\n", "UrlUnprintable"),
            ("/relative/path", "UrlMalformed"),
            ("https://exa mple.com", "UrlUnprintable"),
            ("https://[::1/", "UrlMalformed"),
            ("ftp://example.com/", "UrlScheme"),
            ("file:///etc/passwd", "UrlScheme"),
            ("https://user:secret@example.com/", "UrlCredentials"),
            ("https://user@example.com/", "UrlCredentials"),
            ("https://example.com/#part", "UrlFragment"),
            ("http://example.com/", "PlainHttp"),
            ("https://127.0.0.1/", "BlockedAddress"),
        ];
        let mut seen = BTreeSet::new();
        for (raw, code) in cases {
            let refusal = check_url(raw, &open()).unwrap_err();
            assert_eq!(refusal.code(), code, "{raw}: {refusal}");
            assert!(refusal.to_string().starts_with("url "), "{refusal}");
            seen.insert(code);
        }
        // The event id's refusal is the sender's, tested there.
        let of_urls = Refusal::CODES.into_iter().filter(|code| *code != "EventId");
        assert_eq!(seen, of_urls.collect());
    }

    #[test]
    fn a_refusal_names_the_rule() {
        assert_eq!(
            check_url("https://127.0.0.1/", &open())
                .unwrap_err()
                .to_string(),
            "url reaches 127.0.0.1, in the loopback range, which the operator does not allow"
        );
        assert_eq!(
            check_url("gopher://example.com/", &open())
                .unwrap_err()
                .to_string(),
            "url must use https, not gopher"
        );
    }
}
