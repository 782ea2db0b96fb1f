//! The address of the client behind a request: the connection's peer, or,
//! when the peer is a proxy the operator trusts, the address that proxy
//! (and the trusted ones before it) say they received the request from.

use std::net::{IpAddr, SocketAddr};

use actix_web::http::header::HeaderMap;
use actix_web::HttpRequest;
use ipnet::IpNet;

/// The proxies whose forwarding headers are believed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Trusts the addresses in `networks`.
    pub fn new(networks: Vec<IpNet>) -> Self {
        Self(networks)
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client of `req` (see [`client_address`](Self::client_address)).
    pub fn client_of(&self, req: &HttpRequest) -> Option<IpAddr> {
        let peer = req.peer_addr()?.ip();
        Some(self.client_address(peer, req.headers()))
    }

    /// The client of a request that arrived from `peer` with `headers`.
    ///
    /// From a peer that is not trusted, the peer: whatever its forwarding
    /// headers say is ignored, since anyone can write them. From a trusted
    /// peer, the hops of `Forwarded` (RFC 7239, its `for=` parameters), or
    /// of `X-Forwarded-For` when there is no `Forwarded`, are read from the
    /// right, each appended by the proxy that received the request from
    /// it: the first hop that is not itself a trusted proxy is the client.
    /// When every hop is trusted, the leftmost is. A hop that is not an
    /// address (`unknown`, an obfuscated name, garbage) ends the walk at
    /// the trusted proxy that wrote it.
    pub fn client_address(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let hops = forwarded_hops(headers);
        let mut client = peer;
        for hop in hops.iter().rev() {
            match hop {
                Some(address) => {
                    client = *address;
                    if !self.trusts(*address) {
                        return client;
                    }
                }
                None => return client,
            }
        }
        client
    }
}

/// The hops of the request, leftmost (farthest from Kenning) first, each
/// an address or `None` when it is not one.
fn forwarded_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let forwarded: Vec<&str> = headers
        .get_all("forwarded")
        .filter_map(|v| v.to_str().ok())
        .collect();
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .flat_map(|line| line.split(','))
            .filter_map(|element| {
                element.split(';').find_map(|pair| {
                    let (key, value) = pair.split_once('=')?;
                    key.trim()
                        .eq_ignore_ascii_case("for")
                        .then(|| node_address(value.trim().trim_matches('"')))
                })
            })
            .collect();
    }
    headers
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|line| line.split(','))
        .map(|hop| node_address(hop.trim()))
        .collect()
}

/// An address as a forwarding header writes it: `192.0.2.1`,
/// `192.0.2.1:4711`, `2001:db8::1`, or `[2001:db8::1]:4711`.
fn node_address(node: &str) -> Option<IpAddr> {
    node.parse::<IpAddr>()
        .ok()
        .or_else(|| node.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| {
            node.strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|inner| inner.parse().ok())
        })
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn proxies() -> TrustedProxies {
        TrustedProxies::new(vec![
            "10.0.0.0/8".parse().unwrap(),
            "fd00::/8".parse().unwrap(),
        ])
    }

    #[test]
    fn headers_from_an_untrusted_peer_are_ignored() {
        let forged = headers(&[
            ("x-forwarded-for", "198.51.100.7"),
            ("forwarded", "for=1.2.3.4"),
        ]);
        assert_eq!(
            proxies().client_address(ip("203.0.113.9"), &forged),
            ip("203.0.113.9")
        );
        assert_eq!(
            TrustedProxies::default().client_address(ip("10.0.0.1"), &forged),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let trusted = proxies();
        // A client that forges a first hop cannot choose its address.
        let xff = headers(&[("x-forwarded-for", "6.6.6.6, 198.51.100.7, 10.1.1.1")]);
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &xff),
            ip("198.51.100.7")
        );
        // Several header lines read as one list.
        let lines = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "198.51.100.7"),
        ]);
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &lines),
            ip("198.51.100.7")
        );
        let forwarded = headers(&[(
            "forwarded",
            r#"for=6.6.6.6, For="[2001:db8:cafe::17]:4711";proto=https, for=10.9.9.9;by=10.0.0.2"#,
        )]);
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &forwarded),
            ip("2001:db8:cafe::17")
        );
        // Forwarded wins over X-Forwarded-For.
        let both = headers(&[
            ("forwarded", "for=192.0.2.60"),
            ("x-forwarded-for", "6.6.6.6"),
        ]);
        assert_eq!(
            trusted.client_address(ip("fd00::1"), &both),
            ip("192.0.2.60")
        );
    }

    #[test]
    fn hops_that_are_not_addresses_stop_at_the_proxy_that_wrote_them() {
        let trusted = proxies();
        for unreadable in [
            headers(&[("forwarded", "for=unknown")]),
            headers(&[("forwarded", "for=_hidden, for=10.3.3.3")]),
            headers(&[("x-forwarded-for", "not an address")]),
        ] {
            let client = trusted.client_address(ip("10.0.0.2"), &unreadable);
            assert!(trusted.trusts(client), "{unreadable:?}: {client}");
        }
        // No hops at all: the proxy itself.
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &HeaderMap::new()),
            ip("10.0.0.2")
        );
        // Every hop trusted: the leftmost.
        let inside = headers(&[("x-forwarded-for", "10.5.5.5, 10.1.1.1")]);
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &inside),
            ip("10.5.5.5")
        );
        assert_eq!(node_address("192.0.2.1:80"), Some(ip("192.0.2.1")));
        assert_eq!(node_address("[::1]"), Some(ip("::1")));
    }
}
