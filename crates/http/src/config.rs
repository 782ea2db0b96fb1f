//! The settings of the HTTP layer.

use std::str::FromStr;
use std::time::Duration;

use crate::client::TrustedProxies;

/// Where `GET /metrics` is served.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MetricsEndpoint {
    /// On the API's own address.
    #[default]
    Main,
    /// Nowhere.
    Off,
    /// Only on this separate `HOST:PORT`, which the API's address then no
    /// longer answers for `/metrics`.
    Separate(String),
}

impl FromStr for MetricsEndpoint {
    type Err = String;

    /// `main`, `off`, or a `HOST:PORT` to listen on.
    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        match raw.trim() {
            "main" => Ok(Self::Main),
            "off" => Ok(Self::Off),
            address
                if address.rsplit_once(':').is_some_and(|(host, port)| {
                    !host.is_empty() && port.parse::<u16>().is_ok()
                }) =>
            {
                Ok(Self::Separate(address.to_owned()))
            }
            other => Err(format!("{other:?} is not main, off or HOST:PORT")),
        }
    }
}

/// An origin browsers may call the API from (CORS): `http://` or
/// `https://`, a host and an optional port, nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedOrigin(String);

impl AllowedOrigin {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for AllowedOrigin {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let origin = raw.trim().trim_end_matches('/');
        let wrong = || format!("{raw:?} is not an origin such as https://app.example.com");
        let uri: actix_web::http::Uri = origin.parse().map_err(|_| wrong())?;
        let scheme_ok = matches!(uri.scheme_str(), Some("http" | "https"));
        let bare = uri
            .path_and_query()
            .is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/");
        match uri.authority() {
            Some(authority) if scheme_ok && bare && !authority.as_str().contains('@') => {
                Ok(Self(origin.to_ascii_lowercase()))
            }
            _ => Err(wrong()),
        }
    }
}

/// Limits of the HTTP layer.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The largest request body accepted, in bytes; larger ones get 413.
    pub body_limit: usize,
    /// How long a request body may take to arrive whole; a slower one gets
    /// 408.
    pub body_timeout: Duration,
    /// The most operations one batched GraphQL request may hold.
    pub max_batch: usize,
    /// The most uploads one request to the connector's batch endpoint may
    /// hold.
    pub batch_items: usize,
    /// The largest body of a request to the connector's batch endpoint, in
    /// bytes; larger ones get 413.
    pub batch_body_limit: usize,
    /// The longest request line (method, target and version), in bytes;
    /// longer ones get 414.
    pub max_request_line: usize,
    /// The most bytes of header fields (names and values) a request may
    /// send; more gets 431.
    pub max_header_bytes: usize,
    /// The largest GraphQL answer sent, in bytes; a larger one is refused
    /// with 400 `ResponseTooLarge` instead.
    pub max_response_bytes: usize,
    /// Where the Prometheus metrics are served.
    pub metrics: MetricsEndpoint,
    /// Failed authentications a client address may make a minute (as many
    /// at once), a session the web app refuses counted as one; beyond them
    /// it gets 429 until its rate allows one more. 0: no limit.
    pub auth_failures_per_minute: u32,
    /// The reverse proxies whose `Forwarded` and `X-Forwarded-For` name
    /// the client a failed authentication is charged to (and the access
    /// log shows); from anyone else those headers are ignored.
    pub trusted_proxies: TrustedProxies,
    /// Requests a credential may send a minute (as many at once); beyond
    /// them 429. As many to the web app per session, or per client address
    /// for requests without one. 0: no limit.
    pub requests_per_minute: u32,
    /// The origins browsers may call the API from; none (the default)
    /// turns CORS off, so browsers allow only same-origin calls.
    pub cors_origins: Vec<AllowedOrigin>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            body_limit: 1024 * 1024,
            body_timeout: Duration::from_secs(10),
            max_batch: 10,
            batch_items: 100,
            batch_body_limit: 16 * 1024 * 1024,
            max_request_line: 8 * 1024,
            max_header_bytes: 16 * 1024,
            max_response_bytes: 32 * 1024 * 1024,
            metrics: MetricsEndpoint::Main,
            auth_failures_per_minute: 30,
            trusted_proxies: TrustedProxies::default(),
            requests_per_minute: 6_000,
            cors_origins: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_endpoints_parse() {
        assert_eq!("main".parse(), Ok(MetricsEndpoint::Main));
        assert_eq!("off".parse(), Ok(MetricsEndpoint::Off));
        assert_eq!(
            "127.0.0.1:9090".parse(),
            Ok(MetricsEndpoint::Separate("127.0.0.1:9090".to_owned()))
        );
        assert!("9090".parse::<MetricsEndpoint>().is_err());
        assert!("on".parse::<MetricsEndpoint>().is_err());
    }

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        let origin: AllowedOrigin = "https://App.example.com/".parse().unwrap();
        assert_eq!(origin.as_str(), "https://app.example.com");
        assert!("http://localhost:3000".parse::<AllowedOrigin>().is_ok());
        for wrong in [
            "*",
            "app.example.com",
            "ftp://x.org",
            "https://x.org/path",
            "https://u@x.org",
            "",
        ] {
            assert!(wrong.parse::<AllowedOrigin>().is_err(), "{wrong}");
        }
    }
}
