//! The settings of the HTTP layer and the GraphQL limits, as flags and
//! environment variables of `kenning serve`. docs/operations.md describes
//! each one.

use std::net::IpAddr;
use std::time::Duration;

use clap::Args;
use ipnet::IpNet;
use kenning_graphql::Limits;
use kenning_http::{AllowedOrigin, HttpConfig, MetricsEndpoint, TrustedProxies};

#[derive(Debug, Args)]
pub struct HttpArgs {
    /// Largest request body in bytes; larger ones get 413.
    #[arg(long, env = "KENNING_BODY_LIMIT", default_value_t = HttpConfig::default().body_limit)]
    body_limit: usize,
    /// Seconds a request body may take to arrive whole; a slower one gets
    /// 408.
    #[arg(long, env = "KENNING_BODY_TIMEOUT_SECS",
          default_value_t = HttpConfig::default().body_timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout_secs: u64,
    /// Longest request line (method, target, version) in bytes; longer
    /// ones get 414.
    #[arg(long, env = "KENNING_MAX_REQUEST_LINE",
          default_value_t = HttpConfig::default().max_request_line)]
    max_request_line: usize,
    /// Most bytes of request headers in all; more gets 431.
    #[arg(long, env = "KENNING_MAX_HEADER_BYTES",
          default_value_t = HttpConfig::default().max_header_bytes)]
    max_header_bytes: usize,
    /// Largest GraphQL answer in bytes; a larger one is refused (400
    /// ResponseTooLarge).
    #[arg(long, env = "KENNING_MAX_RESPONSE_BYTES",
          default_value_t = HttpConfig::default().max_response_bytes)]
    max_response_bytes: usize,
    /// Most operations in one batched GraphQL request.
    #[arg(long, env = "KENNING_MAX_BATCH", default_value_t = HttpConfig::default().max_batch)]
    max_batch: usize,
    /// Most uploads in one request to the connector's batch endpoint.
    #[arg(long, env = "KENNING_UPLOAD_BATCH_ITEMS",
          default_value_t = HttpConfig::default().batch_items,
          value_parser = batch_items)]
    upload_batch_items: usize,
    /// Largest body of a request to the connector's batch endpoint in
    /// bytes; larger ones get 413.
    #[arg(long, env = "KENNING_UPLOAD_BATCH_BODY_LIMIT",
          default_value_t = HttpConfig::default().batch_body_limit)]
    upload_batch_body_limit: usize,
    /// Deepest nesting of a GraphQL document.
    #[arg(long, env = "KENNING_MAX_QUERY_DEPTH", default_value_t = Limits::default().depth)]
    max_query_depth: usize,
    /// Most tokens in a GraphQL document.
    #[arg(long, env = "KENNING_MAX_QUERY_TOKENS", default_value_t = Limits::default().tokens)]
    max_query_tokens: usize,
    /// Most fields in a GraphQL operation, a fragment counted at each
    /// spread.
    #[arg(long, env = "KENNING_MAX_QUERY_FIELDS", default_value_t = Limits::default().fields)]
    max_query_fields: usize,
    /// Highest cost of one GraphQL operation (fields times the items of
    /// list fields); costlier ones are refused before they run.
    #[arg(long, env = "KENNING_MAX_QUERY_COST", default_value_t = Limits::default().cost)]
    max_query_cost: u64,
    /// Highest cost of all the operations of one batch together.
    #[arg(long, env = "KENNING_MAX_BATCH_COST", default_value_t = Limits::default().batch_cost)]
    max_batch_cost: u64,
    /// Largest `offset` of the GraphQL `users` query; a larger one is a
    /// ValidationError pointing to `usersConnection`, which pages by
    /// cursor at the same cost however deep.
    #[arg(long, env = "KENNING_MAX_OFFSET", default_value_t = Limits::default().max_offset)]
    max_offset: u32,
    /// Failed authentications a client address may make a minute (as
    /// many at once), then 429; 0 turns the limit off.
    #[arg(long, env = "KENNING_AUTH_FAILURES_PER_MINUTE",
          default_value_t = HttpConfig::default().auth_failures_per_minute)]
    auth_failures_per_minute: u32,
    /// Requests one credential may send a minute (as many at once), then
    /// 429; as many one web session may, or one client address without
    /// one; 0 turns the limit off.
    #[arg(long, env = "KENNING_REQUESTS_PER_MINUTE",
          default_value_t = HttpConfig::default().requests_per_minute)]
    requests_per_minute: u32,
    /// A reverse proxy in front of Kenning, as an address (10.0.0.5) or a
    /// network (10.0.0.0/8, fd00::/8); repeat (or separate with commas in
    /// the environment) for several. From these, the client address a
    /// failed authentication is charged to is read from `Forwarded` or
    /// `X-Forwarded-For` (the rightmost hop that is not a trusted proxy);
    /// from anyone else those headers are ignored. None: every client is
    /// the connection's peer.
    #[arg(
        long = "trusted-proxy",
        env = "KENNING_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_parser = proxy_network
    )]
    trusted_proxies: Vec<IpNet>,
    /// An origin browsers may call the API from (CORS), such as
    /// https://app.example.com; repeat (or separate with commas in the
    /// environment) for several. None: CORS off.
    #[arg(
        long = "cors-origin",
        env = "KENNING_CORS_ORIGINS",
        value_delimiter = ','
    )]
    cors_origins: Vec<AllowedOrigin>,
    /// Where GET /metrics is served: `main` (the API's address), `off`, or
    /// a separate HOST:PORT.
    #[arg(long, env = "KENNING_METRICS", default_value = "main")]
    metrics: MetricsEndpoint,
}

/// A proxy's address or network: `10.0.0.5` (that address alone),
/// `10.0.0.0/8`, `fd00::/8`.
fn proxy_network(raw: &str) -> Result<IpNet, String> {
    let raw = raw.trim();
    raw.parse::<IpNet>()
        .or_else(|_| raw.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| "must be an IP address or a network such as 10.0.0.0/8".to_owned())
}

/// The most uploads a batch may be set to hold.
const MOST_BATCH_ITEMS: usize = 10_000;

/// A number of uploads per batch: 1 to [`MOST_BATCH_ITEMS`].
fn batch_items(raw: &str) -> Result<usize, String> {
    match raw.trim().parse::<usize>() {
        Ok(n) if (1..=MOST_BATCH_ITEMS).contains(&n) => Ok(n),
        _ => Err(format!(
            "must be a whole number from 1 to {MOST_BATCH_ITEMS}"
        )),
    }
}

impl HttpArgs {
    /// The HTTP settings and the GraphQL document limits.
    pub fn config(self) -> (HttpConfig, Limits) {
        let http = HttpConfig {
            body_limit: self.body_limit,
            body_timeout: Duration::from_secs(self.body_timeout_secs),
            max_batch: self.max_batch,
            batch_items: self.upload_batch_items,
            batch_body_limit: self.upload_batch_body_limit,
            max_request_line: self.max_request_line,
            max_header_bytes: self.max_header_bytes,
            max_response_bytes: self.max_response_bytes,
            metrics: self.metrics,
            auth_failures_per_minute: self.auth_failures_per_minute,
            trusted_proxies: TrustedProxies::new(self.trusted_proxies),
            requests_per_minute: self.requests_per_minute,
            cors_origins: self.cors_origins,
        };
        let limits = Limits {
            depth: self.max_query_depth,
            tokens: self.max_query_tokens,
            fields: self.max_query_fields,
            cost: self.max_query_cost,
            batch_cost: self.max_batch_cost,
            max_offset: self.max_offset,
        };
        (http, limits)
    }
}
