//! Which addresses the sender may call, and over which scheme: the
//! operator's choice, refusing by default everything but the public
//! internet.

use std::net::IpAddr;

use ipnet::IpNet;

use crate::ranges::special_range;
use crate::refusal::Refusal;

/// How a webhook reaches its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// TLS, with the host's certificate checked.
    Https,
    /// Plain HTTP: only to networks the operator allows, for tests and
    /// receivers on the operator's own network.
    Http,
}

impl Scheme {
    /// The URL scheme's name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Scheme::Https => "https",
            Scheme::Http => "http",
        }
    }
}

/// The networks the operator allows webhooks into besides the public
/// internet.
///
/// By default (no network allowed) only public unicast addresses may be
/// called, and only over `https`: nothing in the ranges that
/// [`special_range`] names (loopback, private, link-local and the cloud
/// metadata address in it, carrier-grade NAT, multicast, ...), whether
/// written as IPv4 or carried in IPv6. An address inside an allowed
/// network may be called whatever its range, and over plain `http` too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkPolicy {
    allowed: Vec<IpNet>,
}

impl NetworkPolicy {
    /// A policy allowing `networks` besides the public internet.
    pub fn allowing(networks: impl IntoIterator<Item = IpNet>) -> Self {
        Self {
            allowed: networks.into_iter().collect(),
        }
    }

    /// The networks allowed besides the public internet.
    pub fn allowed(&self) -> &[IpNet] {
        &self.allowed
    }

    /// Whether `address` lies in a network the operator allows. An
    /// IPv4-mapped IPv6 address is also judged as the IPv4 address it
    /// carries, since that is the host it reaches.
    pub fn allows(&self, address: IpAddr) -> bool {
        let canonical = address.to_canonical();
        self.allowed
            .iter()
            .any(|net| net.contains(&address) || net.contains(&canonical))
    }

    /// Whether a webhook may be sent to `address` over `scheme`: an
    /// allowed network's address always may; else it must be a public
    /// unicast address, over `https`.
    pub fn admit(&self, address: IpAddr, scheme: Scheme) -> Result<(), Refusal> {
        if self.allows(address) {
            return Ok(());
        }
        if let Some(range) = special_range(address) {
            return Err(Refusal::BlockedAddress { address, range });
        }
        match scheme {
            Scheme::Https => Ok(()),
            Scheme::Http => Err(Refusal::PlainHttp),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranges::AddressRange;

    fn ip(address: &str) -> IpAddr {
        address.parse().unwrap()
    }

    fn net(network: &str) -> IpNet {
        network.parse().unwrap()
    }

    #[test]
    fn by_default_only_public_addresses_over_https_are_admitted() {
        let policy = NetworkPolicy::default();
        assert_eq!(policy.admit(ip("93.184.215.14"), Scheme::Https), Ok(()));
        assert_eq!(policy.admit(ip("2606:4700::1111"), Scheme::Https), Ok(()));
        assert_eq!(
            policy.admit(ip("93.184.215.14"), Scheme::Http),
            Err(Refusal::PlainHttp)
        );
        for (address, range) in [
            ("127.0.0.1", AddressRange::Loopback),
            ("::1", AddressRange::Loopback),
            ("10.0.0.1", AddressRange::Private),
            ("172.16.0.1", AddressRange::Private),
            ("192.168.0.1", AddressRange::Private),
            ("fd00::1", AddressRange::Private),
            ("169.254.169.254", AddressRange::LinkLocal),
            ("fe80::1", AddressRange::LinkLocal),
            ("0.0.0.0", AddressRange::Unspecified),
            ("::", AddressRange::Unspecified),
            ("224.0.0.1", AddressRange::Multicast),
            ("ff02::1", AddressRange::Multicast),
            ("255.255.255.255", AddressRange::Broadcast),
            ("100.64.0.1", AddressRange::SharedCgnat),
            ("::ffff:127.0.0.1", AddressRange::Loopback),
            ("::ffff:169.254.169.254", AddressRange::LinkLocal),
            ("::ffff:10.0.0.1", AddressRange::Private),
        ] {
            for scheme in [Scheme::Https, Scheme::Http] {
                assert_eq!(
                    policy.admit(ip(address), scheme),
                    Err(Refusal::BlockedAddress {
                        address: ip(address),
                        range
                    }),
                    "{address} over {}",
                    scheme.as_str()
                );
            }
        }
    }

    #[test]
    fn an_allowed_network_is_admitted_over_either_scheme() {
        let policy = NetworkPolicy::allowing([net("127.0.0.0/8"), net("10.1.0.0/16")]);
        for address in ["127.0.0.1", "127.8.9.10", "::ffff:127.0.0.1", "10.1.2.3"] {
            assert_eq!(policy.admit(ip(address), Scheme::Http), Ok(()), "{address}");
            assert_eq!(
                policy.admit(ip(address), Scheme::Https),
                Ok(()),
                "{address}"
            );
        }
        assert!(matches!(
            policy.admit(ip("10.2.0.1"), Scheme::Https),
            Err(Refusal::BlockedAddress { .. })
        ));
        assert!(matches!(
            policy.admit(ip("::1"), Scheme::Https),
            Err(Refusal::BlockedAddress { .. })
        ));
        assert_eq!(
            policy.admit(ip("8.8.8.8"), Scheme::Http),
            Err(Refusal::PlainHttp)
        );
    }

    #[test]
    fn a_public_network_allowed_may_be_called_over_plain_http() {
        let policy = NetworkPolicy::allowing([net("198.51.0.0/16")]);
        assert_eq!(policy.admit(ip("198.51.1.1"), Scheme::Http), Ok(()));
        assert_eq!(policy.allowed(), [net("198.51.0.0/16")]);
    }
}
