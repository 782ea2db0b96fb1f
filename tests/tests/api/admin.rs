//! The admin console through the front door: only the ACTIVE members of
//! the group `--admin-group` names get in, decided on every request, and
//! their changes are the person's in the audit trail.

use kenning_domain::GroupInput;
use kenning_tests::app::{Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::json;

/// The group's input with `members`.
fn admins(members: &[&str]) -> GroupInput {
    GroupInput {
        display_name: "Kenning admins".to_owned(),
        external_id: None,
        members: members.iter().map(|m| (*m).to_owned()).collect(),
    }
}

fn csrf_of(body: &str) -> String {
    let (_, rest) = body
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no token on the page: {body}"));
    rest.split('"').next().unwrap().to_owned()
}

#[on_every_backend]
fn only_members_of_the_admin_group_use_the_console_and_leaving_it_ends_that_at_once(
    backend: Backend,
) {
    let options = Options {
        web: kenning::WebSettings {
            admin_group: Some("Kenning admins".to_owned()),
            ..kenning::WebSettings::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "web_admin_console", options) else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    let grace = app.create_user("grace@example.com", "Grace", "Hopper");
    let group = app.services.groups.create(admins(&[&frances])).unwrap();
    let admin = app.sign_in("frances@example.com");
    let person = app.sign_in("grace@example.com");

    let console = app.page("/admin", &admin);
    assert_eq!(console.status, 200, "{}", console.body);
    assert!(console.body.contains("aria-label=\"Admin\""));
    assert!(app.page("/", &admin).body.contains("href=\"/admin\""));
    assert!(!app.page("/", &person).body.contains("href=\"/admin\""));

    for path in [
        "/admin",
        "/admin/users/new",
        "/admin/audit",
        "/admin/nowhere",
    ] {
        let refused = app.page(path, &person);
        assert_eq!(refused.status, 403, "{path}");
        assert!(refused.body.contains("Only for administrators"), "{path}");
    }
    let token = csrf_of(&app.page("/me", &person).body);
    let refused = app.submit(
        &format!("/admin/users/{grace}/deactivate"),
        &person,
        &[("csrf", &token)],
    );
    assert_eq!(refused.status, 403);

    // A change by the administrator is theirs, through the web.
    let token = csrf_of(&console.body);
    let done = app.submit(
        &format!("/admin/users/{grace}/deactivate"),
        &admin,
        &[("csrf", &token)],
    );
    assert_eq!(done.status, 303, "{}", done.body);
    let trail = app.graphql(
        "query($id: UUID!) { auditTrail(resourceId: $id, limit: 1) { events { kind actor { name channel } } } }",
        json!({ "id": grace }),
    );
    let event = &trail.json()["data"]["auditTrail"]["events"][0];
    assert_eq!(event["kind"], "user.deactivated", "{}", trail.body);
    assert_eq!(event["actor"]["name"], frances.as_str());

    // An invalid field is named beside the field, with what was written.
    let refused = app.submit(
        "/admin/users/new",
        &admin,
        &[
            ("csrf", &token),
            ("email", "not an address"),
            ("firstname", "Hedy"),
            ("lastname", ""),
        ],
    );
    assert_eq!(refused.status, 422);
    assert!(
        refused.body.contains("id=\"email-problem\""),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("id=\"lastname-problem\""));
    assert!(refused.body.contains("value=\"not an address\""));

    // Out of the group: no administrator from the next request on.
    app.services
        .groups
        .replace(group.id(), None, admins(&[]))
        .unwrap();
    assert_eq!(app.page("/admin", &admin).status, 403);
}
