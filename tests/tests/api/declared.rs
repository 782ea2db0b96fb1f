//! What a person says they know, through the doors: added and removed on
//! their own page, shown to others as "Says they know", found by a
//! search, read by GraphQL, and said by nobody else.

use kenning_domain::{Scope, TopicText};
use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::json;

const DECLARED: &str =
    "query d($id: UUID!) { declaredTopics(globalUserId: $id) { topic key declaredAt } }";
const EXPERTS: &str =
    "query e($q: String!) { experts(query: $q) { user { globalUserId } topics { saysTheyKnow } } }";

#[on_every_backend]
fn a_person_says_what_they_know_on_their_page_and_is_found_by_it(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_person_says_what_they_know") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    app.create_user("bob@example.com", "Bob", "Byron");
    let session = app.sign_in("ada@example.com");
    let me = app.page("/me", &session);
    assert!(
        me.body.contains("Topics you know that Kenning missed"),
        "{}",
        me.body
    );
    let csrf = me.csrf().expect("a form on the page");
    let added = app.submit(
        "/me/declared",
        &session,
        &[("csrf", &csrf), ("topic", "COBOL batch jobs")],
    );
    assert_eq!(added.status, 303, "{}", added.body);
    let me = app.page("/me", &session);
    assert!(me.body.contains("Remove COBOL batch jobs"), "{}", me.body);

    // Others read it on her page, and a search finds her by it.
    let bob = app.sign_in("bob@example.com");
    let page = app.page(&format!("/people/{ada}"), &bob);
    assert!(page.body.contains("Says they know"), "{}", page.body);
    assert!(page.body.contains("COBOL batch jobs"), "{}", page.body);
    let search = app.page("/?q=COBOL+batch+jobs", &bob);
    assert!(
        search.body.contains(&format!("/people/{ada}")),
        "{}",
        search.body
    );
    assert!(search.body.contains("(says they know)"), "{}", search.body);

    let reader = app.token(&[Scope::ExpertiseRead]);
    let read = app.graphql_as(&reader, DECLARED, json!({ "id": ada }));
    assert_eq!(read.status, 200, "{}", read.body);
    let topics = read.json()["data"]["declaredTopics"].clone();
    assert_eq!(topics[0]["topic"], "COBOL batch jobs", "{topics}");
    let key = topics[0]["key"].as_str().unwrap().to_owned();
    let found = app.graphql_as(&reader, EXPERTS, json!({ "q": "cobol batch jobs" }));
    assert_eq!(
        found.json()["data"]["experts"][0]["user"]["globalUserId"],
        ada.as_str(),
        "{}",
        found.body
    );
    assert_eq!(
        found.json()["data"]["experts"][0]["topics"][0]["saysTheyKnow"],
        true,
        "{}",
        found.body
    );

    // Without the page's token nothing changes.
    let forged = app.submit("/me/declared", &session, &[("topic", "Fortran")]);
    assert_eq!(forged.status, 403, "{}", forged.body);
    // A topic longer than any is refused, naming the bound.
    let long = "x".repeat(TopicText::MAX_CHARS + 1);
    let refused = app.submit(
        "/me/declared",
        &session,
        &[("csrf", &csrf), ("topic", &long)],
    );
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused
            .body
            .contains(&format!("at most {} characters", TopicText::MAX_CHARS)),
        "{}",
        refused.body
    );
    // A blank topic is refused by name, and so is a form without one.
    let blank = app.submit(
        "/me/declared",
        &session,
        &[("csrf", &csrf), ("topic", "  ")],
    );
    assert_eq!(blank.status, 400, "{}", blank.body);
    let neither = app.submit("/me/declared", &session, &[("csrf", &csrf)]);
    assert_eq!(neither.status, 400, "{}", neither.body);

    // Removed, it is gone everywhere.
    let removed = app.submit("/me/declared", &session, &[("csrf", &csrf), ("key", &key)]);
    assert_eq!(removed.status, 303, "{}", removed.body);
    let read = app.graphql_as(&reader, DECLARED, json!({ "id": ada }));
    assert_eq!(
        read.json()["data"]["declaredTopics"],
        json!([]),
        "{}",
        read.body
    );
    let page = app.page(&format!("/people/{ada}"), &bob);
    assert!(!page.body.contains("COBOL batch jobs"), "{}", page.body);
}
