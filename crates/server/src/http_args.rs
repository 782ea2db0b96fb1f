//! The settings of the HTTP layer and the GraphQL limits, as flags and
//! environment variables of `kenning serve`. docs/operations.md describes
//! each one.

use clap::Args;
use kenning_graphql::Limits;
use kenning_http::{HttpConfig, MetricsEndpoint};

#[derive(Debug, Args)]
pub struct HttpArgs {
    /// Largest request body in bytes; larger ones get 413.
    #[arg(long, env = "KENNING_BODY_LIMIT", default_value_t = HttpConfig::default().body_limit)]
    body_limit: usize,
    /// Longest request line (method, target, version) in bytes; longer
    /// ones get 414.
    #[arg(long, env = "KENNING_MAX_REQUEST_LINE",
          default_value_t = HttpConfig::default().max_request_line)]
    max_request_line: usize,
    /// Most bytes of request headers in all; more gets 431.
    #[arg(long, env = "KENNING_MAX_HEADER_BYTES",
          default_value_t = HttpConfig::default().max_header_bytes)]
    max_header_bytes: usize,
    /// Where GET /metrics is served: `main` (the API's address), `off`, or
    /// a separate HOST:PORT.
    #[arg(long, env = "KENNING_METRICS", default_value = "main")]
    metrics: MetricsEndpoint,
}

impl HttpArgs {
    /// The HTTP settings and the GraphQL document limits.
    pub fn config(self) -> (HttpConfig, Limits) {
        let http = HttpConfig {
            body_limit: self.body_limit,
            max_request_line: self.max_request_line,
            max_header_bytes: self.max_header_bytes,
            metrics: self.metrics,
            ..HttpConfig::default()
        };
        (http, Limits::default())
    }
}
