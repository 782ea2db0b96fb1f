//! The admin console through the front door: only the ACTIVE members of
//! the group `--admin-group` names (by its id or externalId) get in,
//! decided on every request, and their changes are the person's in the
//! audit trail; nobody becomes an administrator with `users:write` alone,
//! at any door.

use kenning_domain::{GroupInput, Scope};
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

use crate::scim::{scim_as, GROUP_SCHEMA, PATCH_OP};

/// The administrators' group's externalId in these tests.
const ADMINS: &str = "kenning-admins";

/// The group's input with `members`.
pub(crate) fn admins(members: &[&str]) -> GroupInput {
    GroupInput {
        display_name: "Kenning admins".to_owned(),
        external_id: Some(ADMINS.to_owned()),
        members: members.iter().map(|m| (*m).to_owned()).collect(),
    }
}

/// A server whose administrators are the members of the group with
/// externalId [`ADMINS`].
pub(crate) fn with_admin_group(backend: Backend, test: &str) -> Option<TestApp> {
    let options = Options {
        web: kenning::WebSettings {
            admin_group: Some(ADMINS.parse().unwrap()),
            ..kenning::WebSettings::default()
        },
        ..Options::default()
    };
    TestApp::spawn_with(backend, test, options)
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
    let Some(app) = with_admin_group(backend, "web_admin_console") else {
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

/// A SCIM request's status and its `detail` when refused.
fn scim_status(
    app: &TestApp,
    token: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Reply {
    scim_as(app, token, method, path, &[], body)
}

#[on_every_backend]
fn a_token_that_writes_users_cannot_make_anyone_an_administrator(backend: Backend) {
    let Some(app) = with_admin_group(backend, "admin_escalation") else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    let mallory = app.create_user("mallory@example.com", "Mallory", "Moe");
    let writer = app.token(&[Scope::UsersRead, Scope::UsersWrite]);
    let group_with = |external_id: Option<&str>, members: &[&str]| {
        json!({
            "schemas": [GROUP_SCHEMA],
            "displayName": "Kenning admins",
            "externalId": external_id,
            "members": members.iter().map(|m| json!({"value": m})).collect::<Vec<_>>(),
        })
    };

    // Before the group exists, its externalId is not the writer's to take.
    let taken = scim_status(
        &app,
        &writer,
        "POST",
        "/Groups",
        Some(&group_with(Some(ADMINS), &[&mallory])),
    );
    assert_eq!(taken.status, 403, "{}", taken.body);
    assert!(
        taken.body.contains("administrators:write"),
        "{}",
        taken.body
    );
    let group = app.services.groups.create(admins(&[&frances])).unwrap();
    let real = format!("/Groups/{}", group.id());

    // A look-alike group by displayName administers nothing.
    let alike = scim_status(
        &app,
        &writer,
        "POST",
        "/Groups",
        Some(&group_with(None, &[&mallory])),
    );
    assert_eq!(alike.status, 201, "{}", alike.body);
    let intruder = app.sign_in("mallory@example.com");
    assert_eq!(app.page("/admin", &intruder).status, 403);
    let admin = app.sign_in("frances@example.com");
    assert_eq!(app.page("/admin", &admin).status, 200);

    // Joining the real group, at every door that changes a group.
    let add = json!({"schemas": [PATCH_OP], "Operations": [
        {"op": "add", "path": "members", "value": [{"value": mallory}]}]});
    for (method, body) in [
        ("PATCH", add),
        ("PUT", group_with(Some(ADMINS), &[&frances, &mallory])),
        ("PUT", group_with(Some("elsewhere"), &[&frances])),
        ("DELETE", Value::Null),
    ] {
        let body = (!body.is_null()).then_some(&body);
        let refused = scim_status(&app, &writer, method, &real, body);
        assert_eq!(refused.status, 403, "{method}: {}", refused.body);
    }
    let still = app.services.groups.get(group.id()).unwrap();
    assert_eq!(still.attributes().members.len(), 1);
    assert_eq!(app.page("/admin", &intruder).status, 403);
    // Its name alone is anyone's with users:write to change.
    let renamed = json!({"schemas": [PATCH_OP], "Operations": [
        {"op": "replace", "path": "displayName", "value": "Administrators"}]});
    let renamed = scim_status(&app, &writer, "PATCH", &real, Some(&renamed));
    assert_eq!(renamed.status, 200, "{}", renamed.body);

    // Taking over an administrator's sign-in: e-mail or externalId.
    for (query, variables) in [
        (
            "mutation($id: UUID!) { updateUserEmail(updateUserEmailInput: {globalUserId: $id, email: \"mallory+f@example.com\"}) { email } }",
            json!({"id": frances}),
        ),
        (
            "mutation($id: UUID!) { updateUser(updateUserInput: {globalUserId: $id, externalId: \"mallory-sub\"}) { externalId } }",
            json!({"id": frances}),
        ),
    ] {
        let refused = app.graphql_as(&writer, query, variables);
        assert_eq!(refused.error_code().as_deref(), Some("Forbidden"), "{}", refused.body);
    }
    let scim_email = json!({"schemas": [PATCH_OP], "Operations": [
        {"op": "replace", "path": "emails", "value": [{"value": "mallory+f@example.com", "primary": true}]}]});
    let refused = scim_status(
        &app,
        &writer,
        "PATCH",
        &format!("/Users/{frances}"),
        Some(&scim_email),
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(
        app.services
            .users
            .get(kenning_domain::UserId::from_uuid(frances.parse().unwrap()))
            .unwrap()
            .profile()
            .unwrap()
            .email
            .as_str(),
        "frances@example.com"
    );
    // Anyone else's, and an administrator's other fields, stay users:write's.
    let own = app.graphql_as(
        &writer,
        "mutation($id: UUID!) { updateUserEmail(updateUserEmailInput: {globalUserId: $id, email: \"m@example.com\"}) { email } }",
        json!({"id": mallory}),
    );
    assert_eq!(
        own.json()["data"]["updateUserEmail"]["email"],
        "m@example.com",
        "{}",
        own.body
    );
    let position = app.graphql_as(
        &writer,
        "mutation($id: UUID!) { updateUser(updateUserInput: {globalUserId: $id, position: \"Engineer\"}) { position } }",
        json!({"id": frances}),
    );
    assert_eq!(
        position.json()["data"]["updateUser"]["position"],
        "Engineer",
        "{}",
        position.body
    );

    // A token with administrators:write (issued at the command line) may.
    let keeper = app.token(&[
        Scope::UsersRead,
        Scope::UsersWrite,
        Scope::AdministratorsWrite,
    ]);
    let add = json!({"schemas": [PATCH_OP], "Operations": [
        {"op": "add", "path": "members", "value": [{"value": mallory}]}]});
    let added = scim_status(&app, &keeper, "PATCH", &real, Some(&add));
    assert_eq!(added.status, 200, "{}", added.body);
    assert_eq!(app.page("/admin", &intruder).status, 200);
}

#[on_every_backend]
fn a_token_issued_in_the_console_expires_and_ends_with_its_issuers_office(backend: Backend) {
    let Some(app) = with_admin_group(backend, "console_tokens") else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    let group = app.services.groups.create(admins(&[&frances])).unwrap();
    let admin = app.sign_in("frances@example.com");
    let page = app.page("/admin/credentials", &admin);
    assert!(page.body.contains("value=\"users:write\""), "{}", page.body);
    // No administrator hands out the scope that decides who administers.
    assert!(!page.body.contains("value=\"administrators:write\""));
    let csrf = csrf_of(&page.body);
    // The console's form, asking for a token with `scope` for `days`.
    let submit = |scope: &str, days: &str| {
        app.submit(
            "/admin/credentials",
            &admin,
            &[
                ("csrf", &csrf),
                ("kind", "token"),
                ("name", "reports"),
                ("scope", scope),
                ("expiresInDays", days),
            ],
        )
    };
    let refused = submit("administrators:write", "");
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains("issued at the command line only"),
        "{}",
        refused.body
    );
    // Only unknown scopes would mean none, and none every scope: refused.
    let refused = submit("users:everything", "");
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("users:everything\u{201d} is no scope"),
        "{}",
        refused.body
    );
    assert!(!refused.body.contains("kn_tok_"), "{}", refused.body);
    let refused = submit("users:read", "0");
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains("id=\"expiresInDays-problem\""),
        "{}",
        refused.body
    );

    let issue = |days: &str| {
        let issued = submit("users:read", days);
        assert_eq!(issued.status, 200, "{}", issued.body);
        let (_, rest) = issued
            .body
            .split_once("kn_tok_")
            .expect("the secret on the page");
        format!(
            "kn_tok_{}",
            rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .next()
                .unwrap()
        )
    };
    let reads = |token: &str| {
        app.graphql_as(token, "{ users(searchText: \"\") { email } }", json!({}))
            .status
    };
    let for_a_week = issue("7");
    let forever = issue("");
    assert_eq!(reads(&for_a_week), 200);
    assert_eq!(reads(&forever), 200);
    let listed = app.page("/admin/credentials", &admin).body;
    assert!(listed.contains("issued in the console"), "{listed}");
    assert!(listed.contains("live until 9 Mar 2026"), "{listed}");

    app.advance(chrono::Duration::days(7));
    assert_eq!(reads(&for_a_week), 401);
    assert_eq!(reads(&forever), 200);

    // Out of the group, the administrator's tokens end with their office.
    app.services
        .groups
        .replace(group.id(), None, admins(&[]))
        .unwrap();
    app.advance(chrono::Duration::seconds(2));
    assert_eq!(reads(&forever), 401);
    app.services
        .groups
        .replace(group.id(), None, admins(&[&frances]))
        .unwrap();
    app.advance(chrono::Duration::seconds(2));
    assert_eq!(reads(&forever), 200);
}

#[on_every_backend]
fn a_token_that_writes_users_cannot_change_an_administrators_status(backend: Backend) {
    let Some(app) = with_admin_group(backend, "admin_status") else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    let grace = app.create_user("grace@example.com", "Grace", "Hopper");
    app.services.groups.create(admins(&[&frances])).unwrap();
    let writer = app.token(&[Scope::UsersRead, Scope::UsersWrite]);
    let admin = app.sign_in("frances@example.com");
    let status = |user: &str| {
        app.graphql(
            "query($id: UUID!) { user(globalUserId: $id) { status } }",
            json!({ "id": user }),
        )
        .json()["data"]["user"]["status"]
            .clone()
    };
    let mutation =
        |name: &str| format!("mutation($id: UUID!) {{ {name}(globalUserId: $id) {{ status }} }}");
    let active = |value: bool| {
        json!({"schemas": [PATCH_OP], "Operations": [
            {"op": "replace", "path": "active", "value": value}]})
    };

    // Locking the only administrator out, at every door a writer has.
    for name in ["deactivateUser", "deleteUser"] {
        let refused = app.graphql_as(&writer, &mutation(name), json!({ "id": frances }));
        assert_eq!(
            refused.error_code().as_deref(),
            Some("Forbidden"),
            "{name}: {}",
            refused.body
        );
    }
    let path = format!("/Users/{frances}");
    let refused = scim_status(&app, &writer, "PATCH", &path, Some(&active(false)));
    assert_eq!(refused.status, 403, "{}", refused.body);
    let refused = scim_status(&app, &writer, "DELETE", &path, None);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(status(&frances), "ACTIVE");
    assert_eq!(app.page("/admin", &admin).status, 200);

    // Deactivated by the operator, not brought back by a writer.
    let id = kenning_domain::UserId::from_uuid(frances.parse().unwrap());
    app.services.users.deactivate(id).unwrap();
    let refused = app.graphql_as(
        &writer,
        &mutation("reactivateUser"),
        json!({ "id": frances }),
    );
    assert_eq!(
        refused.error_code().as_deref(),
        Some("Forbidden"),
        "{}",
        refused.body
    );
    let refused = scim_status(&app, &writer, "PATCH", &path, Some(&active(true)));
    assert_eq!(refused.status, 403, "{}", refused.body);
    app.services.users.delete(id).unwrap();
    let refused = app.graphql_as(&writer, &mutation("cancelDelete"), json!({ "id": frances }));
    assert_eq!(
        refused.error_code().as_deref(),
        Some("Forbidden"),
        "{}",
        refused.body
    );
    assert_eq!(status(&frances), "PENDING_DELETION");

    // Anyone else's status stays the writer's, and an administrator's
    // own in the console.
    let done = app.graphql_as(&writer, &mutation("deactivateUser"), json!({ "id": grace }));
    assert_eq!(
        done.json()["data"]["deactivateUser"]["status"],
        "DEACTIVATED",
        "{}",
        done.body
    );
    let keeper = app.token(&[Scope::UsersWrite, Scope::AdministratorsWrite]);
    let done = app.graphql_as(&keeper, &mutation("cancelDelete"), json!({ "id": frances }));
    assert_eq!(
        done.json()["data"]["cancelDelete"]["status"],
        "DEACTIVATED",
        "{}",
        done.body
    );
}

#[on_every_backend]
fn no_group_takes_the_administrators_group_id_at_any_door(backend: Backend) {
    let Some(app) = with_admin_group(backend, "admin_group_id") else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    let group = app.services.groups.create(admins(&[&frances])).unwrap();
    let id = group.id().to_string();
    let writer = app.token(&[Scope::UsersRead, Scope::UsersWrite]);
    let look_alike = json!({
        "schemas": [GROUP_SCHEMA],
        "displayName": "Look-alike",
        "externalId": id,
    });
    let refused = scim_status(&app, &writer, "POST", "/Groups", Some(&look_alike));
    assert_eq!(refused.status, 409, "{}", refused.body);
    let admin = app.sign_in("frances@example.com");
    let csrf = csrf_of(&app.page("/admin/groups", &admin).body);
    let refused = app.submit(
        "/admin/groups",
        &admin,
        &[
            ("csrf", &csrf),
            ("displayName", "Look-alike"),
            ("externalId", &id),
        ],
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains("id=\"externalId-problem\""),
        "{}",
        refused.body
    );
    let listed = app
        .services
        .groups
        .list(&Default::default(), 0, 10)
        .unwrap();
    assert_eq!(listed.groups.len(), 1);
}
