//! Requests that would build enormous answers are refused before they
//! run: by the cost of their documents, and by the size of the answer.

use kenning_domain::Scope;
use kenning_graphql::Limits;
use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::GET_USERS;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const PATH: &str = "/accounts/api/v1/graphql";

fn post(app: &TestApp, token: &str, body: &Value) -> Reply {
    let auth = format!("Bearer {token}");
    app.request(
        "POST",
        PATH,
        &[
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        body.to_string().as_bytes(),
    )
}

/// One document with `n` aliases of `users(limit: 1000)`.
fn aliases(n: usize) -> String {
    let fields: Vec<String> = (0..n)
        .map(|i| format!("a{i}: users(limit: 1000) {{ globalUserId email firstname lastname }}"))
        .collect();
    format!("{{ {} }}", fields.join(" "))
}

#[on_every_backend]
fn amplifying_batches_are_refused_before_they_run(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "amplifying_batches_are_refused") else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let reader = app.token(&[Scope::UsersRead]);
    // The request of the report: ten documents of 76 aliases each.
    let batch = Value::Array(vec![json!({ "query": aliases(76) }); 10]);
    let reply = post(&app, &reader, &batch);
    assert_eq!(reply.status, 400, "{:.500}", reply.body);
    // Each operation is refused on its own.
    let error = &reply.json()[9]["errors"][0];
    assert_eq!(error["extensions"]["code"], "QueryTooComplex", "{error}");
    assert_eq!(error["extensions"]["limit"], 50_000);
    assert_eq!(error["extensions"]["cost"], 76 * 1000 * 5);
    assert!(reply.body.len() < 10_000);

    // Each document within the limit, the batch beyond it.
    let batch = Value::Array(vec![json!({ "query": aliases(3) }); 10]);
    let reply = post(&app, &reader, &batch);
    assert_eq!(reply.status, 400, "{:.500}", reply.body);
    assert_eq!(
        reply.json()["errors"][0]["extensions"]["code"],
        "QueryTooComplex"
    );
    assert_eq!(reply.json()["errors"][0]["extensions"]["limit"], 100_000);
    assert_eq!(
        reply.json()["errors"][0]["extensions"]["cost"],
        10 * 3 * 5000
    );

    // Fragments count at every spread.
    let fragments = "{ ...A ...A ...A } fragment A on Query { ...B ...B ...B } fragment B on Query { a: users(limit: 1000) { email firstname lastname } b: users(limit: 1000) { email firstname lastname } }";
    let reply = app.graphql(fragments, json!({}));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("QueryTooComplex"),
        "{}",
        reply.body
    );

    // A variable sets the limit it stands for.
    let variable =
        "query q($l: Limit) { a: users(limit: $l) { email } b: users(limit: $l) { email } }";
    let reply = app.graphql(variable, json!({ "l": 1000 }));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = app.graphql(&variable.replace("b: users", "b: users(limit: $l) { email } c: users(limit: $l) { email } d: users(limit: $l) { email } e: users(limit: $l) { email } f: users(limit: $l) { email } g: users(limit: $l) { email } h: users(limit: $l) { email } i: users(limit: $l) { email } j: users(limit: $l) { email } k: users(limit: $l) { email } l: users(limit: $l) { email } m: users(limit: $l) { email } n: users(limit: $l) { email } o: users(limit: $l) { email } p: users(limit: $l) { email } q: users(limit: $l) { email } r: users(limit: $l) { email } s: users(limit: $l) { email } t: users(limit: $l) { email } u: users(limit: $l) { email } v: users(limit: $l) { email } w: users(limit: $l) { email } x: users(limit: $l) { email } y: users(limit: $l) { email } z: users"), json!({ "l": 1000 }));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("QueryTooComplex"),
        "{:.300}",
        reply.body
    );

    // The published documents stay well within the defaults.
    let reply = app.graphql(GET_USERS, json!({ "limit": 1000 }));
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[on_every_backend]
fn answers_beyond_the_size_limit_are_refused(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            max_response_bytes: 4096,
            ..HttpConfig::default()
        },
        limits: Limits {
            cost: 1_000_000,
            ..Limits::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "answers_beyond_the_size_limit", options) else {
        return;
    };
    for i in 0..40 {
        app.create_user(&format!("user{i}@example.com"), "Ada", "Lovelace");
    }
    let small = app.graphql("{ users(limit: 2) { email } }", json!({}));
    assert_eq!(small.status, 200, "{}", small.body);
    let large = app.graphql(GET_USERS, json!({}));
    assert_eq!(large.status, 400, "{:.300}", large.body);
    assert_eq!(large.error_code().as_deref(), Some("ResponseTooLarge"));
    assert!(large.body.len() < 1024);
}
