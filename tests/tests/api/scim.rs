//! SCIM 2.0 provisioning: discovery, the request sequences Entra ID and
//! Okta send for users (as their provisioning documentation shows them;
//! those for groups are in `groups`, which shares the requests and checks
//! here), every refusal in SCIM's error envelope, ETags, filters and
//! paging.

use kenning_domain::Scope;
use kenning_tests::app::{Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

pub(crate) const BASE: &str = "/accounts/api/v1/scim/v2";
const SCIM_JSON: &str = "application/scim+json";
const USER_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
pub(crate) const GROUP_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ENTERPRISE: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
pub(crate) const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";

/// A SCIM request with `token`; `body` as JSON when given.
pub(crate) fn scim_as(
    app: &TestApp,
    token: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Reply {
    let auth = format!("Bearer {token}");
    let mut all = vec![
        ("Authorization", auth.as_str()),
        ("Content-Type", SCIM_JSON),
    ];
    all.extend_from_slice(headers);
    let bytes = body.map(Value::to_string).unwrap_or_default();
    app.request(method, &format!("{BASE}{path}"), &all, bytes.as_bytes())
}

pub(crate) fn scim(app: &TestApp, method: &str, path: &str, body: Option<&Value>) -> Reply {
    scim_as(app, &app.admin_token, method, path, &[], body)
}

/// Asserts a SCIM error with `status` and `scim_type`; returns its detail.
pub(crate) fn refused(reply: &Reply, status: u16, scim_type: Option<&str>) -> String {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.header("content-type"), Some(SCIM_JSON));
    let body = reply.json();
    assert_eq!(body["schemas"], json!([ERROR]), "{}", reply.body);
    assert_eq!(body["status"], status.to_string());
    assert_eq!(body["scimType"].as_str(), scim_type, "{}", reply.body);
    body["detail"].as_str().unwrap_or_default().to_owned()
}

fn filtered(app: &TestApp, filter: &str) -> Value {
    let path = format!("/Users?filter={}", encode(filter));
    let reply = scim(app, "GET", &path, None);
    assert_eq!(reply.status, 200, "{filter}: {}", reply.body);
    reply.json()
}

/// Percent-encodes a query value.
pub(crate) fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(crate) fn graphql_user(app: &TestApp, id: &str) -> Value {
    app.graphql(
        "query u($id: UUID!) { user(globalUserId: $id) { status email firstname lastname externalId department company position countryId languageId version } }",
        json!({ "id": id }),
    )
    .json()["data"]["user"]
        .clone()
}

/// Provisions a user named by `email`; returns its id.
pub(crate) fn new_user(app: &TestApp, email: &str) -> String {
    let body = json!({ "userName": email, "name": { "givenName": "G", "familyName": email } });
    let reply = scim(app, "POST", "/Users", Some(&body));
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.json()["id"].as_str().unwrap().to_owned()
}

#[on_every_backend]
fn discovery_tells_what_is_supported(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "discovery_tells_what_is_supported") else {
        return;
    };
    let config = scim(&app, "GET", "/ServiceProviderConfig", None);
    assert_eq!(config.status, 200);
    assert_eq!(config.header("content-type"), Some(SCIM_JSON));
    let config = config.json();
    assert_eq!(config["patch"]["supported"], true);
    assert_eq!(config["bulk"]["supported"], false);
    assert_eq!(
        config["filter"],
        json!({ "supported": true, "maxResults": 200 })
    );
    assert_eq!(config["changePassword"]["supported"], false);
    assert_eq!(config["sort"]["supported"], false);
    assert_eq!(config["etag"]["supported"], true);
    assert_eq!(
        config["authenticationSchemes"][0]["type"],
        "oauthbearertoken"
    );

    let types = scim(&app, "GET", "/ResourceTypes", None).json();
    assert_eq!(types["totalResults"], 2);
    assert_eq!(types["Resources"][0]["endpoint"], "/Users");
    assert_eq!(types["Resources"][1]["endpoint"], "/Groups");
    assert_eq!(
        scim(&app, "GET", "/ResourceTypes/User", None).json()["schema"],
        USER_SCHEMA
    );
    assert_eq!(
        scim(&app, "GET", "/ResourceTypes/Group", None).json()["schema"],
        GROUP_SCHEMA
    );
    refused(&scim(&app, "GET", "/ResourceTypes/Role", None), 404, None);

    let schemas = scim(&app, "GET", "/Schemas", None).json();
    let ids: Vec<&str> = schemas["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, [USER_SCHEMA, ENTERPRISE, GROUP_SCHEMA]);
    let user = scim(&app, "GET", &format!("/Schemas/{USER_SCHEMA}"), None).json();
    assert_eq!(user["attributes"][0]["name"], "userName");
    assert_eq!(user["attributes"][0]["uniqueness"], "server");
    refused(&scim(&app, "GET", "/Schemas/urn:nothing", None), 404, None);
    refused(&scim(&app, "GET", "/Roles", None), 404, None);
    refused(&scim(&app, "PUT", "/Schemas", None), 405, None);
}

#[on_every_backend]
fn tokens_and_scopes_guard_every_route(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "tokens_and_scopes_guard_every_route") else {
        return;
    };
    let nobody = app.request("GET", &format!("{BASE}/Users"), &[], b"");
    refused(&nobody, 401, None);
    assert!(nobody.header("www-authenticate").is_some());
    refused(
        &scim_as(
            &app,
            "not-a-token",
            "GET",
            "/ServiceProviderConfig",
            &[],
            None,
        ),
        401,
        None,
    );
    let reader = app.token(&[Scope::UsersRead]);
    assert_eq!(
        scim_as(&app, &reader, "GET", "/Users", &[], None).status,
        200
    );
    let create =
        json!({ "userName": "r@example.com", "name": { "givenName": "R", "familyName": "O" } });
    refused(
        &scim_as(&app, &reader, "POST", "/Users", &[], Some(&create)),
        403,
        None,
    );
    let writer = app.token(&[Scope::UsersWrite]);
    refused(
        &scim_as(&app, &writer, "GET", "/Users", &[], None),
        403,
        None,
    );
    assert_eq!(
        scim_as(&app, &writer, "POST", "/Users", &[], Some(&create)).status,
        201
    );
}

