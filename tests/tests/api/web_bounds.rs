//! What a person signed in to the web app can make Kenning keep or do is
//! bounded: a hidden topic's length and how many a person hides, the
//! reads one search page makes, and the rate of requests per session (or
//! per address, without one), as a credential's on the API.

use kenning_domain::{GroupInput, Scoring, TopicText, UserId, MAX_HIDDEN_TOPICS};
use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::json;

const KUBERNETES: &str = "Kubernetes clusters schedule containers across nodes. Our Kubernetes clusters run the payment services, and Kubernetes operators restart failed containers and scale the clusters when traffic grows.";
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
    let expertise = app.services.expertise(Scoring::default(), None, None);
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

/// The search page offers the groups by name, and explains at most a
/// first page's worth of topics with their actions however many people
/// it lists: the cards further down list their topics without.
#[on_every_backend]
fn the_search_page_reads_a_bounded_amount(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "search_page_reads_bounded") else {
        return;
    };
    let key = app.api_key();
    let mut people = Vec::new();
    for n in 0..12 {
        let email = format!("person{n}@example.com");
        people.push(app.create_user(&email, "Person", &format!("Number{n}")));
        let reply = app.upload(
            &key,
            &json!({
                "entity_type": "document",
                "action_type": "create",
                "action_date": "2026-03-01T08:00:00.000Z",
                "user_email": email,
                "text": KUBERNETES,
            }),
        );
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    for (name, members) in [("Zeta team", &people[..2]), ("alpha team", &people[2..])] {
        app.services
            .groups
            .create(GroupInput {
                display_name: name.to_owned(),
                external_id: None,
                members: members.to_vec(),
            })
            .unwrap();
    }
    let session = app.sign_in("person0@example.com");

    let empty = app.page("/", &session);
    let offered = empty.body.split_once("<select").unwrap().1;
    let alpha = offered.find(">alpha team<").expect("alpha team offered");
    let zeta = offered.find(">Zeta team<").expect("Zeta team offered");
    assert!(alpha < zeta, "by name without regard to case: {offered}");

    let page = app.page(
        "/?q=kubernetes+clusters+containers+operators+traffic&limit=100",
        &session,
    );
    assert_eq!(page.status, 200, "{}", page.body);
    let cards: Vec<&str> = page
        .body
        .split("<article class=\"card\">")
        .skip(1)
        .collect();
    assert_eq!(cards.len(), 12, "{}", page.body);
    let topics: Vec<usize> = cards
        .iter()
        .map(|c| c.matches("<span class=\"topic\">").count())
        .collect();
    let explained: Vec<usize> = cards
        .iter()
        .map(|c| c.matches("<ul class=\"why\">").count())
        .collect();
    let first_page = 10 * 5;
    assert!(topics.iter().sum::<usize>() > first_page, "{topics:?}");
    assert_eq!(explained.iter().sum::<usize>(), first_page, "{explained:?}");
    assert_eq!(
        explained[..10],
        topics[..10],
        "the first cards are explained"
    );
    assert_eq!(explained[11], 0);
}

fn limited(auth_failures_per_minute: u32, requests_per_minute: u32) -> Options {
    Options {
        http: HttpConfig {
            auth_failures_per_minute,
            requests_per_minute,
            ..HttpConfig::default()
        },
        ..Options::default()
    }
}

fn is_too_many(reply: &Reply) -> bool {
    reply.status == 429
        && reply.body.contains("Too many requests")
        && reply
            .header("Retry-After")
            .and_then(|s| s.parse::<u64>().ok())
            .is_some_and(|s| (1..=60).contains(&s))
}

/// Each session the web app verified has the rate a credential has on the
/// API, and so has each client address for what it asks without one (or
/// with a session not yet verified, so that cookies nobody holds get no
/// buckets of their own).
#[on_every_backend]
fn the_web_app_limits_each_caller_as_the_api_does(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, "web_rate_limit", limited(0, 4)) else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    app.create_user("bob@example.com", "Bob", "Byron");
    // Both sign in through another instance on the database (a link
    // takes two requests of the address): this one's address has spent
    // nothing yet.
    let door = app.spawn_beside();
    let ada = door.sign_in("ada@example.com");
    let bob = door.sign_in("bob@example.com");
    // Ada's first page is her address's; verified, her session has its own.
    for _ in 0..5 {
        let page = app.page("/", &ada);
        assert_eq!(page.status, 200, "{}", page.body);
    }
    let refused = app.page("/?q=kubernetes", &ada);
    assert!(is_too_many(&refused), "{refused:?}");
    assert_eq!(app.page("/me", &bob).status, 200);
    // Cookies nobody holds, on a page that checks none, are the address's.
    for n in 0..2 {
        let page = app.page("/signin", &format!("kenning_session=random{n}"));
        assert_eq!(page.status, 200, "{}", page.body);
    }
    let random = app.page("/signin", "kenning_session=random2");
    assert!(is_too_many(&random), "{random:?}");
    let anonymous = app.request("GET", "/signin", &[("Accept", "text/html")], b"");
    assert!(is_too_many(&anonymous), "{anonymous:?}");
    // Bob's verified session keeps its own rate.
    assert_eq!(app.page("/me", &bob).status, 200);
}

/// A session the app refuses counts as a failed authentication of its
/// address, which then gets 429 whatever it presents, as on the API.
#[on_every_backend]
fn a_refused_session_counts_against_its_address(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, "web_guesses", limited(3, 100)) else {
        return;
    };
    app.create_user("bob@example.com", "Bob", "Byron");
    let bob = app.spawn_beside().sign_in("bob@example.com");
    for n in 0..3 {
        let guess = app.page("/me", &format!("kenning_session=guess{n}"));
        assert_eq!(guess.status, 401, "{}", guess.body);
    }
    let guess = app.page("/me", "kenning_session=guess3");
    assert!(is_too_many(&guess), "{guess:?}");
    assert!(is_too_many(&app.page("/me", &bob)));
    let api = app.graphql("{ users { globalUserId } }", json!({}));
    assert_eq!(api.status, 429, "{}", api.body);
}
