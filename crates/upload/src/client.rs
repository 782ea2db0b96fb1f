//! The one HTTP client of the server's APIs: every request of `kenning
//! upload`, `kenning connect` and `kenning demo` goes through [`Client`],
//! which names the routes, carries the credential and reads every answer.

use std::time::Duration;

use serde_json::Value;

/// The routes the connectors call, below the server's address.
pub mod route {
    /// Uploads, up to the server's batch limit at once.
    pub const BATCH: &str = "/connectors/api/v1/entities-with-action/batch";
    /// Which users a source's identities are.
    pub const PEOPLE: &str = "/connectors/api/v1/people";
    /// How a connector's run went.
    pub const RUNS: &str = "/connectors/api/v1/runs";
    /// GraphQL, for `kenning demo`'s people.
    pub const GRAPHQL: &str = "/accounts/api/v1/graphql";
}

/// How long a request may take, the answer read.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The largest answer read (a batch's results).
const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// What a request carries to say who sends it.
#[derive(Debug, Clone)]
enum Key {
    /// A connector API key, in the `APIKEY` header.
    Api(String),
    /// An access token, as `Authorization: Bearer`.
    Bearer(String),
}

/// The server at `base`, asked with `key`.
#[derive(Debug, Clone)]
pub struct Client {
    base: String,
    key: Key,
    agent: ureq::Agent,
}

/// The server's answer to one request.
#[derive(Debug, Clone)]
pub struct Answer {
    /// Its HTTP status.
    pub status: u16,
    /// Its `Retry-After`, in seconds.
    pub retry_after: Option<Duration>,
    /// Its body, `Null` when it is not JSON.
    pub body: Value,
    /// Its body as sent.
    pub text: String,
}

impl Answer {
    /// The code of its error envelope, if it has one.
    pub fn code(&self) -> Option<&str> {
        self.body["error"]["code"].as_str()
    }

    /// Its error's message, else its body as sent.
    pub fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or(&self.text)
    }
}

/// Why a request has no answer (the server could not be reached, or the
/// answer could not be read), in one line.
#[derive(Debug, Clone)]
pub struct NoAnswer(pub String);

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoAnswer {}

impl Client {
    /// The server at `base` (a trailing slash is dropped) with the
    /// connector API key `key` (surrounding blanks dropped); warns, once,
    /// when the key would cross a network in the clear.
    pub fn new(base: &str, key: &str) -> Self {
        Self::with(base, Key::Api(key.trim().to_owned()))
    }

    /// The server at `base` with the access token `token`.
    pub fn with_token(base: &str, token: &str) -> Self {
        Self::with(base, Key::Bearer(token.trim().to_owned()))
    }

    fn with(base: &str, key: Key) -> Self {
        let base = base.trim_end_matches('/').to_owned();
        warn_if_in_the_clear(&base);
        // Answers of every status are read, not errors, and no redirect is
        // followed, so the credential (a header of the request) never
        // reaches another address than the one named; a redirect is an
        // answer like any other, whose status the caller reports.
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(TIMEOUT))
            .build()
            .into();
        Self { base, key, agent }
    }

    /// The server's address, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Posts `body` as JSON to `route` (one of [`route`]).
    pub fn post(&self, route: &str, body: &Value) -> Result<Answer, NoAnswer> {
        let url = format!("{}{route}", self.base);
        let request = self
            .agent
            .post(&url)
            .header("Content-Type", "application/json");
        let request = match &self.key {
            Key::Api(key) => request.header("APIKEY", key),
            Key::Bearer(token) => request.header("Authorization", &format!("Bearer {token}")),
        };
        let mut response = request
            .send(body.to_string())
            .map_err(|e| NoAnswer(format!("cannot reach {url}: {e}")))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok())
            .map(Duration::from_secs);
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_string()
            .map_err(|e| NoAnswer(format!("no answer from {url}: {e}")))?;
        Ok(Answer {
            status,
            retry_after,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
        })
    }
}

/// Says once on standard error that the credential goes over plain HTTP
/// when `base` is `http://` to a host that is not this machine.
fn warn_if_in_the_clear(base: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if in_the_clear(base) {
        WARNED.call_once(|| {
            eprintln!(
                "warning: {base} is plain HTTP to another machine: the API key and every upload \
                 cross the network unencrypted; use https://"
            );
        });
    }
}

/// Whether `base` is `http://` to a host other than a loopback address.
fn in_the_clear(base: &str) -> bool {
    let scheme_end = base.find("://").unwrap_or(0);
    if !base[..scheme_end].eq_ignore_ascii_case("http") {
        return false;
    }
    let rest = &base[scheme_end + 3..];
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !loopback
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_is_in_the_clear_off_this_machine_only() {
        assert!(in_the_clear("http://kenning.example.com"));
        assert!(in_the_clear("HTTP://kenning.example.com"));
        assert!(in_the_clear("http://10.0.0.5:8080/"));
        assert!(!in_the_clear("http://127.0.0.1:8080"));
        assert!(!in_the_clear("http://localhost:8080"));
        assert!(!in_the_clear("http://[::1]:8080"));
        assert!(!in_the_clear("https://kenning.example.com"));
    }
}