/// Entra ID's provisioning, as Microsoft's SCIM documentation shows it:
/// look the user up, create, PATCH several attributes, deactivate with a
/// string boolean, delete.
#[on_every_backend]
fn entra_id_provisions_a_user_through_its_lifecycle(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "entra_id_provisions_a_user_through_its_lifecycle")
    else {
        return;
    };
    let lookup = filtered(&app, "userName eq \"Test_User_ab6490ee@testuser.com\"");
    assert_eq!(lookup["totalResults"], 0);
    assert_eq!(lookup["Resources"], json!([]));

    let created = scim(
        &app,
        "POST",
        "/Users",
        Some(&json!({
            "schemas": [USER_SCHEMA, ENTERPRISE],
            "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
            "userName": "Test_User_ab6490ee@testuser.com",
            "active": true,
            "emails": [{ "primary": true, "type": "work", "value": "Test_User_ab6490ee@testuser.com" }],
            "meta": { "resourceType": "User" },
            "name": { "formatted": "givenName familyName", "familyName": "familyName", "givenName": "givenName" },
            "roles": [],
            ENTERPRISE: { "department": "Sales", "organization": "Contoso" }
        })),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let user = created.json();
    let id = user["id"].as_str().unwrap().to_owned();
    assert_eq!(
        created.header("location"),
        Some(format!("{}{BASE}/Users/{id}", app.base).as_str())
    );
    assert_eq!(created.header("etag"), Some("W/\"1\""));
    assert_eq!(user["meta"]["version"], "W/\"1\"");
    assert_eq!(user["meta"]["resourceType"], "User");
    assert_eq!(
        user["meta"]["location"],
        created.header("location").unwrap()
    );
    assert_eq!(user["active"], true);
    assert_eq!(user[ENTERPRISE]["department"], "Sales");

    // The sign-in name and the mail address may differ: userName keeps the
    // one, the e-mail the other.
    let upn = scim(
        &app,
        "POST",
        "/Users",
        Some(&json!({
            "userName": "second@contoso.onmicrosoft.com",
            "emails": [{ "primary": true, "type": "work", "value": "second.person@contoso.com" }],
            "name": { "familyName": "Person", "givenName": "Second" }
        })),
    );
    assert_eq!(upn.status, 201, "{}", upn.body);
    assert_eq!(upn.json()["userName"], "second@contoso.onmicrosoft.com");
    assert_eq!(
        upn.json()["emails"][0]["value"],
        "second.person@contoso.com"
    );
    assert_eq!(
        filtered(&app, "emails.value eq \"second.person@contoso.com\"")["totalResults"],
        1
    );
    assert_eq!(
        filtered(&app, "userName eq \"SECOND@contoso.onmicrosoft.com\"")["totalResults"],
        1
    );
    let found = filtered(&app, "userName eq \"test_user_AB6490EE@testuser.com\"");
    assert_eq!(found["totalResults"], 1);
    assert_eq!(found["Resources"][0]["id"], id.as_str());
    let by_external = filtered(
        &app,
        "externalId eq \"0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef\"",
    );
    assert_eq!(by_external["Resources"][0]["id"], id.as_str());

    let patched = scim(
        &app,
        "PATCH",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": [PATCH_OP],
            "Operations": [
                { "op": "Replace", "path": "userName", "value": "updated@testuser.com" },
                { "op": "Replace", "path": "emails[type eq \"work\"].value", "value": "updated@testuser.com" },
                { "op": "Replace", "path": "name.familyName", "value": "updatedFamilyName" },
                { "op": "Add", "path": "title", "value": "Engineer" },
                { "op": "Add", "path": "addresses[type eq \"work\"].country", "value": "DE" },
                { "op": "Replace", "path": "preferredLanguage", "value": "de-DE" },
                { "op": "Replace", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "R&D" }
            ]
        })),
    );
    assert_eq!(patched.status, 200, "{}", patched.body);
    assert_eq!(patched.header("etag"), Some("W/\"2\""));
    let shown = graphql_user(&app, &id);
    assert_eq!(shown["email"], "updated@testuser.com");
    assert_eq!(shown["lastname"], "updatedFamilyName");
    assert_eq!(shown["position"], "Engineer");
    assert_eq!(shown["countryId"], "de");
    assert_eq!(shown["languageId"], "de");
    assert_eq!(shown["department"], "R&D");
    assert_eq!(shown["company"], "Contoso");

    let deactivated = scim(
        &app,
        "PATCH",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": [PATCH_OP],
            "Operations": [{ "op": "Replace", "path": "active", "value": "False" }]
        })),
    );
    assert_eq!(deactivated.json()["active"], false);
    assert_eq!(graphql_user(&app, &id)["status"], "DEACTIVATED");
    assert_eq!(filtered(&app, "active eq false")["totalResults"], 1);

    let deleted = scim(&app, "DELETE", &format!("/Users/{id}"), None);
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    refused(&scim(&app, "GET", &format!("/Users/{id}"), None), 404, None);
    refused(
        &scim(&app, "DELETE", &format!("/Users/{id}"), None),
        404,
        None,
    );
    assert_eq!(
        filtered(&app, "userName eq \"updated@testuser.com\"")["totalResults"],
        0
    );
    assert_eq!(graphql_user(&app, &id)["status"], "PENDING_DELETION");
}

