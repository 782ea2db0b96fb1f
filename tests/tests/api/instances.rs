//! Several instances on one database, as a deployment runs them: each
//! remembers the credentials it checked lately, and a revocation written
//! by another process reaches every one of them within `REVOCATION_DELAY`
//! of its clock.

use chrono::Duration;
use kenning_app::REVOCATION_DELAY;
use kenning_domain::{CredentialKind, Scope};
use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::documents::GET_USERS;
use kenning_tests::on_every_backend;
use serde_json::json;

fn status(app: &TestApp, token: &str) -> u16 {
    app.graphql_as(token, GET_USERS, json!({})).status
}

#[on_every_backend]
fn a_revoked_token_is_refused_by_every_instance_within_the_delay(backend: Backend) {
    let Some(first) = TestApp::spawn(
        backend,
        "a_revoked_token_is_refused_by_every_instance_within_the_delay",
    ) else {
        return;
    };
    let second = first.spawn_beside();
    let issued = first
        .services
        .credentials
        .issue(CredentialKind::AccessToken, "reporting", &Scope::ALL, None)
        .unwrap();
    let token = issued.secret;
    assert_eq!(status(&first, &token), 200);
    assert_eq!(status(&second, &token), 200);

    // As `kenning token revoke` does: another process writes the database.
    first
        .services
        .credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();

    // Each server's clock stands still until the test moves it, so the
    // bound is checked exactly: answered from memory until the delay is
    // up, refused from then on.
    for app in [&first, &second] {
        app.advance(REVOCATION_DELAY - Duration::microseconds(1));
        assert_eq!(status(app, &token), 200, "{app:?} within the delay");
        app.advance(Duration::microseconds(1));
        let reply = app.graphql_as(&token, GET_USERS, json!({}));
        assert_eq!(reply.status, 401, "{app:?}: {}", reply.body);
        assert_eq!(reply.error_code().as_deref(), Some("Unauthenticated"));
    }

    // A token issued through one process works at once on every instance.
    let issued = second.token(&[Scope::UsersRead]);
    assert_eq!(status(&first, &issued), 200);
    assert_eq!(status(&second, &issued), 200);
}
