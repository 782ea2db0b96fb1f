//! Every stable error code can actually be produced through the API: the
//! use cases' codes and those of requests refused on their own.

use std::collections::BTreeSet;

use chrono::Duration;
use kenning_app::ServiceError;
use kenning_domain::Scope;
use kenning_http::{request_codes, HttpConfig};
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{CREATE_USER, DELETE_USER, GET_USERS, REACTIVATE_USER};
use kenning_tests::on_every_backend;
use serde_json::json;

/// The code of a GraphQL error or of a connector problem.
fn code(reply: &Reply) -> String {
    let body = reply.json();
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .or_else(|| body["error"]["code"].as_str())
        .unwrap_or_else(|| panic!("no error code: {}", reply.body))
        .to_owned()
}

#[on_every_backend]
fn every_error_code_can_be_produced(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "every_error_code_can_be_produced") else {
        return;
    };
    let mut seen = BTreeSet::new();
    let id = app.create_user("ada@example.com", "Ada", "Lovelace");
    let key = app.api_key();
    let upload = |alias: &str, email: &str| {
        app.upload(
            &key,
            &json!({
                "entity_type": "chat", "action_type": "post",
                "action_date": "2026-03-01T10:00:00.000Z", "user_email": email,
                "text": "Difference engines", "action_alias": alias,
            }),
        )
    };

    seen.insert(code(&app.graphql_as(
        "kn_tok_unknown",
        GET_USERS,
        json!({}),
    ))); // Unauthenticated
    let reader = app.token(&[Scope::ExpertiseRead]);
    seen.insert(code(&app.graphql_as(&reader, GET_USERS, json!({})))); // Forbidden
    seen.insert(code(&app.graphql(
        REACTIVATE_USER,
        json!({ "globalUserId": "00000000-0000-4000-8000-000000000000" }),
    ))); // NotFound
    let create = |email: &str| {
        app.graphql(
            CREATE_USER,
            json!({ "createUserInput": { "firstname": "A", "lastname": "B", "email": email } }),
        )
    };
    seen.insert(code(&create("not-an-address"))); // ValidationError
    seen.insert(code(&create("ADA@example.com"))); // Conflict
    assert_eq!(upload("chat_post_1", "ada@example.com").status, 201);
    seen.insert(code(&upload("chat_post_1", "ada@example.com"))); // DuplicateAlias
    seen.insert(code(&upload("chat_post_2", "nobody@example.com"))); // UnknownUser
    app.graphql(DELETE_USER, json!({ "globalUserId": id }));
    seen.insert(code(
        &app.graphql(REACTIVATE_USER, json!({ "globalUserId": id })),
    )); // InvalidTransition
    app.advance(Duration::days(14));
    let cancel =
        "mutation c($globalUserId: UUID!) { cancelDelete(globalUserId: $globalUserId) { status } }";
    seen.insert(code(&app.graphql(cancel, json!({ "globalUserId": id })))); // GracePeriodExpired
    app.execute_sql("DROP TABLE standings");
    seen.insert(code(&app.graphql(
        "{ experts(query: \"difference engines\") { score } }",
        json!({}),
    ))); // Internal

    let all: BTreeSet<String> = ServiceError::CODES.iter().map(|c| c.to_string()).collect();
    assert_eq!(seen, all);
}

#[on_every_backend]
fn every_request_code_can_be_produced(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            body_limit: 4096,
            body_timeout: std::time::Duration::from_secs(1),
            max_response_bytes: 4096,
            auth_failures_per_minute: 2,
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "every_request_code_can_be_produced", options)
    else {
        return;
    };
    let mut seen = BTreeSet::new();
    let path = "/accounts/api/v1/graphql";
    let auth = format!("Bearer {}", app.admin_token);
    let post = |content_type: &str, body: &[u8]| {
        app.request(
            "POST",
            path,
            &[("Content-Type", content_type), ("Authorization", &auth)],
            body,
        )
    };
    seen.insert(code(&post("application/json", b"not json"))); // BadRequest
    seen.insert(code(&post("text/plain", b"{}"))); // UnsupportedMediaType
    seen.insert(code(&post("application/json", &[b' '; 5000]))); // PayloadTooLarge
    let slow = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    let answer = app.raw(slow.as_bytes(), std::time::Duration::from_secs(10));
    assert!(answer.contains("\"RequestTimeout\""), "{answer}");
    seen.insert("RequestTimeout".to_owned());
    seen.insert(code(&app.request("GET", "/nothing", &[], b""))); // NotFound
    seen.insert(code(&app.request("DELETE", path, &[], b""))); // MethodNotAllowed
    let answer = app.raw(
        b"BREW /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        std::time::Duration::from_secs(10),
    );
    assert!(answer.contains("\"NotImplemented\""), "{answer}");
    seen.insert("NotImplemented".to_owned());
    let long = format!("/healthz?{}", "a".repeat(9000));
    seen.insert(code(&app.request("GET", &long, &[], b""))); // UriTooLong
    let padding = "p".repeat(17 * 1024);
    seen.insert(code(&app.request(
        "GET",
        "/healthz",
        &[("X-Padding", &padding)],
        b"",
    ))); // HeaderFieldsTooLarge
    seen.insert(code(&app.graphql("{ users { nosuchfield } }", json!({})))); // ValidationError
    let costly = format!(
        "{{ {} }}",
        (0..30)
            .map(|i| format!("a{i}: users(limit: 1000) {{ email }}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    seen.insert(code(&app.graphql(&costly, json!({})))); // QueryTooComplex
    seen.insert(code(&app.graphql(
        "{ __schema { types { name description fields { name description } } } }",
        json!({}),
    ))); // ResponseTooLarge
    for _ in 0..3 {
        app.graphql_as("kn_tok_guess", GET_USERS, json!({}));
    }
    seen.insert(code(&app.graphql_as("kn_tok_guess", GET_USERS, json!({})))); // TooManyRequests

    let all: BTreeSet<String> = request_codes().iter().map(|c| c.to_string()).collect();
    assert_eq!(seen, all);
}