/// Okta's provisioning, as its SCIM documentation shows it: look up,
/// create (with a password Kenning ignores), replace with PUT, deactivate
/// with a path-less PATCH.
#[on_every_backend]
fn okta_provisions_a_user_with_put_and_path_less_patch(backend: Backend) {
    let Some(app) = TestApp::spawn(
        backend,
        "okta_provisions_a_user_with_put_and_path_less_patch",
    ) else {
        return;
    };
    let lookup = scim(
        &app,
        "GET",
        "/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100",
        None,
    );
    assert_eq!(lookup.json()["totalResults"], 0);
    let created = scim(
        &app,
        "POST",
        "/Users",
        Some(&json!({
            "schemas": [USER_SCHEMA],
            "userName": "test.user@okta.local",
            "name": { "givenName": "Test", "familyName": "User" },
            "emails": [{ "primary": true, "value": "test.user@okta.local", "type": "work" }],
            "displayName": "Test User",
            "locale": "en-US",
            "externalId": "00ujl29u0le5T6Aj10h7",
            "groups": [],
            "password": "1mz050nq",
            "active": true
        })),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let mut user = created.json();
    let id = user["id"].as_str().unwrap().to_owned();
    assert_eq!(user["preferredLanguage"], "en");

    user["name"]["familyName"] = json!("Userson");
    user["title"] = json!("Tester");
    let put = scim(&app, "PUT", &format!("/Users/{id}"), Some(&user));
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(put.json()["name"]["familyName"], "Userson");
    assert_eq!(put.json()["title"], "Tester");

    // A replacement clears what it leaves out.
    let mut without_title = put.json();
    without_title.as_object_mut().unwrap().remove("title");
    let put = scim(&app, "PUT", &format!("/Users/{id}"), Some(&without_title));
    assert!(put.json().get("title").is_none(), "{}", put.body);

    let off = scim(
        &app,
        "PATCH",
        &format!("/Users/{id}"),
        Some(
            &json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "replace", "value": { "active": false } }] }),
        ),
    );
    assert_eq!(off.status, 200, "{}", off.body);
    assert_eq!(graphql_user(&app, &id)["status"], "DEACTIVATED");
    let on = scim(
        &app,
        "PATCH",
        &format!("/Users/{id}"),
        Some(
            &json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "replace", "value": { "active": true } }] }),
        ),
    );
    assert_eq!(on.json()["active"], true);
    assert_eq!(graphql_user(&app, &id)["status"], "ACTIVE");
}

