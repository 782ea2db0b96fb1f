//! What a person hides, and the people `experts` does not rank, show
//! through no door: not among the topics that go with a person's best one
//! on their page, not in the count of people under "how Kenning read the
//! question", not in GraphQL's `userTopics` and `queryReading`.

use kenning_domain::Scope;
use kenning_tests::app::{Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::DEACTIVATE_USER;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

/// Three notes of Ada's, each on Kubernetes and on Zephyrine, a tool
/// nobody else writes about.
const ADA_NOTES: [&str; 3] = [
    "Zephyrine operators restart failed Kubernetes clusters. The Zephyrine scheduler places Kubernetes pods on the nodes of our clusters.",
    "Kubernetes clusters run the payment services. Zephyrine tuning keeps the Kubernetes clusters fast when traffic grows.",
    "We moved the Kubernetes clusters to Zephyrine. Zephyrine watches every Kubernetes node and drains the clusters before upgrades.",
];
const BOB_NOTE: &str = "Kubernetes clusters schedule containers across nodes. Helm charts deploy the services onto the Kubernetes clusters, and Helm rollbacks undo a failed release.";
const USER_TOPICS: &str = "query t($id: UUID!) { userTopics(globalUserId: $id) { topic key } }";
const QUERY_READING: &str =
    "query r($q: String!) { queryReading(query: $q) { subjectKnown topics { key people } unknownTopics } }";
const EXPERTS: &str = "query e($q: String!) { experts(query: $q) { globalUserId } }";

fn teach(app: &TestApp, key: &str, email: &str, text: &str, day: u32) {
    let reply = app.upload(
        key,
        &json!({
            "entity_type": "document",
            "action_type": "create",
            "action_date": format!("2026-02-{day:02}T08:00:00.000Z"),
            "user_email": email,
            "text": text,
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
}

/// Ada with her three notes, Bob with his: (Ada's id, Bob's id).
fn colleagues(app: &TestApp) -> (String, String) {
    let key = app.api_key();
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let bob = app.create_user("bob@example.com", "Bob", "Byron");
    for (n, note) in ADA_NOTES.iter().enumerate() {
        teach(app, &key, "ada@example.com", note, n as u32 + 1);
    }
    teach(app, &key, "bob@example.com", BOB_NOTE, 5);
    (ada, bob)
}

/// The session's token against request forgery, read off a page.
fn csrf_of(page: &Reply) -> String {
    let (_, rest) = page
        .body
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no token on the page: {}", page.body));
    rest.split('"').next().unwrap().to_owned()
}

/// The page's text from the heading `from` on (empty when it has none).
fn section<'a>(page: &'a Reply, from: &str) -> &'a str {
    page.body.split_once(from).map_or("", |(_, rest)| rest)
}

fn data(reply: &Reply, field: &str) -> Value {
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.json().get("errors").is_none(), "{}", reply.body);
    reply.json()["data"][field].clone()
}

/// A niche topic taught mostly by one person's uploads went with her best
/// topic on her own page after she hid it; now it shows on no page, and
/// its reading counts nobody.
#[on_every_backend]
fn a_topic_a_person_hides_shows_on_no_page(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "hidden_topic_shows_on_no_page") else {
        return;
    };
    let (ada, _) = colleagues(&app);
    let ada_session = app.sign_in("ada@example.com");
    let me = app.page("/me", &ada_session);
    assert!(me.body.contains("Hide zephyrine"), "{}", me.body);
    let hidden = app.submit(
        "/me/topics",
        &ada_session,
        &[
            ("csrf", &csrf_of(&me)),
            ("topic", "zephyrine"),
            ("hidden", "true"),
        ],
    );
    assert_eq!(hidden.status, 303, "{}", hidden.body);

    let bob_session = app.sign_in("bob@example.com");
    let page = app.page(&format!("/people/{ada}"), &bob_session);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Kubernetes"), "{}", page.body);
    assert!(
        !page.body.to_lowercase().contains("zephyrin"),
        "{}",
        page.body
    );
    // Her own page lists it among the topics she hides, and nowhere else.
    let me = app.page("/me", &ada_session);
    let (shown, rest) = me.body.split_once("<h2>Hidden topics</h2>").unwrap();
    assert!(!shown.contains("zephyrin"), "{}", me.body);
    assert!(rest.contains("Show zephyrine"), "{}", me.body);
    assert!(
        !section(&me, "<h2>Related topics</h2>").contains("zephyrin"),
        "{}",
        me.body
    );

    // Nobody is known, and nobody is counted below.
    let search = app.page("/?q=zephyrine", &bob_session);
    assert!(
        search.body.contains("Nobody seems to know"),
        "{}",
        search.body
    );
    let reading = section(&search, "How Kenning read the question");
    assert!(!reading.contains("1 person"), "{}", search.body);
    assert!(reading.contains("Words nobody has learned"), "{}", reading);
    let reader = app.token(&[Scope::ExpertiseRead]);
    let read = data(
        &app.graphql_as(&reader, QUERY_READING, json!({ "q": "zephyrine" })),
        "queryReading",
    );
    assert_eq!(read["subjectKnown"], false, "{read}");
    assert!(read["topics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["people"] == 0));
    let related = app.graphql_as(
        &reader,
        "query r($t: String!) { relatedTopics(topic: $t) { key } }",
        json!({ "t": "kubernetes" }),
    );
    let related = data(&related, "relatedTopics").to_string();
    assert!(!related.contains("zephyrin"), "{related}");
}

/// `userTopics` answers as `experts` ranks: a deactivated person, or one
/// hidden from the directory, has none to show (an empty list, as for a
/// person not learned about), whoever asks; a person hidden from the
/// directory still reads their own profile.
#[on_every_backend]
fn user_topics_of_someone_experts_does_not_rank_are_empty(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "user_topics_follow_experts") else {
        return;
    };
    let (ada, bob) = colleagues(&app);
    let reader = app.token(&[Scope::ExpertiseRead, Scope::UsersRead]);
    let topics_of = |id: &str| {
        let reply = app.graphql_as(&reader, USER_TOPICS, json!({ "id": id }));
        data(&reply, "userTopics").as_array().unwrap().len()
    };
    assert!(topics_of(&ada) > 0);
    assert!(topics_of(&bob) > 0);
    let counted = |q: &str| {
        let read = app.graphql_as(&reader, QUERY_READING, json!({ "q": q }));
        data(&read, "queryReading")["topics"][0]["people"].clone()
    };
    assert_eq!(counted("zephyrine"), 1);

    let deactivated = app.graphql(DEACTIVATE_USER, json!({ "globalUserId": ada }));
    assert_eq!(deactivated.status, 200, "{}", deactivated.body);
    assert_eq!(topics_of(&ada), 0);
    assert_eq!(
        app.graphql(USER_TOPICS, json!({ "id": ada })).json()["data"]["userTopics"],
        json!([])
    );
    let experts = app.graphql_as(&reader, EXPERTS, json!({ "q": "zephyrine" }));
    assert_eq!(data(&experts, "experts"), json!([]));
    assert_eq!(counted("zephyrine"), 0);

    app.execute_sql(&format!(
        "UPDATE users SET is_hidden = TRUE WHERE id = '{bob}'"
    ));
    assert_eq!(topics_of(&bob), 0);
    let bob_session = app.sign_in("bob@example.com");
    let me = app.page("/me", &bob_session);
    assert!(me.body.contains("Hide helm"), "{}", me.body);
    app.create_user("cy@example.com", "Cy", "Young");
    let other = app.sign_in("cy@example.com");
    let page = app.page(&format!("/people/{bob}"), &other);
    assert!(page.body.contains("not listed"), "{}", page.body);
    assert!(!page.body.contains("helm"), "{}", page.body);
}
