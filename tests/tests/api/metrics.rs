//! The metrics: labels only from closed sets, a bounded request head, the
//! endpoint turned off or moved to its own address, and where uploads'
//! time goes.

use std::time::Duration;

use kenning_http::{HttpConfig, MetricsEndpoint};
use kenning_tests::app::{Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;

/// A request with `method`, which no HTTP client library would send.
fn with_method(app: &TestApp, method: &str) -> String {
    app.raw(
        format!("{method} /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .as_bytes(),
        Duration::from_secs(10),
    )
}

#[on_every_backend]
fn invented_methods_and_paths_add_no_series(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "invented_methods_and_paths_add_no_series") else {
        return;
    };
    for i in 0..50 {
        let answer = with_method(&app, &format!("BREW{i}"));
        assert!(answer.starts_with("HTTP/1.1 501"), "{answer}");
        assert!(answer.contains("\"NotImplemented\""), "{answer}");
        app.request("GET", &format!("/invented/{i}"), &[], b"");
    }
    // The first scrape adds the series of /metrics itself.
    app.request("GET", "/metrics", &[], b"");
    let before = app.request("GET", "/metrics", &[], b"").body.len();
    for i in 50..100 {
        with_method(&app, &format!("BREW{i}"));
        app.request("GET", &format!("/invented/{i}"), &[], b"");
    }
    let metrics = app.request("GET", "/metrics", &[], b"").body;
    assert!(!metrics.contains("BREW"), "{metrics}");
    assert!(!metrics.contains("/invented/"), "{metrics}");
    assert!(
        metrics.contains(
            "kenning_http_requests_total{route=\"/healthz\",method=\"other\",status=\"501\"} 100"
        ),
        "{metrics}"
    );
    // Counts change, series do not: the exposition does not grow with
    // the requests (beyond a few more digits).
    assert!(
        metrics.len() < before + 200,
        "{before} -> {}",
        metrics.len()
    );
}

#[on_every_backend]
fn a_huge_method_or_target_is_refused(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_huge_method_or_target_is_refused") else {
        return;
    };
    let answer = with_method(&app, &"X".repeat(60 * 1024));
    assert!(answer.starts_with("HTTP/1.1 501"), "{answer:.200}");
    let target = format!("/healthz?{}", "a".repeat(10 * 1024));
    let reply = app.request("GET", &target, &[], b"");
    assert_eq!(reply.status, 414, "{}", reply.body);
    let header = "h".repeat(20 * 1024);
    let reply = app.request("GET", "/healthz", &[("X-Padding", &header)], b"");
    assert_eq!(reply.status, 431, "{}", reply.body);
    let metrics = app.request("GET", "/metrics", &[], b"").body;
    assert!(!metrics.contains("XXXX"), "{metrics:.2000}");
    assert!(metrics.len() < 16 * 1024, "{}", metrics.len());
}

/// `name`'s value in the exposition `metrics`.
fn series(metrics: &str, name: &str) -> Option<f64> {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
}

#[on_every_backend]
fn an_upload_adds_its_time_to_each_stage_it_passes(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "an_upload_adds_its_time_to_each_stage") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let upload = serde_json::json!({
        "entity_type": "document",
        "action_type": "create",
        "action_date": "2026-03-01T10:00:00.000Z",
        "user_email": "ada@example.com",
        "text": "Compilers translate source code into machine code.",
    });
    let stage = |name: &str| format!("kenning_upload_stage_seconds_total{{stage=\"{name}\"}}");
    let stages = [
        "http_json",
        "extraction",
        "person_check",
        "action_row",
        "topic_structures",
        "commit",
    ];
    // The totals are the process's, which other tests share: they only grow.
    let before = app.request("GET", "/metrics", &[], b"").body;
    assert_eq!(app.upload(&key, &upload).status, 201);
    let after = app.request("GET", "/metrics", &[], b"").body;
    for name in stages {
        let was = series(&before, &stage(name)).unwrap_or(0.0);
        let now = series(&after, &stage(name)).unwrap_or_else(|| panic!("{name}: {after}"));
        assert!(now > was, "{name}: {was} -> {now}");
    }
}

#[on_every_backend]
fn metrics_can_be_turned_off(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            metrics: MetricsEndpoint::Off,
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "metrics_can_be_turned_off", options) else {
        return;
    };
    assert_eq!(app.request("GET", "/healthz", &[], b"").status, 200);
    assert_eq!(app.request("GET", "/metrics", &[], b"").status, 404);
}

#[on_every_backend]
fn metrics_can_have_their_own_address(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            metrics: MetricsEndpoint::Separate("127.0.0.1:0".to_owned()),
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "metrics_can_have_their_own_address", options)
    else {
        return;
    };
    let metrics_base = app.metrics_base.clone().unwrap();
    assert_eq!(app.request("GET", "/healthz", &[], b"").status, 200);
    assert_eq!(app.request("GET", "/metrics", &[], b"").status, 404);
    let metrics = app.request_to(&metrics_base, "GET", "/metrics", &[], b"");
    assert_eq!(metrics.status, 200);
    assert!(
        metrics.body.contains("route=\"/healthz\""),
        "{}",
        metrics.body
    );
    let api = app.request_to(&metrics_base, "GET", "/healthz", &[], b"");
    assert_eq!(api.status, 404);
    let graphql = app.request_to(&metrics_base, "GET", "/accounts/api/v1/graphql", &[], b"");
    assert_eq!(graphql.status, 404);
}
