use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::documents::GET_USER;
use kenning_tests::on_every_backend;
use serde_json::json;

fn a_created_user_can_be_read_back(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_created_user_can_be_read_back") else {
        return;
    };
    let id = app.create_user("ada@example.com", "Ada", "Lovelace");
    let reply = app.graphql(GET_USER, json!({ "globalUserId": id }));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let user = &reply.json()["data"]["user"];
    assert_eq!(user["email"], "ada@example.com");
    assert_eq!(user["languageId"], "en");
}

on_every_backend!(a_created_user_can_be_read_back);
