//! Bodies that are too large or never arrive are refused, and never hold
//! a connection for long.

use std::time::{Duration, Instant};

use kenning_http::HttpConfig;
use kenning_tests::app::{Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;

/// The head of an authenticated JSON POST to `path` declaring `length`.
fn head(path: &str, auth: (&str, &str), length: usize) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\n{}: {}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n",
        auth.0, auth.1
    )
}

#[on_every_backend]
fn bodies_that_never_arrive_time_out(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            body_timeout: Duration::from_secs(1),
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "bodies_that_never_arrive_time_out", options)
    else {
        return;
    };
    for (path, auth) in endpoints(&app) {
        let auth = (auth.0, auth.1.as_str());
        let started = Instant::now();
        let request = format!("{}{{", head(path, auth, 100_000));
        let answer = app.raw(request.as_bytes(), Duration::from_secs(20));
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer:?}");
        assert!(answer.contains("RequestTimeout"), "{answer}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }
}

/// Both endpoints that read a body, each with a valid credential header.
fn endpoints(app: &TestApp) -> [(&'static str, (&'static str, String)); 2] {
    [
        (
            "/accounts/api/v1/graphql",
            ("Authorization", format!("Bearer {}", app.admin_token)),
        ),
        (
            "/connectors/api/v1/entities-with-action",
            ("APIKEY", app.api_key()),
        ),
    ]
}

#[on_every_backend]
fn declared_lengths_beyond_the_limit_are_refused_at_once(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "declared_lengths_beyond_the_limit") else {
        return;
    };
    for (path, auth) in endpoints(&app) {
        let auth = (auth.0, auth.1.as_str());
        let started = Instant::now();
        // Nothing of the body is sent: the answer must not wait for it.
        let request = head(path, auth, 100 * 1024 * 1024);
        let answer = app.raw(request.as_bytes(), Duration::from_secs(20));
        assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer:?}");
        assert!(answer.contains("PayloadTooLarge"), "{answer}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }
}