#[on_every_backend]
fn a_display_name_is_kept_as_sent(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_display_name_is_kept_as_sent") else {
        return;
    };
    // Never set: "givenName familyName", following the names.
    let id = new_user(&app, "grace@example.com");
    let path = format!("/Users/{id}");
    let patch = |ops: Value| {
        let reply = scim(
            &app,
            "PATCH",
            &path,
            Some(&json!({ "schemas": [PATCH_OP], "Operations": ops })),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    };
    assert_eq!(
        scim(&app, "GET", &path, None).json()["displayName"],
        "G grace@example.com"
    );
    let renamed = patch(json!([{ "op": "replace", "path": "name.familyName", "value": "Hopper" }]));
    assert_eq!(renamed["displayName"], "G Hopper");
    // A client that reads the user and writes it back with other names
    // sends the old "first last": the user keeps following the names.
    let mut read_back = renamed.clone();
    read_back["name"]["givenName"] = json!("Grace");
    let put = scim(&app, "PUT", &path, Some(&read_back));
    assert_eq!(put.json()["displayName"], "Grace Hopper", "{}", put.body);
    let renamed = patch(json!([{ "op": "replace", "path": "name.givenName", "value": "G" }]));
    assert_eq!(renamed["displayName"], "G Hopper");

    // A PUT with a new displayName keeps it, as Entra ID and Okta map it.
    let mut user = renamed;
    user["displayName"] = json!("Amazing Grace");
    let put = scim(&app, "PUT", &path, Some(&user));
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(
        scim(&app, "GET", &path, None).json()["displayName"],
        "Amazing Grace"
    );
    let shown = |app: &TestApp| {
        app.graphql(
            "query u($id: UUID!) { user(globalUserId: $id) { displayName } }",
            json!({ "id": id }),
        )
        .json()["data"]["user"]["displayName"]
            .clone()
    };
    assert_eq!(shown(&app), "Amazing Grace");
    // The names change apart from it; a PATCH sets and removes it.
    let renamed = patch(json!([{ "op": "replace", "path": "name.givenName", "value": "Grace" }]));
    assert_eq!(renamed["displayName"], "Amazing Grace");
    let set =
        patch(json!([{ "op": "replace", "path": "displayName", "value": "Rear Admiral Hopper" }]));
    assert_eq!(set["displayName"], "Rear Admiral Hopper");
    let removed = patch(json!([{ "op": "remove", "path": "displayName" }]));
    assert_eq!(removed["displayName"], "Grace Hopper");
    // Too long names the attribute and the rule.
    let too_long = patch_refused(
        &app,
        &path,
        json!([{ "op": "replace", "path": "displayName", "value": "x".repeat(256) }]),
    );
    assert!(too_long.contains("displayName"), "{too_long}");
}

