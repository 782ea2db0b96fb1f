//! The audit trail through the API: what GraphQL, SCIM and the purge
//! changed, who did it, read with `audit:read`, a page at a time and
//! filtered.

use chrono::Duration;
use kenning_domain::{CredentialKind, Scope};
use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::documents::DELETE_USER;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const TRAIL: &str = "query trail($limit: Int, $before: String, $resourceId: UUID, \
    $resourceType: String, $credentialId: UUID, $kinds: [String!], $from: DateTime, \
    $until: DateTime) { auditTrail(limit: $limit, before: $before, resourceId: $resourceId, \
    resourceType: $resourceType, credentialId: $credentialId, kinds: $kinds, from: $from, \
    until: $until) { nextCursor events { cursor at kind resourceType resourceId fields \
    actor { credentialId name channel } } } }";

/// A token named `name` with `scopes`, and its credential's id.
fn named_token(app: &TestApp, name: &str, scopes: &[Scope]) -> (String, String) {
    let issued = app
        .services
        .credentials
        .issue(CredentialKind::AccessToken, name, scopes, None)
        .unwrap();
    (issued.secret, issued.credential.id.to_string())
}

fn trail(app: &TestApp, token: &str, variables: Value) -> Value {
    let reply = app.graphql_as(token, TRAIL, variables);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    assert!(body["errors"].is_null(), "{}", reply.body);
    body["data"]["auditTrail"].clone()
}

fn kinds(page: &Value) -> Vec<String> {
    page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[on_every_backend]
fn graphql_scim_and_the_purge_are_each_recorded_as_their_actor(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "audit_records_every_door") else {
        return;
    };
    let (hr, hr_id) = named_token(&app, "hr-system", &[Scope::UsersWrite, Scope::UsersRead]);
    let (idp, idp_id) = named_token(&app, "identity-provider", &[Scope::UsersWrite]);
    let (auditor, _) = named_token(&app, "auditor", &[Scope::AuditRead]);

    let created = app.graphql_as(
        &hr,
        "mutation { createUser(createUserInput: {email: \"ada@example.com\", firstname: \"Ada\", lastname: \"Lovelace\"}) { globalUserId } }",
        json!({}),
    );
    let ada = created.json()["data"]["createUser"]["globalUserId"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", created.body))
        .to_owned();
    let hidden = app.graphql_as(
        &hr,
        "mutation hide($id: UUID!) { hideTopic(globalUserId: $id, topic: \"engines\") }",
        json!({ "id": ada }),
    );
    assert!(hidden.json()["errors"].is_null(), "{}", hidden.body);
    let scim = |method: &str, path: &str, body: &Value| {
        app.request(
            method,
            &format!("/accounts/api/v1/scim/v2{path}"),
            &[
                ("Authorization", &format!("Bearer {idp}")),
                ("Content-Type", "application/scim+json"),
            ],
            body.to_string().as_bytes(),
        )
    };
    let provisioned = scim(
        "POST",
        "/Users",
        &json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "bob@example.com", "name": {"givenName": "Bob", "familyName": "Byron"}}),
    );
    assert_eq!(provisioned.status, 201, "{}", provisioned.body);
    let bob = provisioned.json()["id"].as_str().unwrap().to_owned();
    let patched = scim(
        "PATCH",
        &format!("/Users/{bob}"),
        &json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "title", "value": "Engineer"}]}),
    );
    assert_eq!(patched.status, 200, "{}", patched.body);
    let team = scim(
        "POST",
        "/Groups",
        &json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "Team", "members": [{"value": ada}]}),
    );
    assert_eq!(team.status, 201, "{}", team.body);
    let team = team.json()["id"].as_str().unwrap().to_owned();
    app.graphql_as(&hr, DELETE_USER, json!({ "globalUserId": ada }));
    app.advance(Duration::days(14));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);

    let page = trail(&app, &auditor, json!({ "resourceType": "user" }));
    assert_eq!(
        kinds(&page),
        [
            "user.anonymized",
            "user.deleted",
            "user.updated",
            "user.created",
            "user.updated",
            "user.created"
        ]
    );
    let events = page["events"].as_array().unwrap();
    let actor = |i: usize| &events[i]["actor"];
    assert_eq!(actor(0)["name"], "purge");
    assert_eq!(actor(0)["channel"], "purge");
    assert!(actor(0)["credentialId"].is_null());
    assert_eq!(actor(1)["name"], "hr-system");
    assert_eq!(actor(1)["channel"], "graphql");
    assert_eq!(actor(1)["credentialId"], hr_id.as_str());
    assert_eq!(events[2]["resourceId"], bob.as_str());
    assert_eq!(events[2]["fields"], json!(["position"]));
    assert_eq!(actor(2)["channel"], "scim");
    assert_eq!(actor(2)["credentialId"], idp_id.as_str());
    assert_eq!(events[3]["resourceId"], bob.as_str());
    assert_eq!(actor(3)["name"], "identity-provider");
    assert_eq!(events[4]["resourceId"], ada.as_str());
    assert_eq!(events[4]["fields"], json!(["hiddenTopics"]));
    assert_eq!(actor(4)["name"], "hr-system");
    assert_eq!(actor(4)["channel"], "graphql");
    assert_eq!(events[5]["resourceId"], ada.as_str());

    let of_team = trail(&app, &auditor, json!({ "resourceId": team }));
    assert_eq!(kinds(&of_team), ["group.updated", "group.created"]);
    assert_eq!(of_team["events"][0]["fields"], json!(["members"]));
    assert_eq!(of_team["events"][0]["actor"]["name"], "purge");

    // Reading the trail needs audit:read, which hr's token lacks.
    let refused = app.graphql_as(&hr, TRAIL, json!({}));
    assert_eq!(
        refused.json()["errors"][0]["extensions"]["code"],
        "Forbidden",
        "{}",
        refused.body
    );
}

