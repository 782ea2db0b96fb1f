//! What the HTTP layer answers before and around GraphQL: credentials,
//! scopes, malformed requests, limits, and the operational routes.

use diesel::{Connection, RunQueryDsl};
use kenning_domain::{CredentialKind, Scope};
use kenning_graphql::Limits;
use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{CREATE_USER, DELETE_USER, GET_USERS};
use kenning_tests::on_every_backend;
use serde_json::json;

const PATH: &str = "/accounts/api/v1/graphql";

fn post(app: &TestApp, content_type: &str, body: &[u8]) -> Reply {
    let auth = format!("Bearer {}", app.admin_token);
    app.request(
        "POST",
        PATH,
        &[("Content-Type", content_type), ("Authorization", &auth)],
        body,
    )
}

fn code(reply: &Reply) -> String {
    reply.error_code().unwrap_or_default()
}

#[on_every_backend]
fn tokens_are_required_and_checked(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "tokens_are_required_and_checked") else {
        return;
    };
    let body = json!({ "query": GET_USERS }).to_string();
    let send = |headers: &[(&str, &str)]| {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        app.request("POST", PATH, &all, body.as_bytes())
    };
    let revoked = app.token(&Scope::ALL);
    let id = app
        .services
        .credentials
        .list(CredentialKind::AccessToken)
        .unwrap()
        .into_iter()
        .find(|c| c.name == "test")
        .unwrap()
        .id;
    app.services
        .credentials
        .revoke(CredentialKind::AccessToken, id)
        .unwrap();
    let revoked = format!("Bearer {revoked}");
    let key = format!("Bearer {}", app.api_key());
    let truncated = format!("Bearer {}", &app.admin_token[..app.admin_token.len() - 1]);
    for headers in [
        vec![],
        vec![("Authorization", "Bearer")],
        vec![("Authorization", "Basic YWRhOnB3")],
        vec![("Authorization", "Bearer kn_tok_nonsense")],
        vec![("Authorization", truncated.as_str())],
        vec![("Authorization", revoked.as_str())],
        vec![("Authorization", key.as_str())],
    ] {
        let reply = send(&headers);
        assert_eq!(reply.status, 401, "{headers:?}: {}", reply.body);
        assert!(reply
            .header("WWW-Authenticate")
            .unwrap()
            .starts_with("Bearer"));
        assert_eq!(code(&reply), "Unauthenticated");
    }
    // An API key where a token belongs is named as such.
    let message = |reply: Reply| {
        reply.json()["errors"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let told = message(send(&[("Authorization", key.as_str())]));
    assert!(told.starts_with("a connector API key was sent"), "{told}");
    let told = message(send(&[("Authorization", revoked.as_str())]));
    assert_eq!(told, "the access token is unknown or revoked");
    let admin = format!("bearer {}", app.admin_token);
    assert_eq!(send(&[("Authorization", &admin)]).status, 200);
}

#[on_every_backend]
fn scopes_limit_what_a_token_may_do(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "scopes_limit_what_a_token_may_do") else {
        return;
    };
    let id = app.create_user("ada@example.com", "Ada", "Lovelace");
    let reader = app.token(&[Scope::UsersRead]);
    let writer = app.token(&[Scope::UsersWrite]);
    let create = json!({ "createUserInput": { "firstname": "B", "lastname": "C", "email": "b@example.com" } });
    let reply = app.graphql_as(&reader, CREATE_USER, create.clone());
    assert_eq!(code(&reply), "Forbidden");
    assert!(reply.json()["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("users:write"));
    assert_eq!(
        code(&app.graphql_as(&reader, DELETE_USER, json!({ "globalUserId": id }))),
        "Forbidden"
    );
    assert!(app
        .graphql_as(&reader, GET_USERS, json!({}))
        .error_code()
        .is_none());
    assert_eq!(
        code(&app.graphql_as(&writer, GET_USERS, json!({}))),
        "Forbidden"
    );
    assert!(app
        .graphql_as(&writer, CREATE_USER, create)
        .error_code()
        .is_none());
}

#[on_every_backend]
fn malformed_requests_get_400_never_500(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "malformed_requests_get_400_never_500") else {
        return;
    };
    for body in [
        &b"{\"query\": "[..],
        b"not json",
        b"42",
        b"[]",
        b"{}",
        b"{\"query\": 5}",
        b"{\"query\": \"{ users { email } }\", \"variables\": [1]}",
        b"{\"query\": \"{ users { email } }\", \"variables\": \"{}\"}",
        b"{\"query\": \"{ users { email } }\", \"operationName\": 3}",
        b"{\"query\": \"{ users { email \"}",
        b"{\"query\": \"{ nosuchfield }\"}",
        b"{\"query\": \"query q($l: Limit) { users(limit: $l) { email } }\", \"variables\": {\"l\": \"x\"}}",
    ] {
        let reply = post(&app, "application/json", body);
        assert_eq!(reply.status, 400, "{}: {}", String::from_utf8_lossy(body), reply.body);
        assert!(reply.json()["errors"][0]["message"].is_string());
        assert!(
            reply.error_code().is_some(),
            "{}: {}",
            String::from_utf8_lossy(body),
            reply.body
        );
    }
    let reply = post(&app, "text/plain", b"{\"query\": \"{ users { email } }\"}");
    assert_eq!(
        (reply.status, code(&reply)),
        (415, "UnsupportedMediaType".to_owned())
    );
    let reply = post(
        &app,
        "application/json; charset=utf-8",
        b"{\"query\": \"{ users { email } }\", \"variables\": null}",
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[on_every_backend]
fn errors_juniper_raises_carry_codes(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "errors_juniper_raises_carry_codes") else {
        return;
    };
    let unparsable = app.graphql("{ users { email ", json!({}));
    assert_eq!(unparsable.status, 400);
    assert_eq!(code(&unparsable), "BadRequest", "{}", unparsable.body);
    assert!(unparsable.json()["errors"][0]["locations"][0]["line"].is_number());

    let unknown = app.graphql("{ users { nosuchfield } }", json!({}));
    assert_eq!(unknown.status, 400);
    assert_eq!(code(&unknown), "ValidationError", "{}", unknown.body);

    let coerced = app.graphql(
        "query q($l: Limit, $id: UUID!) { users(limit: $l) { email } user(globalUserId: $id) { email } }",
        json!({ "l": "x", "id": "not-a-uuid" }),
    );
    assert_eq!(coerced.status, 400, "{}", coerced.body);
    let errors = coerced.json()["errors"].as_array().unwrap().clone();
    assert!(!errors.is_empty());
    for error in &errors {
        assert_eq!(error["extensions"]["code"], "ValidationError", "{error}");
    }
    // Named by the argument the variable is given to, not the variable.
    assert_eq!(
        errors[0]["extensions"]["field"], "limit",
        "{}",
        coerced.body
    );
    assert_eq!(
        errors[1]["extensions"]["field"], "globalUserId",
        "{}",
        coerced.body
    );
    // An input object's missing field is named by its path.
    let missing = app.graphql(
        "mutation c($i: CreateUserInput!) { createUser(createUserInput: $i) { email } }",
        json!({ "i": { "firstname": "Ada", "lastname": "Lovelace" } }),
    );
    assert_eq!(code(&missing), "ValidationError", "{}", missing.body);
    assert_eq!(
        missing.json()["errors"][0]["extensions"]["field"],
        "createUserInput.email",
        "{}",
        missing.body
    );

    let unnamed = app.graphql(
        "query a { users { email } } query b { users { email } }",
        json!({}),
    );
    assert_eq!(code(&unnamed), "BadRequest", "{}", unnamed.body);

    let options = Options {
        limits: Limits {
            depth: 2,
            ..Limits::default()
        },
        ..Options::default()
    };
    drop(app);
    let Some(app) = TestApp::spawn_with(backend, "errors_juniper_raises_carry_codes_2", options)
    else {
        return;
    };
    let deep = app.graphql("{ userTopics(globalUserId: \"00000000-0000-4000-8000-000000000000\") { actions { entityType } } }", json!({}));
    assert_eq!(deep.status, 400);
    assert_eq!(code(&deep), "QueryTooComplex", "{}", deep.body);
    assert_eq!(deep.json()["errors"][0]["extensions"]["limit"], 2);
}

#[on_every_backend]
fn batches_are_bounded(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "batches_are_bounded") else {
        return;
    };
    let op = json!({ "query": "{ users { email } }" });
    let ten = serde_json::Value::Array(vec![op.clone(); 10]).to_string();
    let reply = post(&app, "application/json", ten.as_bytes());
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json().as_array().unwrap().len(), 10);
    let eleven = serde_json::Value::Array(vec![op; 11]).to_string();
    let reply = post(&app, "application/json", eleven.as_bytes());
    assert_eq!(reply.status, 400);
    assert!(reply.body.contains("at most 10"), "{}", reply.body);
}