fn patch_refused(app: &TestApp, path: &str, ops: Value) -> String {
    let reply = scim(
        app,
        "PATCH",
        path,
        Some(&json!({ "schemas": [PATCH_OP], "Operations": ops })),
    );
    refused(&reply, 400, Some("invalidValue"))
}

#[on_every_backend]
fn etags_guard_changes_and_spare_reads(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "etags_guard_changes_and_spare_reads") else {
        return;
    };
    let created = scim(
        &app,
        "POST",
        "/Users",
        Some(
            &json!({ "userName": "e@example.com", "name": { "givenName": "E", "familyName": "Tag" } }),
        ),
    );
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let path = format!("/Users/{id}");
    let unchanged = scim_as(
        &app,
        &app.admin_token,
        "GET",
        &path,
        &[("If-None-Match", "W/\"1\"")],
        None,
    );
    assert_eq!((unchanged.status, unchanged.body.as_str()), (304, ""));
    let changed = scim_as(
        &app,
        &app.admin_token,
        "GET",
        &path,
        &[("If-None-Match", "W/\"7\"")],
        None,
    );
    assert_eq!(changed.status, 200);

    let title = |tag: &str, value: &str| {
        scim_as(
            &app,
            &app.admin_token,
            "PATCH",
            &path,
            &[("If-Match", tag)],
            Some(
                &json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "add", "path": "title", "value": value }] }),
            ),
        )
    };
    assert_eq!(title("W/\"1\"", "First").status, 200);
    refused(&title("W/\"1\"", "Second"), 412, None);
    refused(&title("not a tag", "Second"), 412, None);
    assert_eq!(title("*", "Third").status, 200);
    assert_eq!(graphql_user(&app, &id)["position"], "Third");

    // GraphQL and SCIM share the version.
    let version = graphql_user(&app, &id)["version"].as_i64().unwrap();
    assert_eq!(version, 3);
    let stale_put = scim_as(
        &app,
        &app.admin_token,
        "PUT",
        &path,
        &[("If-Match", "W/\"2\"")],
        Some(
            &json!({ "userName": "e@example.com", "name": { "givenName": "E", "familyName": "Tag" } }),
        ),
    );
    refused(&stale_put, 412, None);
    let stale_delete = scim_as(
        &app,
        &app.admin_token,
        "DELETE",
        &path,
        &[("If-Match", "W/\"2\"")],
        None,
    );
    refused(&stale_delete, 412, None);
    let delete = scim_as(
        &app,
        &app.admin_token,
        "DELETE",
        &path,
        &[("If-Match", "W/\"3\"")],
        None,
    );
    assert_eq!(delete.status, 204);
}

