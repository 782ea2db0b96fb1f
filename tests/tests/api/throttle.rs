//! Failed authentications are limited per client address, requests per
//! credential: beyond the limit, 429 with Retry-After.

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