#[on_every_backend]
fn large_bodies_get_413(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            body_limit: 2048,
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "large_bodies_get_413", options) else {
        return;
    };
    let padding = " ".repeat(2048);
    let body = format!("{{\"query\": \"{{ users {{ email }} }}{padding}\"}}");
    let reply = post(&app, "application/json", body.as_bytes());
    assert_eq!(
        (reply.status, code(&reply)),
        (413, "PayloadTooLarge".to_owned())
    );
    let small = post(
        &app,
        "application/json",
        b"{\"query\": \"{ users { email } }\"}",
    );
    assert_eq!(small.status, 200);
}

#[on_every_backend]
fn deep_or_wide_documents_are_refused_before_execution(backend: Backend) {
    let options = Options {
        limits: Limits {
            depth: 4,
            tokens: 200,
            fields: 20,
            ..Limits::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "deep_or_wide_documents_are_refused", options)
    else {
        return;
    };
    let deep = "{ users { email } __schema { types { fields { type { ofType { name } } } } } }";
    let reply = app.graphql(deep, json!({}));
    assert_eq!(reply.status, 400, "{}", reply.body);
    let wide = format!("{{ users {{ {} }} }}", "email ".repeat(30));
    assert_eq!(app.graphql(&wide, json!({})).status, 400);
    let long = format!("{{ users {{ email }} }} {}", "# comment\n".repeat(10));
    assert_eq!(app.graphql(&long, json!({})).status, 200);
    let many_tokens = format!("{{ {} }}", "users { email } ".repeat(60));
    assert_eq!(app.graphql(&many_tokens, json!({})).status, 400);
}

#[on_every_backend]
fn get_serves_graphiql_and_never_panics(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "get_serves_graphiql_and_never_panics") else {
        return;
    };
    let page = app.request("GET", PATH, &[], b"");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.body.contains("graphiql") || page.body.contains("GraphiQL"));
    for query in [
        "?query=%7Busers%7Bemail%7D%7D&variables=%7Bnot-json",
        "?query=%7Busers%7Bemail%7D%7D&variables=%5B1%5D",
        "?variables=%ZZ",
    ] {
        let reply = app.request("GET", &format!("{PATH}{query}"), &[], b"");
        assert!(reply.status < 500, "{query}: {}", reply.status);
    }
    // The server still answers.
    assert_eq!(app.request("GET", "/healthz", &[], b"").status, 200);
}