#[on_every_backend]
fn every_refusal_is_a_scim_error_naming_the_problem(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "every_refusal_is_a_scim_error_naming_the_problem")
    else {
        return;
    };
    let ada = json!({ "userName": "ada@example.com", "externalId": "e-1", "name": { "givenName": "Ada", "familyName": "L" } });
    let id = scim(&app, "POST", "/Users", Some(&ada)).json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut same_email = ada.clone();
    same_email["externalId"] = json!("e-2");
    same_email["userName"] = json!("another name");
    same_email["emails"] = json!([{ "value": "ADA@example.com" }]);
    let again = refused(
        &scim(&app, "POST", "/Users", Some(&same_email)),
        409,
        Some("uniqueness"),
    );
    assert!(again.contains("emails"), "{again}");
    let same_name = json!({ "userName": "ADA@example.com", "emails": [{ "value": "ada2@example.com" }], "externalId": "e-3", "name": { "givenName": "A", "familyName": "L" } });
    let taken_name = refused(
        &scim(&app, "POST", "/Users", Some(&same_name)),
        409,
        Some("uniqueness"),
    );
    assert!(taken_name.contains("userName"), "{taken_name}");
    let same_external = json!({ "userName": "bob@example.com", "externalId": "e-1", "name": { "givenName": "B", "familyName": "B" } });
    let taken = refused(
        &scim(&app, "POST", "/Users", Some(&same_external)),
        409,
        Some("uniqueness"),
    );
    assert!(taken.contains("externalId"), "{taken}");

    let invalid = refused(
        &scim(
            &app,
            "POST",
            "/Users",
            Some(
                &json!({ "userName": "not an address", "name": { "givenName": "", "familyName": "x".repeat(51) } }),
            ),
        ),
        400,
        Some("invalidValue"),
    );
    for named in ["emails", "name.givenName", "name.familyName"] {
        assert!(invalid.contains(named), "{named} in {invalid}");
    }
    let no_address =
        json!({ "userName": "c\\corp", "name": { "givenName": "C", "familyName": "D" } });
    refused(
        &scim(&app, "POST", "/Users", Some(&no_address)),
        400,
        Some("invalidValue"),
    );
    refused(
        &scim(
            &app,
            "POST",
            "/Users",
            Some(&json!({ "id": "mine", "userName": "i@example.com" })),
        ),
        400,
        Some("mutability"),
    );
    let bad_json = app.request(
        "POST",
        &format!("{BASE}/Users"),
        &[
            ("Authorization", &format!("Bearer {}", app.admin_token)),
            ("Content-Type", "application/json"),
        ],
        b"{not json",
    );
    refused(&bad_json, 400, Some("invalidSyntax"));
    let not_json = app.request(
        "POST",
        &format!("{BASE}/Users"),
        &[
            ("Authorization", &format!("Bearer {}", app.admin_token)),
            ("Content-Type", "text/plain"),
        ],
        b"hello",
    );
    refused(&not_json, 415, None);
    refused(
        &scim(&app, "GET", "/Users?filter=userName%20eq", None),
        400,
        Some("invalidFilter"),
    );
    refused(
        &scim(
            &app,
            "GET",
            &format!("/Users?filter={}", encode("title eq \"x\"")),
            None,
        ),
        400,
        Some("invalidFilter"),
    );
    refused(
        &scim(&app, "GET", "/Users?count=many", None),
        400,
        Some("invalidValue"),
    );
    refused(&scim(&app, "GET", "/Users/no-such-id", None), 404, None);
    refused(
        &scim(
            &app,
            "GET",
            "/Users/8f4c1e36-0000-4000-8000-000000000000",
            None,
        ),
        404,
        None,
    );
    let read_only = json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "replace", "path": "meta.created", "value": "2020-01-01T00:00:00Z" }] });
    refused(
        &scim(&app, "PATCH", &format!("/Users/{id}"), Some(&read_only)),
        400,
        Some("mutability"),
    );
    let removal = json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "remove", "path": "name.givenName" }] });
    let detail = refused(
        &scim(&app, "PATCH", &format!("/Users/{id}"), Some(&removal)),
        400,
        Some("invalidValue"),
    );
    assert!(detail.contains("name.givenName"), "{detail}");
    assert_eq!(
        graphql_user(&app, &id)["firstname"],
        "Ada",
        "nothing half-written"
    );
    refused(&scim(&app, "POST", "/Users/x", None), 405, None);
}

