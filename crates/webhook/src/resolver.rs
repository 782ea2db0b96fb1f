//! Name resolution that lets the HTTP client connect only to addresses the
//! policy admits.
//!
//! The client connects to exactly the addresses its resolver gives and
//! resolves each request's host once, so checking them here is checking
//! what is connected to: a name that resolves to a public address when a
//! subscription is made and to a private one at delivery (DNS rebinding)
//! is refused at delivery, and no second lookup can change the answer
//! after the check.

use std::io;

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

use crate::policy::{NetworkPolicy, Scheme};
use crate::refusal::Refusal;

/// The system's resolver (with ureq's timeout), admitting a request only
/// when every address it resolves to is admitted by the policy.
#[derive(Debug)]
pub(crate) struct GuardedResolver {
    policy: NetworkPolicy,
    system: DefaultResolver,
}

impl GuardedResolver {
    pub(crate) fn new(policy: NetworkPolicy) -> Self {
        Self {
            policy,
            system: DefaultResolver::default(),
        }
    }
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let scheme = match uri.scheme_str() {
            Some("https") => Scheme::Https,
            Some("http") => Scheme::Http,
            other => {
                return Err(refused(Refusal::Scheme {
                    scheme: other.unwrap_or_default().to_owned(),
                }))
            }
        };
        let addresses = self.system.resolve(uri, config, timeout)?;
        // Every address, not only the first: the client may fall back to
        // any of them.
        for address in addresses.iter() {
            self.policy.admit(address.ip(), scheme).map_err(refused)?;
        }
        Ok(addresses)
    }
}

/// A refusal as the client's error, which [`refusal_in`] reads back.
fn refused(refusal: Refusal) -> ureq::Error {
    ureq::Error::Io(io::Error::new(io::ErrorKind::PermissionDenied, refusal))
}

/// The refusal of [`GuardedResolver`] that stopped a request, if that is
/// what `error` is.
pub(crate) fn refusal_in(error: &ureq::Error) -> Option<&Refusal> {
    match error {
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<Refusal>(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use super::*;
    use crate::ranges::AddressRange;

    fn resolve(policy: NetworkPolicy, uri: &str) -> Result<Vec<SocketAddr>, ureq::Error> {
        GuardedResolver::new(policy)
            .resolve(
                &uri.parse().unwrap(),
                &Config::default(),
                NextTimeout::default(),
            )
            .map(|addresses| addresses.to_vec())
    }

    fn loopback() -> NetworkPolicy {
        NetworkPolicy::allowing(["127.0.0.0/8".parse().unwrap()])
    }

    #[test]
    fn an_admitted_address_is_all_the_client_gets() {
        let resolved = resolve(loopback(), "http://127.0.0.1:9/").unwrap();
        assert_eq!(resolved, ["127.0.0.1:9".parse().unwrap()]);
    }

    #[test]
    fn a_refused_address_stops_the_request_with_the_refusal() {
        let error = resolve(NetworkPolicy::default(), "https://127.0.0.1:9/").unwrap_err();
        assert_eq!(
            refusal_in(&error),
            Some(&Refusal::BlockedAddress {
                address: "127.0.0.1".parse().unwrap(),
                range: AddressRange::Loopback,
            })
        );
        let error = resolve(NetworkPolicy::default(), "http://[::1]:9/").unwrap_err();
        assert!(matches!(
            refusal_in(&error),
            Some(Refusal::BlockedAddress { .. })
        ));
    }

    #[test]
    fn the_scheme_is_checked_again() {
        let error = resolve(loopback(), "ftp://127.0.0.1:9/").unwrap_err();
        assert_eq!(
            refusal_in(&error),
            Some(&Refusal::Scheme {
                scheme: "ftp".to_owned()
            })
        );
    }

    #[test]
    fn other_failures_are_no_refusal() {
        assert_eq!(refusal_in(&ureq::Error::HostNotFound), None);
        let io = ureq::Error::Io(io::Error::other("reset"));
        assert_eq!(refusal_in(&io), None);
    }
}
