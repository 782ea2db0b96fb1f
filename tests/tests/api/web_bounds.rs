//! What a person signed in to the web app can make Kenning keep is
//! bounded: a hidden topic's length and how many a person hides.

use kenning_domain::{Scoring, TopicText, UserId, MAX_HIDDEN_TOPICS};
use kenning_tests::app::{Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::json;

const HIDDEN_TOPICS: &str = "query h($id: UUID!) { hiddenTopics(globalUserId: $id) }";
const HIDE_TOPIC: &str =
    "mutation h($id: UUID!, $t: String!) { hideTopic(globalUserId: $id, topic: $t) }";

/// The session's token against request forgery, read off a page.
fn csrf_of(page: &Reply) -> String {
    let (_, rest) = page
        .body
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no token on the page: {}", page.body));
    rest.split('"').next().unwrap().to_owned()
}

fn hidden_count(app: &TestApp, id: &str) -> usize {
    let reply = app.graphql(HIDDEN_TOPICS, json!({ "id": id }));
    reply.json()["data"]["hiddenTopics"]
        .as_array()
        .unwrap_or_else(|| panic!("hiddenTopics failed: {}", reply.body))
        .len()
}

/// A topic is named in at most as many characters as the longest topic,
/// and a person hides at most so many: beyond either the form is refused
/// with a page saying which bound, GraphQL with the field and the rule,
/// and nothing is kept or recorded.
#[on_every_backend]
fn hiding_topics_is_bounded_in_length_and_number(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "hiding_topics_is_bounded") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let session = app.sign_in("ada@example.com");
    let csrf = csrf_of(&app.page("/me", &session));
    let hide = |topic: &str| {
        app.submit(
            "/me/topics",
            &session,
            &[("csrf", &csrf), ("topic", topic), ("hidden", "true")],
        )
    };

    let long = "x".repeat(TopicText::MAX_CHARS + 1);
    let refused = hide(&long);
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused
            .body
            .contains(&format!("at most {} characters", TopicText::MAX_CHARS)),
        "{}",
        refused.body
    );
    let graphql = app.graphql(HIDE_TOPIC, json!({ "id": ada, "t": long }));
    assert_eq!(graphql.error_code().as_deref(), Some("ValidationError"));
    assert!(graphql.body.contains("topic"), "{}", graphql.body);
    assert_eq!(hidden_count(&app, &ada), 0);

    let id = ada.parse().map(UserId::from_uuid).unwrap();
    let expertise = app.services.expertise(Scoring::default(), None);
    for n in 0..MAX_HIDDEN_TOPICS {
        expertise
            .set_topic_hidden(id, &format!("subject{n}"), true)
            .unwrap();
    }
    assert_eq!(hidden_count(&app, &ada), MAX_HIDDEN_TOPICS);
    let full = hide("one more");
    assert_eq!(full.status, 400, "{}", full.body);
    assert!(
        full.body
            .contains(&format!("hides at most {MAX_HIDDEN_TOPICS} topics")),
        "{}",
        full.body
    );
    let graphql = app.graphql(HIDE_TOPIC, json!({ "id": ada, "t": "one more" }));
    assert_eq!(graphql.error_code().as_deref(), Some("ValidationError"));
    assert!(graphql.body.contains("hiddenTopics"), "{}", graphql.body);
    assert_eq!(hidden_count(&app, &ada), MAX_HIDDEN_TOPICS);
    // Hiding one hidden already is no change, so not refused; showing one
    // makes room for another.
    assert_eq!(hide("subject7").status, 303);
    let shown = app.submit(
        "/me/topics",
        &session,
        &[("csrf", &csrf), ("topic", "subject7"), ("hidden", "false")],
    );
    assert_eq!(shown.status, 303, "{}", shown.body);
    assert_eq!(hide("one more").status, 303);
    assert_eq!(hidden_count(&app, &ada), MAX_HIDDEN_TOPICS);
}