#[on_every_backend]
fn the_trail_is_paged_newest_first_and_filtered(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "audit_pages_and_filters") else {
        return;
    };
    let (writer, writer_id) = named_token(&app, "writer", &[Scope::UsersWrite]);
    let (auditor, _) = named_token(&app, "auditor", &[Scope::AuditRead]);
    for n in 0..3 {
        let reply = app.graphql_as(
            &writer,
            &format!("mutation {{ createUser(createUserInput: {{email: \"p{n}@example.com\", firstname: \"P\", lastname: \"{n}\"}}) {{ globalUserId }} }}"),
            json!({}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        app.advance(Duration::minutes(1));
    }

    let everything = trail(&app, &auditor, json!({ "limit": 500 }));
    let all = kinds(&everything);
    assert!(everything["nextCursor"].is_null());
    let first = trail(&app, &auditor, json!({ "limit": 2 }));
    assert_eq!(kinds(&first), all[..2]);
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let rest = trail(&app, &auditor, json!({ "limit": 500, "before": cursor }));
    assert_eq!(kinds(&rest), all[2..]);

    let by_writer = trail(&app, &auditor, json!({ "credentialId": writer_id }));
    assert_eq!(kinds(&by_writer), ["user.created"; 3]);
    let start = by_writer["events"][2]["at"].as_str().unwrap().to_owned();
    let until = by_writer["events"][0]["at"].as_str().unwrap().to_owned();
    let window = trail(
        &app,
        &auditor,
        json!({ "credentialId": writer_id, "from": start, "until": until }),
    );
    assert_eq!(
        window["events"].as_array().unwrap().len(),
        2,
        "from included, until not"
    );
    let issued = trail(&app, &auditor, json!({ "kinds": ["credential.issued"] }));
    assert!(kinds(&issued).iter().all(|k| k == "credential.issued"));
    assert!(
        kinds(&issued).len() >= 3,
        "the admin's, the writer's, the auditor's"
    );

    let bad = app.graphql_as(
        &auditor,
        TRAIL,
        json!({ "kinds": ["user.renamed"], "before": "nope", "resourceType": "robot", "limit": 0 }),
    );
    let error = &bad.json()["errors"][0];
    assert_eq!(
        error["extensions"]["code"], "ValidationError",
        "{}",
        bad.body
    );
}
