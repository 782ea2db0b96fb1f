//! Failed authentications are limited per client address (behind a
//! trusted proxy, the address it forwards), requests per credential:
//! beyond the limit, 429 with Retry-After.

use kenning_domain::Scope;
use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::GET_USERS;
use kenning_tests::on_every_backend;
use serde_json::json;

fn limited(auth_failures_per_minute: u32, requests_per_minute: u32) -> Options {
    Options {
        http: HttpConfig {
            auth_failures_per_minute,
            requests_per_minute,
            ..HttpConfig::default()
        },
        ..Options::default()
    }
}

fn retry_after(reply: &Reply) -> u64 {
    reply
        .header("Retry-After")
        .unwrap_or_else(|| panic!("no Retry-After: {reply:?}"))
        .parse()
        .unwrap()
}

#[on_every_backend]
fn failed_authentications_are_throttled_per_address(backend: Backend) {
    let Some(app) = TestApp::spawn_with(
        backend,
        "failed_authentications_are_throttled",
        limited(3, 0),
    ) else {
        return;
    };
    for _ in 0..3 {
        let reply = app.graphql_as("kn_tok_guess", GET_USERS, json!({}));
        assert_eq!(reply.status, 401, "{}", reply.body);
    }
    let reply = app.graphql_as("kn_tok_guess", GET_USERS, json!({}));
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert_eq!(reply.error_code().as_deref(), Some("TooManyRequests"));
    // One failure a 20 seconds: the next is allowed in at most 20.
    assert!((1..=20).contains(&retry_after(&reply)));
    // While the address is throttled, no secret is even looked at, not
    // even a good one, so guessing gains nothing; nor through the
    // connector.
    let good = app.graphql(GET_USERS, json!({}));
    assert_eq!(good.status, 429, "{}", good.body);
    let upload = app.upload("kn_key_guess", &json!({}));
    assert_eq!(upload.status, 429, "{}", upload.body);
    assert_eq!(upload.json()["error"]["code"], "TooManyRequests");
    assert!(upload.header("Retry-After").is_some());
    // Requests without any credential count as failures too.
    let bare = app.request(
        "POST",
        "/accounts/api/v1/graphql",
        &[("Content-Type", "application/json")],
        b"{}",
    );
    assert_eq!(bare.status, 429);
}

#[on_every_backend]
fn each_credential_has_a_request_rate(backend: Backend) {
    let Some(app) =
        TestApp::spawn_with(backend, "each_credential_has_a_request_rate", limited(0, 5))
    else {
        return;
    };
    let reader = app.token(&[Scope::UsersRead]);
    for _ in 0..5 {
        let reply = app.graphql_as(&reader, GET_USERS, json!({}));
        assert_eq!(reply.status, 200, "{}", reply.body);
    }
    let reply = app.graphql_as(&reader, GET_USERS, json!({}));
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert_eq!(reply.error_code().as_deref(), Some("TooManyRequests"));
    assert!((1..=12).contains(&retry_after(&reply)));
    // Another credential keeps its own rate.
    let other = app.graphql(GET_USERS, json!({}));
    assert_eq!(other.status, 200, "{}", other.body);
}

#[on_every_backend]
fn behind_a_trusted_proxy_each_client_is_throttled_alone(backend: Backend) {
    let mut options = limited(2, 0);
    options.http.trusted_proxies =
        kenning_http::TrustedProxies::new(vec!["127.0.0.0/8".parse().unwrap()]);
    let Some(app) = TestApp::spawn_with(backend, "behind_a_trusted_proxy", options) else {
        return;
    };
    let failing = |forwarded: &[(&str, &str)]| {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer kn_tok_guess"),
        ];
        headers.extend_from_slice(forwarded);
        app.request(
            "POST",
            "/accounts/api/v1/graphql",
            &headers,
            b"{\"query\":\"{ users { email } }\"}",
        )
        .status
    };
    let script = [("X-Forwarded-For", "198.51.100.1")];
    assert_eq!(
        [failing(&script), failing(&script), failing(&script)],
        [401, 401, 429]
    );
    // Another client behind the same proxy is not locked out, in either
    // header's form, nor is a client that forges a first hop.
    let other = [("Forwarded", "for=\"[2001:db8::7]:4711\";proto=https")];
    assert_eq!(failing(&other), 401);
    let forged = [("X-Forwarded-For", "203.0.113.5, 198.51.100.9")];
    assert_eq!([failing(&forged), failing(&forged)], [401, 401]);
    assert_eq!(
        failing(&[("X-Forwarded-For", "203.0.113.5, 198.51.100.1")]),
        429
    );
    let good = app.graphql(GET_USERS, json!({}));
    assert_eq!(good.status, 200, "{}", good.body);
}

#[on_every_backend]
fn forwarding_headers_from_anyone_else_are_ignored(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, "forwarding_headers_ignored", limited(2, 0))
    else {
        return;
    };
    let failing = |client: &str| {
        app.request(
            "POST",
            "/accounts/api/v1/graphql",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", "Bearer kn_tok_guess"),
                ("X-Forwarded-For", client),
                ("Forwarded", &format!("for={client}")),
            ],
            b"{\"query\":\"{ users { email } }\"}",
        )
        .status
    };
    // Each request claims another client: all are the peer's failures.
    assert_eq!(
        [
            failing("198.51.100.1"),
            failing("198.51.100.2"),
            failing("198.51.100.3")
        ],
        [401, 401, 429]
    );
}
