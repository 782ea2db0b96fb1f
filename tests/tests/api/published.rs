//! The published client documents, sent verbatim.

use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::documents::*;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

fn data(reply: &kenning_tests::app::Reply, field: &str) -> Value {
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    assert!(body.get("errors").is_none(), "{}", reply.body);
    body["data"][field].clone()
}

#[on_every_backend]
fn every_published_document_works_verbatim(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "every_published_document_works_verbatim") else {
        return;
    };
    let created = data(
        &app.graphql(
            CREATE_USER,
            json!({ "createUserInput": {
                "firstname": "Ada", "lastname": "Lovelace", "email": "ada@example.com",
                "externalId": "emp-1815",
            }}),
        ),
        "createUser",
    );
    let id = created["globalUserId"].as_str().unwrap().to_owned();

    let users = data(
        &app.graphql(
            GET_USERS,
            json!({ "searchText": "", "offset": 0, "limit": 10 }),
        ),
        "users",
    );
    assert_eq!(
        users,
        json!([{
            "globalUserId": id, "externalId": "emp-1815", "firstname": "Ada",
            "lastname": "Lovelace", "email": "ada@example.com", "location": null,
            "department": null, "position": null, "gender": null, "about": null,
            "languageId": "en", "employmentStart": null, "isSystem": false,
            "isHidden": false, "avatarUrl": null, "dateDeleted": null,
        }])
    );
    // searchText declared nullable in the document: null lists all.
    let all = data(
        &app.graphql(GET_USERS, json!({ "searchText": null })),
        "users",
    );
    assert_eq!(all.as_array().unwrap().len(), 1);

    let updated = data(
        &app.graphql(
            UPDATE_USER,
            json!({ "updateUserInput": {
                "globalUserId": id, "firstname": "Augusta Ada", "languageId": "de",
                "countryId": "gb", "company": "Analytical Engines", "department": "Research",
                "position": "Analyst", "location": "London", "about": "First programmer",
            }}),
        ),
        "updateUser",
    );
    assert_eq!(
        updated,
        json!({
            "firstname": "Augusta Ada", "lastname": "Lovelace", "email": "ada@example.com",
            "externalId": "emp-1815", "languageId": "de", "countryId": "gb", "gender": null,
            "company": "Analytical Engines", "department": "Research", "position": "Analyst",
            "location": "London", "about": "First programmer", "globalUserId": id,
        })
    );

    let changed = data(
        &app.graphql(
            UPDATE_USER_EMAIL,
            json!({ "updateUserEmailInput": { "globalUserId": id, "email": "ada@lovelace.example" } }),
        ),
        "updateUserEmail",
    );
    assert_eq!(
        changed,
        json!({ "globalUserId": id, "email": "ada@lovelace.example" })
    );

    let user = data(
        &app.graphql(GET_USER, json!({ "globalUserId": id })),
        "user",
    );
    assert_eq!(user["email"], "ada@lovelace.example");
    assert_eq!(user["company"], "Analytical Engines");
    assert_eq!(user["countryId"], "gb");
    assert_eq!(user["created"], "2026-03-02T08:00:00Z");
    assert_eq!(user["dateDeleted"], Value::Null);
    assert_eq!(user["isFederated"], false);
    assert_eq!(user["avatarUrl"], Value::Null);

    for (document, field) in [
        (DEACTIVATE_USER, "deactivateUser"),
        (REACTIVATE_USER, "reactivateUser"),
        (DELETE_USER, "deleteUser"),
        (CANCEL_DELETE, "cancelDelete"),
    ] {
        let result = data(&app.graphql(document, json!({ "globalUserId": id })), field);
        assert_eq!(result, json!({ "globalUserId": id }), "{field}");
    }
}
