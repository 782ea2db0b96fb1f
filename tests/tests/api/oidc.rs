//! The OpenID Connect sign-in's own guards, through the front door: the
//! cookie that holds a sign-in under way is read under the name Kenning
//! gave it, so over https a neighbouring subdomain cannot plant one. (The
//! whole flow, with a real provider, is in `tests/browser/`.)

use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;

/// An app whose people sign in with a provider that nothing answers for
/// (a sign-in that gets as far as asking it fails as unreachable), at
/// `public_url`.
fn app_at(backend: Backend, test: &str, public_url: &str) -> Option<TestApp> {
    let options = Options {
        web: kenning::WebSettings {
            public_url: Some(public_url.parse().unwrap()),
            oidc: Some(kenning::OidcConfig {
                issuer: "http://127.0.0.1:1".to_owned(),
                client_id: "kenning".to_owned(),
                client_secret: None,
                external_id_claim: None,
                allowed_domains: Vec::new(),
                name: "Test Provider".to_owned(),
                timeout: std::time::Duration::from_secs(5),
            }),
            ..kenning::WebSettings::default()
        },
        ..Options::default()
    };
    TestApp::spawn_with(backend, test, options)
}

/// The provider's way back with `state`, from a browser holding `cookie`.
fn callback(app: &TestApp, state: &str, cookie: &str) -> Reply {
    app.request(
        "GET",
        &format!("/auth/callback?code=the-attackers-code&state={state}"),
        &[("Cookie", cookie), ("Accept", "text/html")],
        b"",
    )
}

#[on_every_backend]
fn a_sign_in_planted_without_the_host_prefix_is_not_read_over_https(backend: Backend) {
    let Some(app) = app_at(backend, "oidc_host_prefix", "https://kenning.example.com") else {
        return;
    };
    // Another subdomain can set `kenning_oidc` for the whole domain, with
    // its own state and verifier, and send the person back with its code.
    let planted = callback(&app, "s1", "kenning_oidc=s1.n1.v1");
    assert_eq!(planted.status, 400, "{}", planted.body);
    assert!(planted.body.contains("This sign-in was not started here"));
    let forget = planted.header("set-cookie").unwrap();
    assert!(
        forget.starts_with("__Host-kenning_oidc=; Path=/;") && forget.ends_with("; Secure"),
        "{forget}"
    );
    // The cookie under its own name is read back: its state is compared,
    // and when it matches the code goes to the provider.
    let forged = callback(&app, "s2", "__Host-kenning_oidc=s1.n1.v1");
    assert_eq!(forged.status, 400, "{}", forged.body);
    assert!(forged
        .body
        .contains("This sign-in answer is not the one expected"));
    let own = callback(
        &app,
        "s1",
        "kenning_oidc=p.n.v; __Host-kenning_oidc=s1.n1.v1",
    );
    assert_eq!(own.status, 503, "{}", own.body);
    assert!(own.body.contains("did not answer"), "{}", own.body);
}

#[on_every_backend]
fn over_plain_http_the_sign_in_cookie_has_its_plain_name(backend: Backend) {
    let Some(app) = app_at(backend, "oidc_plain_cookie", "http://127.0.0.1:8080") else {
        return;
    };
    let forged = callback(&app, "s2", "kenning_oidc=s1.n1.v1");
    assert_eq!(forged.status, 400, "{}", forged.body);
    assert!(forged
        .body
        .contains("This sign-in answer is not the one expected"));
    let forget = forged.header("set-cookie").unwrap();
    assert!(forget.starts_with("kenning_oidc=; Path=/;"), "{forget}");
    assert!(!forget.contains("Secure"), "{forget}");
}