#[on_every_backend]
fn lists_page_filter_and_choose_attributes(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "lists_page_filter_and_choose_attributes") else {
        return;
    };
    for (i, last) in ["Able", "Baker", "Charlie", "Delta", "Echo"]
        .iter()
        .enumerate()
    {
        let body = json!({ "userName": format!("u{i}@example.com"), "name": { "givenName": "U", "familyName": last }, "title": "T" });
        assert_eq!(scim(&app, "POST", "/Users", Some(&body)).status, 201);
    }
    let page = scim(&app, "GET", "/Users?startIndex=2&count=2", None).json();
    assert_eq!(page["totalResults"], 5);
    assert_eq!(page["startIndex"], 2);
    assert_eq!(page["itemsPerPage"], 2);
    let names: Vec<&str> = page["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"]["familyName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Baker", "Charlie"]);
    let created = scim(
        &app,
        "POST",
        "/Users?attributes=userName",
        Some(
            &json!({ "userName": "f@example.com", "name": { "givenName": "F", "familyName": "Zulu" } }),
        ),
    );
    assert!(created.json().get("meta").is_none());
    assert!(
        created.header("location").is_some(),
        "Location even without meta"
    );
    let counted = scim(&app, "GET", "/Users?count=0", None).json();
    assert_eq!(
        (
            counted["totalResults"].clone(),
            counted["Resources"].clone()
        ),
        (json!(6), json!([]))
    );
    let beyond = scim(&app, "GET", "/Users?startIndex=9", None).json();
    assert_eq!(beyond["Resources"], json!([]));

    let either = filtered(
        &app,
        "name.familyName sw \"b\" or (name.familyName ew \"A\" and not (userName co \"u2\"))",
    );
    let names: Vec<&str> = either["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"]["familyName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Baker", "Delta"]);

    let only = scim(
        &app,
        "GET",
        "/Users?count=1&attributes=userName,name.familyName",
        None,
    )
    .json();
    let first = &only["Resources"][0];
    let mut keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["id", "name", "schemas", "userName"]);
    assert_eq!(first["name"], json!({ "familyName": "Able" }));
    let without = scim(
        &app,
        "GET",
        "/Users?count=1&excludedAttributes=emails,meta,name.formatted",
        None,
    )
    .json();
    let first = &without["Resources"][0];
    assert!(first.get("emails").is_none() && first.get("meta").is_none());
    assert_eq!(
        first["name"],
        json!({ "familyName": "Able", "givenName": "U" })
    );
    assert!(first.get("title").is_some());
}

#[on_every_backend]
fn junk_never_gets_a_server_error(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "junk_never_gets_a_server_error") else {
        return;
    };
    let id = scim(
        &app,
        "POST",
        "/Users",
        Some(&json!({ "userName": "j@example.com", "name": { "givenName": "J", "familyName": "Unk" } })),
    )
    .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let deep = (0..200).fold(json!(1), |v, _| json!([v]));
    let bodies = [
        json!(null),
        json!([]),
        json!("text"),
        json!(7),
        deep,
        json!({ "userName": ["a"] }),
        json!({ "userName": "a@b.c", "name": "n" }),
        json!({ "userName": "a@b.c", "emails": {} }),
        json!({ "userName": "a@b.c", "emails": [1, null] }),
        json!({ "userName": "a@b.c", "active": 3 }),
        json!({ "userName": "a@b.c\u{0}", "name": { "givenName": "\u{0}", "familyName": "x" } }),
        json!({ "Operations": "x" }),
        json!({ "Operations": [1] }),
        json!({ "Operations": [{ "op": "add", "path": 5, "value": 1 }] }),
        json!({ "Operations": [{ "op": "add", "path": "emails[", "value": 1 }] }),
        json!({ "Operations": [{ "op": "add", "path": "emails[type eq \"x\"]", "value": 1 }] }),
        json!({ "Operations": [{ "op": "replace", "path": "name.givenName.x", "value": 1 }] }),
        json!({ "Operations": [{ "op": "replace", "path": "title", "value": { "a": 1 } }] }),
        json!({ "Operations": [{ "op": "add", "path": "userName", "value": 1 }] }),
    ];
    let user = format!("/Users/{id}");
    for body in &bodies {
        for (method, path) in [
            ("POST", "/Users"),
            ("PUT", user.as_str()),
            ("PATCH", user.as_str()),
        ] {
            let reply = scim(&app, method, path, Some(body));
            assert!(
                reply.status < 500 && reply.status >= 400,
                "{method} {body}: {} {}",
                reply.status,
                reply.body
            );
        }
    }
    for filter in [
        "userName eq \"\u{0}\"",
        "(((((",
        "userName eq \"a\" and",
        "meta.lastModified gt \"2026-13-45T99:99:99Z\"",
        "emails[type eq \"work\"] eq \"x\"",
        "userName eq 1e999",
    ] {
        let reply = scim(
            &app,
            "GET",
            &format!("/Users?filter={}", encode(filter)),
            None,
        );
        assert!(
            reply.status == 400 || reply.status == 200,
            "{filter}: {}",
            reply.body
        );
    }
    let reply = scim(&app, "GET", "/Users?filter=%ZZ", None);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(graphql_user(&app, &id)["lastname"], "Unk");
}