#[on_every_backend]
fn unknown_routes_and_methods_answer_json(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "unknown_routes_and_methods_answer_json") else {
        return;
    };
    let missing = app.request("GET", "/nothing/here", &[], b"");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"]["code"], "NotFound");
    let wrong = app.request("DELETE", PATH, &[], b"");
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.json()["error"]["code"], "MethodNotAllowed");
}

#[on_every_backend]
fn health_readiness_and_metrics(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "health_readiness_and_metrics") else {
        return;
    };
    assert_eq!(app.request("GET", "/healthz", &[], b"").status, 200);
    let ready = app.request("GET", "/readyz", &[], b"");
    assert_eq!(
        (ready.status, ready.json()["status"].clone()),
        (200, json!("ready"))
    );
    app.graphql(GET_USERS, json!({}));
    app.request("GET", "/no/such/7", &[], b"");
    let metrics = app.request("GET", "/metrics", &[], b"");
    assert_eq!(metrics.status, 200);
    assert!(metrics
        .header("content-type")
        .unwrap()
        .starts_with("application/openmetrics-text"));
    assert!(
        metrics.body.contains(
            "kenning_http_requests_total{route=\"/accounts/api/v1/graphql\",method=\"POST\",status=\"200\"} 1"
        ),
        "{}",
        metrics.body
    );
    assert!(metrics
        .body
        .contains("kenning_http_request_duration_seconds_bucket"));
    assert!(metrics.body.contains("route=\"unmatched\""));
    assert!(!metrics.body.contains("/no/such/7"));
}

#[on_every_backend]
fn storage_failures_are_internal_and_leak_nothing(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "storage_failures_are_internal_and_leak_nothing")
    else {
        return;
    };
    let url = app.database_url().to_owned();
    let drop_users = "DROP TABLE users CASCADE";
    match backend {
        Backend::Sqlite => {
            let mut conn = app.sqlite_connection();
            diesel::sql_query("PRAGMA foreign_keys = OFF")
                .execute(&mut conn)
                .unwrap();
            diesel::sql_query("DROP TABLE users")
                .execute(&mut conn)
                .unwrap();
        }
        Backend::Postgres => {
            let mut conn = diesel::PgConnection::establish(&url).unwrap();
            diesel::sql_query(drop_users).execute(&mut conn).unwrap();
        }
    }
    let reply = app.graphql(GET_USERS, json!({}));
    assert_eq!(code(&reply), "Internal", "{}", reply.body);
    assert_eq!(reply.json()["errors"][0]["message"], "internal error");
    assert_eq!(
        reply.json()["errors"][0]["extensions"],
        json!({ "code": "Internal" })
    );
    for detail in ["table", "relation", "sql", "diesel"] {
        assert!(
            !reply.body.to_lowercase().contains(detail),
            "{}",
            reply.body
        );
    }
    let ready = app.request("GET", "/readyz", &[], b"");
    assert_eq!(
        ready.status, 200,
        "the database still answers: {}",
        ready.body
    );
}
