//! Security headers on every response, and CORS: off unless origins are
//! configured, then answering preflights for those origins only.

use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::GET_USERS;
use kenning_tests::on_every_backend;
use serde_json::json;

const PATH: &str = "/accounts/api/v1/graphql";
const ORIGIN: &str = "https://app.example.com";

fn assert_secured(what: &str, reply: &Reply) {
    assert_eq!(
        reply.header("X-Content-Type-Options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        reply.header("Referrer-Policy"),
        Some("no-referrer"),
        "{what}"
    );
    assert_eq!(reply.header("X-Frame-Options"), Some("DENY"), "{what}");
}

fn preflight(app: &TestApp, origin: &str) -> Reply {
    app.request(
        "OPTIONS",
        PATH,
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "authorization, content-type",
            ),
        ],
        b"",
    )
}

#[on_every_backend]
fn every_response_carries_the_security_headers(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "every_response_carries_the_security_headers") else {
        return;
    };
    let answers = [
        ("graphql", app.graphql(GET_USERS, json!({}))),
        (
            "401",
            app.graphql_as("kn_tok_nonsense", GET_USERS, json!({})),
        ),
        ("404", app.request("GET", "/nothing", &[], b"")),
        (
            "414",
            app.request("GET", &format!("/healthz?{}", "a".repeat(9000)), &[], b""),
        ),
        ("healthz", app.request("GET", "/healthz", &[], b"")),
        ("metrics", app.request("GET", "/metrics", &[], b"")),
        ("upload", app.upload("kn_key_nonsense", &json!({}))),
    ];
    for (what, reply) in &answers {
        assert_secured(what, reply);
        assert_eq!(reply.header("Cache-Control"), Some("no-store"), "{what}");
    }
    let page = app.request("GET", PATH, &[], b"");
    assert_secured("page", &page);
    assert!(page.header("Content-Security-Policy").is_some());
    let asset = app.request("GET", "/accounts/api/v1/graphiql/graphiql.min.js", &[], b"");
    assert_secured("asset", &asset);
    assert!(asset.header("Cache-Control").unwrap().starts_with("public"));
}

#[on_every_backend]
fn cors_is_off_by_default(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "cors_is_off_by_default") else {
        return;
    };
    let reply = preflight(&app, ORIGIN);
    assert!(
        reply.header("Access-Control-Allow-Origin").is_none(),
        "{reply:?}"
    );
    let auth = format!("Bearer {}", app.admin_token);
    let post = app.request(
        "POST",
        PATH,
        &[
            ("Origin", ORIGIN),
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        json!({ "query": GET_USERS }).to_string().as_bytes(),
    );
    assert_eq!(post.status, 200);
    assert!(post.header("Access-Control-Allow-Origin").is_none());
}

#[on_every_backend]
fn cors_answers_the_configured_origins(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            cors_origins: vec![ORIGIN.parse().unwrap()],
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "cors_answers_the_configured_origins", options)
    else {
        return;
    };
    let reply = preflight(&app, ORIGIN);
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.header("Access-Control-Allow-Origin"), Some(ORIGIN));
    assert!(reply
        .header("Access-Control-Allow-Methods")
        .unwrap()
        .contains("POST"));
    let headers = reply
        .header("Access-Control-Allow-Headers")
        .unwrap()
        .to_lowercase();
    assert!(
        headers.contains("authorization") && headers.contains("content-type"),
        "{headers}"
    );

    let auth = format!("Bearer {}", app.admin_token);
    let post = app.request(
        "POST",
        PATH,
        &[
            ("Origin", ORIGIN),
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        json!({ "query": GET_USERS }).to_string().as_bytes(),
    );
    assert_eq!(post.status, 200, "{}", post.body);
    assert_eq!(post.header("Access-Control-Allow-Origin"), Some(ORIGIN));

    // Another origin gets no permission, and the API still answers
    // same-origin calls (which browsers send with an Origin too).
    let other = preflight(&app, "https://evil.example.net");
    assert!(
        other.header("Access-Control-Allow-Origin").is_none(),
        "{other:?}"
    );
    let same = app.request(
        "POST",
        PATH,
        &[
            ("Origin", &app.base),
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        json!({ "query": GET_USERS }).to_string().as_bytes(),
    );
    assert_eq!(same.status, 200, "{}", same.body);
}
