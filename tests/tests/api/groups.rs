//! Groups, end to end over SCIM's `/Groups`, as Entra ID and Okta
//! provision them: members added, removed and replaced, renames and
//! deletes; what a group refuses; a user who is erased leaves every group
//! and a group's members stay users when it is deleted.

use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

use crate::scim::{
    encode, graphql_user, new_user, refused, scim, scim_as, BASE, GROUP_SCHEMA, PATCH_OP,
};

fn member_ids(group: &Value) -> Vec<String> {
    let mut ids: Vec<String> = group["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["value"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

fn sorted(ids: &[&String]) -> Vec<String> {
    let mut ids: Vec<String> = ids.iter().map(|s| (*s).clone()).collect();
    ids.sort();
    ids
}

/// Entra ID's group provisioning, as Microsoft's documentation shows it:
/// look up by displayName, create empty, add members, remove one member
/// (Entra ID's value form), rename, delete.
#[on_every_backend]
fn entra_id_provisions_groups_and_their_members(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "entra_id_provisions_groups_and_their_members") else {
        return;
    };
    let ada = new_user(&app, "ada@example.com");
    let bob = new_user(&app, "bob@example.com");
    let lookup = filtered_groups(&app, "displayName eq \"Group1DisplayName\"");
    assert_eq!(lookup["totalResults"], 0);
    let created = scim(
        &app,
        "POST",
        "/Groups",
        Some(&json!({
            "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
            "displayName": "Group1DisplayName",
            "meta": { "resourceType": "Group" },
            "schemas": [GROUP_SCHEMA]
        })),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.header("etag"), Some("W/\"1\""));
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let path = format!("/Groups/{id}");
    assert_eq!(created.json()["members"], json!([]));

    let added = scim(
        &app,
        "PATCH",
        &path,
        Some(&json!({ "schemas": [PATCH_OP], "Operations": [{
            "op": "Add", "path": "members", "value": [{ "value": ada }, { "value": bob }]
        }] })),
    );
    assert_eq!(added.status, 200, "{}", added.body);
    assert_eq!(member_ids(&added.json()), sorted(&[&ada, &bob]));
    let removed = scim(
        &app,
        "PATCH",
        &path,
        Some(&json!({ "schemas": [PATCH_OP], "Operations": [{
            "op": "Remove", "path": "members", "value": [{ "value": ada }]
        }] })),
    );
    assert_eq!(member_ids(&removed.json()), sorted(&[&bob]));
    let renamed = scim(
        &app,
        "PATCH",
        &path,
        Some(&json!({ "schemas": [PATCH_OP], "Operations": [
            { "op": "Replace", "path": "displayName", "value": "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName" }
        ] })),
    );
    assert_eq!(
        renamed.json()["displayName"],
        "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName"
    );
    assert_eq!(renamed.header("etag"), Some("W/\"4\""));
    assert_eq!(
        filtered_groups(
            &app,
            "externalId eq \"8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159\""
        )["Resources"][0]["id"],
        id.as_str()
    );
    assert_eq!(scim(&app, "DELETE", &path, None).status, 204);
    refused(&scim(&app, "GET", &path, None), 404, None);
    assert_eq!(
        graphql_user(&app, &bob)["status"],
        "ACTIVE",
        "members stay users"
    );
}

fn filtered_groups(app: &TestApp, filter: &str) -> Value {
    let reply = scim(
        app,
        "GET",
        &format!("/Groups?filter={}", encode(filter)),
        None,
    );
    assert_eq!(reply.status, 200, "{filter}: {}", reply.body);
    reply.json()
}

/// Okta's group pushes: create with members, replace with PUT, and member
/// changes by value filter; plus the refusals and what erasure does.
#[on_every_backend]
fn okta_pushes_groups_and_members_leave_when_erased(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "okta_pushes_groups_and_members_leave_when_erased")
    else {
        return;
    };
    let ada = new_user(&app, "ada@example.com");
    let bob = new_user(&app, "bob@example.com");
    let created = scim(
        &app,
        "POST",
        "/Groups",
        Some(
            &json!({ "schemas": [GROUP_SCHEMA], "displayName": "Test SCIMv2", "members": [{ "value": ada, "display": "ada@example.com" }] }),
        ),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let group = created.json();
    let id = group["id"].as_str().unwrap().to_owned();
    let path = format!("/Groups/{id}");
    assert_eq!(
        group["members"][0]["$ref"],
        format!("{}{BASE}/Users/{ada}", app.base)
    );

    let mut replaced = group.clone();
    replaced["members"] = json!([{ "value": ada }, { "value": bob }]);
    replaced["displayName"] = json!("Test SCIMv2 renamed");
    let put = scim(&app, "PUT", &path, Some(&replaced));
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(member_ids(&put.json()), sorted(&[&ada, &bob]));
    let filtered_remove = scim(
        &app,
        "PATCH",
        &path,
        Some(
            &json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "remove", "path": format!("members[value eq \"{bob}\"]") }] }),
        ),
    );
    assert_eq!(member_ids(&filtered_remove.json()), sorted(&[&ada]));

    // Refusals.
    let stranger = "8f4c1e36-0000-4000-8000-000000000000";
    let unknown = scim(
        &app,
        "POST",
        "/Groups",
        Some(&json!({ "displayName": "X", "members": [{ "value": stranger }] })),
    );
    assert!(refused(&unknown, 400, Some("invalidValue")).contains("members"));
    refused(
        &scim(&app, "POST", "/Groups", Some(&json!({ "displayName": "" }))),
        400,
        Some("invalidValue"),
    );
    let twice = json!({ "displayName": "A", "externalId": "okta-1" });
    assert_eq!(scim(&app, "POST", "/Groups", Some(&twice)).status, 201);
    refused(
        &scim(&app, "POST", "/Groups", Some(&twice)),
        409,
        Some("uniqueness"),
    );
    refused(
        &scim(
            &app,
            "GET",
            &format!("/Groups?filter={}", encode("displayName co \"A\"")),
            None,
        ),
        400,
        Some("invalidFilter"),
    );
    refused(&scim(&app, "GET", "/Groups/not-an-id", None), 404, None);
    let stale = scim_as(
        &app,
        &app.admin_token,
        "DELETE",
        &path,
        &[("If-Match", "W/\"1\"")],
        None,
    );
    refused(&stale, 412, None);
    let all = scim(&app, "GET", "/Groups?count=1", None).json();
    assert_eq!(
        (all["totalResults"].clone(), all["itemsPerPage"].clone()),
        (json!(2), json!(1))
    );

    // Deleting a user keeps it in the group until it is anonymized.
    assert_eq!(
        scim(&app, "DELETE", &format!("/Users/{ada}"), None).status,
        204
    );
    assert_eq!(
        member_ids(&scim(&app, "GET", &path, None).json()),
        sorted(&[&ada])
    );
    app.advance(chrono::Duration::days(15));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    let after = scim(&app, "GET", &path, None).json();
    assert_eq!(after["members"], json!([]));
}
