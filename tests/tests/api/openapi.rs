//! The connector API's OpenAPI document and reference page: served from the
//! binary, and every status the endpoints answered in these tests is one
//! the document lists for them.

use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const SINGLE: &str = "/connectors/api/v1/entities-with-action";
const BATCH: &str = "/connectors/api/v1/entities-with-action/batch";

fn upload(email: &str, alias: &str) -> Value {
    json!({
        "entity_type": "document",
        "action_type": "create",
        "action_date": "2026-03-01T10:00:00.000Z",
        "user_email": email,
        "text": "Analytical engines compute Bernoulli numbers.",
        "action_alias": alias,
    })
}

/// The statuses the document lists for POST `path`.
fn documented(document: &Value, path: &str) -> Vec<u16> {
    document["paths"][path]["post"]["responses"]
        .as_object()
        .unwrap_or_else(|| panic!("no responses for {path}"))
        .keys()
        .map(|status| status.parse().unwrap())
        .collect()
}

#[on_every_backend]
fn the_document_lists_every_status_the_endpoints_answer(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            body_limit: 2048,
            batch_body_limit: 4096,
            batch_items: 7,
            requests_per_minute: 12,
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "openapi_every_status", options) else {
        return;
    };
    let reply = app.request("GET", "/connectors/api/v1/openapi.json", &[], b"");
    assert_eq!(reply.status, 200);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let document = reply.json();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(
        document["components"]["schemas"]["BatchRequest"]["properties"]["items"]["maxItems"],
        7
    );
    assert_eq!(
        document["components"]["securitySchemes"]["api_key"],
        json!({ "type": "apiKey", "in": "header", "name": "APIKEY",
                "description": "A connector API key, from `kenning apikey create`" })
    );
    for path in ["/healthz", "/readyz"] {
        assert!(document["paths"][path]["get"].is_object(), "{path}");
    }

    app.create_user("ada@example.com", "Ada", "Lovelace");
    let key = app.api_key();
    let post = |path: &str, headers: &[(&str, &str)], body: &[u8]| -> Reply {
        app.request("POST", path, headers, body)
    };
    let json_with_key = [
        ("Content-Type", "application/json"),
        ("APIKEY", key.as_str()),
    ];
    let one = upload("ada@example.com", "a1").to_string();
    let mut seen: Vec<(&str, u16)> = Vec::new();
    for path in [SINGLE, BATCH] {
        let body = if path == SINGLE {
            one.clone()
        } else {
            json!({ "items": [upload("ada@example.com", "b1")] }).to_string()
        };
        seen.push((path, post(path, &json_with_key, body.as_bytes()).status));
        seen.push((path, post(path, &json_with_key, b"{").status));
        seen.push((
            path,
            post(
                path,
                &[("Content-Type", "application/json")],
                body.as_bytes(),
            )
            .status,
        ));
        seen.push((
            path,
            post(
                path,
                &[("Content-Type", "text/plain"), ("APIKEY", &key)],
                body.as_bytes(),
            )
            .status,
        ));
        seen.push((path, post(path, &json_with_key, &vec![b' '; 5000]).status));
        seen.push((
            path,
            post(path, &json_with_key, b"{\"items\": 1, \"entity_type\": 2}").status,
        ));
        // Refused before routing: a request line or headers too long.
        let long = format!("{path}?pad={}", "a".repeat(9000));
        seen.push((path, post(&long, &json_with_key, body.as_bytes()).status));
        let padding = "b".repeat(17_000);
        let mut padded = json_with_key.to_vec();
        padded.push(("X-Padding", padding.as_str()));
        seen.push((path, post(path, &padded, body.as_bytes()).status));
    }
    seen.push((SINGLE, post(SINGLE, &json_with_key, one.as_bytes()).status));
    let unknown = upload("nobody@example.com", "u1").to_string();
    seen.push((
        SINGLE,
        post(SINGLE, &json_with_key, unknown.as_bytes()).status,
    ));
    // The key's rate: 12 a minute, as many at once; the requests above
    // used it up.
    seen.push((SINGLE, post(SINGLE, &json_with_key, one.as_bytes()).status));
    let statuses = |path: &str| -> Vec<u16> {
        let mut s: Vec<u16> = seen
            .iter()
            .filter(|(p, _)| *p == path)
            .map(|(_, s)| *s)
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    assert_eq!(
        statuses(SINGLE),
        vec![201, 400, 401, 409, 413, 414, 415, 422, 429, 431]
    );
    assert_eq!(
        statuses(BATCH),
        vec![200, 400, 401, 413, 414, 415, 422, 431]
    );
    for path in [SINGLE, BATCH] {
        let listed = documented(&document, path);
        for status in statuses(path) {
            assert!(
                listed.contains(&status),
                "{path} answered {status}, not in {listed:?}"
            );
        }
    }
}

#[on_every_backend]
fn the_reference_page_is_served_from_the_binary(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "openapi_reference_page") else {
        return;
    };
    let page = app.request("GET", "/connectors/api/v1/docs", &[], b"");
    assert_eq!(page.status, 200);
    let policy = page.header("content-security-policy").unwrap();
    assert!(policy.contains("script-src 'self'"), "{policy}");
    let scripts: Vec<&str> = page
        .body
        .split("src=\"")
        .skip(1)
        .chain(page.body.split("href=\"").skip(1))
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(scripts.len(), 3, "{}", page.body);
    for file in scripts {
        assert!(file.starts_with("/connectors/api/v1/docs/"), "{file}");
        let reply = app.request("GET", file, &[], b"");
        assert_eq!(reply.status, 200, "{file}");
        assert!(reply.header("cache-control").is_some());
    }
    let script = app.request(
        "GET",
        "/connectors/api/v1/docs/kenning-swagger.js",
        &[],
        b"",
    );
    assert!(script.body.contains("/connectors/api/v1/openapi.json"));
    let missing = app.request("GET", "/connectors/api/v1/docs/nothing.js", &[], b"");
    assert_eq!(missing.status, 404);
}
