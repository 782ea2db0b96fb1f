//! The address ranges that are not the public internet: what a webhook may
//! not reach unless the operator allows it. The lists follow IANA's
//! special-purpose address registries (RFC 6890 and its updates), keeping
//! every block that is not globally reachable or is only reachable through
//! a translation to another address.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};

/// A range of addresses that is not the public internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressRange {
    /// `0.0.0.0` or `::`: on most systems a connection to it reaches the
    /// host itself.
    Unspecified,
    /// `0.0.0.0/8`, "this network".
    ThisNetwork,
    /// `127.0.0.0/8` and `::1`: the host itself.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918) and the
    /// unique local `fc00::/7` (RFC 4193).
    Private,
    /// `100.64.0.0/10`, the shared address space of carrier-grade NAT.
    SharedCgnat,
    /// `169.254.0.0/16` and `fe80::/10`; the cloud metadata service
    /// (`169.254.169.254`) lives here.
    LinkLocal,
    /// `fec0::/10`, deprecated but still routed by some networks.
    SiteLocal,
    /// `224.0.0.0/4` and `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `240.0.0.0/4` and any IPv6 address outside the global unicast
    /// `2000::/3` that no other range names.
    Reserved,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24` and
    /// `2001:db8::/32`.
    Documentation,
    /// `198.18.0.0/15`.
    Benchmarking,
    /// `192.0.0.0/24` and `2001::/23` (which holds Teredo).
    ProtocolAssignments,
    /// `192.88.99.0/24` and `2002::/16`: 6to4, which reaches IPv4 hosts
    /// through relays.
    SixToFour,
    /// `64:ff9b:1::/48`, translation to IPv4 within one network.
    LocalTranslation,
    /// `::/96` (deprecated), the IPv4-compatible IPv6 addresses.
    Ipv4Compatible,
    /// `100::/64`, where traffic is discarded.
    DiscardOnly,
}

impl AddressRange {
    /// Its name, as in "the {name} range".
    pub fn as_str(&self) -> &'static str {
        match self {
            AddressRange::Unspecified => "unspecified",
            AddressRange::ThisNetwork => "this-network",
            AddressRange::Loopback => "loopback",
            AddressRange::Private => "private",
            AddressRange::SharedCgnat => "shared (carrier-grade NAT)",
            AddressRange::LinkLocal => "link-local",
            AddressRange::SiteLocal => "site-local",
            AddressRange::Multicast => "multicast",
            AddressRange::Broadcast => "broadcast",
            AddressRange::Reserved => "reserved",
            AddressRange::Documentation => "documentation",
            AddressRange::Benchmarking => "benchmarking",
            AddressRange::ProtocolAssignments => "protocol-assignment",
            AddressRange::SixToFour => "6to4",
            AddressRange::LocalTranslation => "local NAT64",
            AddressRange::Ipv4Compatible => "IPv4-compatible",
            AddressRange::DiscardOnly => "discard-only",
        }
    }
}

impl fmt::Display for AddressRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

/// The IPv4 ranges, the first that holds an address naming it (so a
/// single address comes before the block around it).
const IPV4_RANGES: [(Ipv4Net, AddressRange); 17] = [
    (v4(0, 0, 0, 0, 32), AddressRange::Unspecified),
    (v4(0, 0, 0, 0, 8), AddressRange::ThisNetwork),
    (v4(10, 0, 0, 0, 8), AddressRange::Private),
    (v4(100, 64, 0, 0, 10), AddressRange::SharedCgnat),
    (v4(127, 0, 0, 0, 8), AddressRange::Loopback),
    (v4(169, 254, 0, 0, 16), AddressRange::LinkLocal),
    (v4(172, 16, 0, 0, 12), AddressRange::Private),
    (v4(192, 0, 0, 0, 24), AddressRange::ProtocolAssignments),
    (v4(192, 0, 2, 0, 24), AddressRange::Documentation),
    (v4(192, 88, 99, 0, 24), AddressRange::SixToFour),
    (v4(192, 168, 0, 0, 16), AddressRange::Private),
    (v4(198, 18, 0, 0, 15), AddressRange::Benchmarking),
    (v4(198, 51, 100, 0, 24), AddressRange::Documentation),
    (v4(203, 0, 113, 0, 24), AddressRange::Documentation),
    (v4(224, 0, 0, 0, 4), AddressRange::Multicast),
    (v4(255, 255, 255, 255, 32), AddressRange::Broadcast),
    (v4(240, 0, 0, 0, 4), AddressRange::Reserved),
];

/// The IPv6 ranges, as [`IPV4_RANGES`]; IPv4-mapped addresses and the
/// well-known NAT64 prefix are judged by the IPv4 address they carry.
const IPV6_RANGES: [(Ipv6Net, AddressRange); 12] = [
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), AddressRange::Unspecified),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), AddressRange::Loopback),
    (
        v6([0, 0, 0, 0, 0, 0, 0, 0], 96),
        AddressRange::Ipv4Compatible,
    ),
    (
        v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48),
        AddressRange::LocalTranslation,
    ),
    (
        v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64),
        AddressRange::DiscardOnly,
    ),
    (
        v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32),
        AddressRange::Documentation,
    ),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        AddressRange::ProtocolAssignments,
    ),
    (
        v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16),
        AddressRange::SixToFour,
    ),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), AddressRange::Private),
    (
        v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10),
        AddressRange::LinkLocal,
    ),
    (
        v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10),
        AddressRange::SiteLocal,
    ),
    (
        v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8),
        AddressRange::Multicast,
    ),
];

/// The global unicast block: an IPv6 address outside it is not a public
/// host's.
const GLOBAL_UNICAST: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// The well-known NAT64 prefix (RFC 6052): a network that translates it
/// reaches the IPv4 address in its last 32 bits.
const NAT64: Ipv6Net = v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96);

/// The range `address` lies in when it is not a public unicast address,
/// or `None` for a public one. An IPv4-mapped IPv6 address
/// (`::ffff:127.0.0.1`) or a NAT64 one (`64:ff9b::7f00:1`) lies in the
/// range of the IPv4 address it carries, since that is the host it
/// reaches.
pub fn special_range(address: IpAddr) -> Option<AddressRange> {
    match address {
        IpAddr::V4(v4) => ipv4_range(v4),
        IpAddr::V6(v6) => ipv6_range(v6),
    }
}

fn ipv4_range(address: Ipv4Addr) -> Option<AddressRange> {
    IPV4_RANGES
        .iter()
        .find(|(net, _)| net.contains(&address))
        .map(|(_, range)| *range)
}

fn ipv6_range(address: Ipv6Addr) -> Option<AddressRange> {
    if let Some(carried) = address.to_ipv4_mapped() {
        return ipv4_range(carried);
    }
    if NAT64.contains(&address) {
        let [.., a, b, c, d] = address.octets();
        return ipv4_range(Ipv4Addr::new(a, b, c, d));
    }
    IPV6_RANGES
        .iter()
        .find(|(net, _)| net.contains(&address))
        .map(|(_, range)| *range)
        .or_else(|| (!GLOBAL_UNICAST.contains(&address)).then_some(AddressRange::Reserved))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(address: &str) -> Option<AddressRange> {
        special_range(address.parse().unwrap())
    }

    #[test]
    fn every_ipv4_range_is_named() {
        for (address, expected) in [
            ("0.0.0.0", AddressRange::Unspecified),
            ("0.1.2.3", AddressRange::ThisNetwork),
            ("10.0.0.1", AddressRange::Private),
            ("10.255.255.255", AddressRange::Private),
            ("100.64.0.1", AddressRange::SharedCgnat),
            ("100.127.255.254", AddressRange::SharedCgnat),
            ("127.0.0.1", AddressRange::Loopback),
            ("127.255.0.9", AddressRange::Loopback),
            ("169.254.169.254", AddressRange::LinkLocal),
            ("169.254.0.1", AddressRange::LinkLocal),
            ("172.16.0.1", AddressRange::Private),
            ("172.31.255.255", AddressRange::Private),
            ("192.0.0.8", AddressRange::ProtocolAssignments),
            ("192.0.2.10", AddressRange::Documentation),
            ("192.88.99.1", AddressRange::SixToFour),
            ("192.168.1.1", AddressRange::Private),
            ("198.18.0.1", AddressRange::Benchmarking),
            ("198.19.255.255", AddressRange::Benchmarking),
            ("198.51.100.7", AddressRange::Documentation),
            ("203.0.113.7", AddressRange::Documentation),
            ("224.0.0.1", AddressRange::Multicast),
            ("239.255.255.250", AddressRange::Multicast),
            ("240.0.0.1", AddressRange::Reserved),
            ("255.255.255.254", AddressRange::Reserved),
            ("255.255.255.255", AddressRange::Broadcast),
        ] {
            assert_eq!(range(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn every_ipv6_range_is_named() {
        for (address, expected) in [
            ("::", AddressRange::Unspecified),
            ("::1", AddressRange::Loopback),
            ("::7f00:1", AddressRange::Ipv4Compatible),
            ("64:ff9b:1::a00:1", AddressRange::LocalTranslation),
            ("100::1", AddressRange::DiscardOnly),
            ("2001:db8::1", AddressRange::Documentation),
            ("2001::1", AddressRange::ProtocolAssignments),
            ("2002:c000:0204::1", AddressRange::SixToFour),
            ("fc00::1", AddressRange::Private),
            ("fd12:3456:789a::1", AddressRange::Private),
            ("fe80::1", AddressRange::LinkLocal),
            ("febf::1", AddressRange::LinkLocal),
            ("fec0::1", AddressRange::SiteLocal),
            ("ff02::1", AddressRange::Multicast),
            ("4000::1", AddressRange::Reserved),
            ("1::1", AddressRange::Reserved),
        ] {
            assert_eq!(range(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn an_ipv4_address_carried_in_ipv6_is_judged_as_itself() {
        for (address, expected) in [
            ("::ffff:127.0.0.1", Some(AddressRange::Loopback)),
            ("::ffff:10.1.2.3", Some(AddressRange::Private)),
            ("::ffff:172.20.0.1", Some(AddressRange::Private)),
            ("::ffff:192.168.0.1", Some(AddressRange::Private)),
            ("::ffff:169.254.169.254", Some(AddressRange::LinkLocal)),
            ("::ffff:100.64.0.1", Some(AddressRange::SharedCgnat)),
            ("::ffff:0.0.0.0", Some(AddressRange::Unspecified)),
            ("::ffff:224.0.0.1", Some(AddressRange::Multicast)),
            ("::ffff:255.255.255.255", Some(AddressRange::Broadcast)),
            ("64:ff9b::127.0.0.1", Some(AddressRange::Loopback)),
            ("64:ff9b::10.0.0.1", Some(AddressRange::Private)),
            ("::ffff:93.184.215.14", None),
            ("64:ff9b::93.184.215.14", None),
        ] {
            assert_eq!(range(address), expected, "{address}");
        }
    }

    #[test]
    fn public_unicast_addresses_lie_in_no_range() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.215.14",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
            "2001:200::1",
        ] {
            assert_eq!(range(address), None, "{address}");
        }
    }
}
