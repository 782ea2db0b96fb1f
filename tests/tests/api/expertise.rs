//! Who knows what: `experts` and `userTopics` over what connectors taught.

use chrono::Duration;
use kenning_domain::{ActionType, Scope, Scoring};
use kenning_tests::app::{Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{DEACTIVATE_USER, DELETE_USER, REACTIVATE_USER};
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const EXPERTS: &str = "query experts($query: String!, $limit: Int) { experts(query: $query, limit: $limit) { globalUserId score user { email } topics { topic key score } } }";

const USER_TOPICS: &str = "query userTopics($globalUserId: UUID!, $limit: Int) { userTopics(globalUserId: $globalUserId, limit: $limit) { topic key score actions { actionType actionAlias } } }";

/// Uploads `text` as `action` by `email`, dated one day before the clock.
pub(crate) fn teach(app: &TestApp, key: &str, email: &str, action: &str, text: &str) {
    let reply = app.upload(
        key,
        &json!({
            "entity_type": "document",
            "action_type": action,
            "action_date": "2026-03-01T08:00:00.000Z",
            "user_email": email,
            "texts": [{ "descriptor": "default", "text": text }],
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
}

fn experts(app: &TestApp, query: &str) -> Vec<Value> {
    let reply = app.graphql(EXPERTS, json!({ "query": query }));
    reply.json()["data"]["experts"]
        .as_array()
        .unwrap_or_else(|| panic!("experts failed: {}", reply.body))
        .clone()
}

fn emails(experts: &[Value]) -> Vec<String> {
    experts
        .iter()
        .map(|e| e["user"]["email"].as_str().unwrap().to_owned())
        .collect()
}

const KUBERNETES: &str = "Kubernetes clusters schedule containers across nodes. Our Kubernetes clusters run the payment services, and Kubernetes operators restart failed containers and scale the clusters when traffic grows.";
const TAX: &str = "Corporate tax returns are due in March. The finance team prepared the corporate tax returns and the VAT reconciliation for the German subsidiary, and the tax auditors reviewed the returns.";
const TRANSLATION: &str = "Neural machine translation models translate technical manuals. We evaluated neural machine translation quality with BLEU scores on German and French manuals.";

#[on_every_backend]
fn experts_rank_the_right_person_first(backend: Backend) {
    let options = Options {
        scoring: Scoring::new(
            [
                (ActionType::parse("create").unwrap(), 3.0),
                (ActionType::parse("view").unwrap(), 0.5),
            ],
            1.0,
            [1.5, 1.0, 0.5],
            Duration::days(365),
        )
        .unwrap(),
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "experts_rank_the_right_person_first", options)
    else {
        return;
    };
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    app.create_user("bob@example.com", "Bob", "Finance");
    app.create_user("carol@example.com", "Carol", "Language");
    teach(&app, &key, "alice@example.com", "create", KUBERNETES);
    teach(&app, &key, "bob@example.com", "create", TAX);
    teach(&app, &key, "carol@example.com", "create", TRANSLATION);
    // Everyone glanced at everything: views weigh far less than writing.
    for email in ["alice@example.com", "bob@example.com", "carol@example.com"] {
        for text in [KUBERNETES, TAX, TRANSLATION] {
            teach(&app, &key, email, "view", text);
        }
    }

    for (query, expected) in [
        ("kubernetes", "alice@example.com"),
        ("Kubernetes clusters", "alice@example.com"),
        ("corporate tax returns", "bob@example.com"),
        ("Who knows about tax returns?", "bob@example.com"),
        ("neural machine translation", "carol@example.com"),
        ("machine translation of manuals", "carol@example.com"),
    ] {
        let found = experts(&app, query);
        assert_eq!(emails(&found).len(), 3, "{query}: everyone viewed it");
        assert_eq!(emails(&found)[0], expected, "{query}: {found:?}");
        let best = &found[0];
        assert!(best["score"].as_f64().unwrap() > found[1]["score"].as_f64().unwrap());
        let topics = best["topics"].as_array().unwrap();
        assert!(!topics.is_empty(), "{query}: the reasons are given");
    }

    // Several topics of one query add up.
    let both = experts(&app, "kubernetes clusters and corporate tax returns");
    assert_eq!(both.len(), 3);
    let top_two: Vec<String> = emails(&both)[..2].to_vec();
    assert!(
        top_two.contains(&"alice@example.com".to_owned()),
        "{both:?}"
    );
    assert!(top_two.contains(&"bob@example.com".to_owned()), "{both:?}");

    let reply = app.graphql(EXPERTS, json!({ "query": "kubernetes", "limit": 1 }));
    assert_eq!(reply.json()["data"]["experts"].as_array().unwrap().len(), 1);
    assert!(experts(&app, "underwater basket weaving").is_empty());

    // userTopics: Alice's topics, best first, with the actions behind them.
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": alice, "limit": 3 }));
    let topics = reply.json()["data"]["userTopics"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(topics.len(), 3, "{}", reply.body);
    let scores: Vec<f64> = topics
        .iter()
        .map(|t| t["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let actions: Vec<&str> = topics[0]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["actionType"].as_str().unwrap())
        .collect();
    assert!(
        actions.contains(&"create") && actions.contains(&"view"),
        "{actions:?}"
    );
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": alice }));
    let all = reply.json()["data"]["userTopics"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        all.len() > 3 && all.len() <= 15,
        "default limit 15, got {}",
        all.len()
    );
    assert!(
        all.iter().any(|t| t["key"] == "kubernet"),
        "what she wrote about: {all:?}"
    );
}

#[on_every_backend]
fn only_active_visible_users_are_experts(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "only_active_visible_users_are_experts") else {
        return;
    };
    let key = app.api_key();
    app.create_user("active@example.com", "Active", "User");
    let resting = app.create_user("resting@example.com", "Resting", "User");
    let hidden = app.create_user("hidden@example.com", "Hidden", "User");
    let leaving = app.create_user("leaving@example.com", "Leaving", "User");
    for email in [
        "active@example.com",
        "resting@example.com",
        "hidden@example.com",
        "leaving@example.com",
    ] {
        teach(&app, &key, email, "create", KUBERNETES);
    }
    assert_eq!(experts(&app, "kubernetes").len(), 4);

    // Hidden or deactivated before their first upload: they learn, unranked.
    let shy = app.create_user("shy@example.com", "Shy", "User");
    let late = app.create_user("late@example.com", "Late", "User");
    app.execute_sql(&format!(
        "UPDATE users SET is_hidden = TRUE WHERE id = '{shy}'"
    ));
    app.graphql(DEACTIVATE_USER, json!({ "globalUserId": late }));
    teach(&app, &key, "shy@example.com", "create", KUBERNETES);
    teach(&app, &key, "late@example.com", "create", KUBERNETES);
    assert_eq!(experts(&app, "kubernetes").len(), 4);
    app.graphql(REACTIVATE_USER, json!({ "globalUserId": late }));
    app.execute_sql(&format!(
        "UPDATE users SET is_hidden = FALSE WHERE id = '{shy}'"
    ));
    assert_eq!(experts(&app, "kubernetes").len(), 6);
    app.execute_sql(&format!(
        "UPDATE users SET is_hidden = TRUE WHERE id = '{shy}'"
    ));
    app.graphql(DEACTIVATE_USER, json!({ "globalUserId": late }));

    app.graphql(DEACTIVATE_USER, json!({ "globalUserId": resting }));
    app.execute_sql(&format!(
        "UPDATE users SET is_hidden = TRUE WHERE id = '{hidden}'"
    ));
    app.graphql(DELETE_USER, json!({ "globalUserId": leaving }));
    assert_eq!(emails(&experts(&app, "kubernetes")), ["active@example.com"]);

    // A deactivated user keeps learning, shown to nobody, and is listed
    // again once back.
    teach(&app, &key, "resting@example.com", "create", TAX);
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": resting }));
    assert_eq!(
        reply.json()["data"]["userTopics"],
        json!([]),
        "{}",
        reply.body
    );
    app.graphql(REACTIVATE_USER, json!({ "globalUserId": resting }));
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": resting }));
    let keys = reply.body.to_lowercase();
    assert!(keys.contains("tax"), "{keys}");
    assert_eq!(
        emails(&experts(&app, "corporate tax returns")),
        ["resting@example.com"]
    );

    // Pending deletion, the user is shown nowhere, though what they
    // learned is kept until the purge; after it nothing of them is left.
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": leaving }));
    assert_eq!(
        reply.json()["data"]["userTopics"],
        json!([]),
        "{}",
        reply.body
    );
    let kept = app.graphql(
        "query d($id: UUID!) { userData(globalUserId: $id) }",
        json!({ "id": leaving }),
    );
    let kept = kept.json()["data"]["userData"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert!(kept.contains("kubernet"), "{kept}");
    app.advance(Duration::days(14));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": leaving }));
    assert_eq!(
        reply.json()["data"]["userTopics"],
        json!([]),
        "{}",
        reply.body
    );
    let found = experts(&app, "kubernetes");
    assert!(found.iter().all(|e| e["globalUserId"] != leaving.as_str()));
    let mut listed = emails(&found);
    listed.sort();
    assert_eq!(listed, ["active@example.com", "resting@example.com"]);
}

#[on_every_backend]
fn expertise_reads_are_checked(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "expertise_reads_are_checked") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let users_only = app.token(&[Scope::UsersRead, Scope::UsersWrite]);
    let expertise_only = app.token(&[Scope::ExpertiseRead]);

    let query = json!({ "query": "kubernetes" });
    let reply = app.graphql_as(&users_only, EXPERTS, query.clone());
    assert_eq!(
        reply.error_code().as_deref(),
        Some("Forbidden"),
        "{}",
        reply.body
    );
    let reply = app.graphql_as(&users_only, USER_TOPICS, json!({ "globalUserId": ada }));
    assert_eq!(reply.error_code().as_deref(), Some("Forbidden"));
    let reply = app.graphql_as(&expertise_only, EXPERTS, query);
    assert_eq!(reply.error_code(), None, "{}", reply.body);
    let reply = app.graphql_as(&expertise_only, USER_TOPICS, json!({ "globalUserId": ada }));
    assert_eq!(
        reply.json()["data"]["userTopics"],
        json!([]),
        "{}",
        reply.body
    );

    for (query, limit, field) in [
        ("kubernetes", json!(0), "limit"),
        ("kubernetes", json!(101), "limit"),
        ("   ", json!(null), "query"),
    ] {
        let reply = app.graphql(EXPERTS, json!({ "query": query, "limit": limit }));
        assert_eq!(reply.error_code().as_deref(), Some("ValidationError"));
        assert_eq!(reply.json()["errors"][0]["extensions"]["field"], field);
    }
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": ada, "limit": 0 }));
    assert_eq!(reply.error_code().as_deref(), Some("ValidationError"));
    let reply = app.graphql(
        USER_TOPICS,
        json!({ "globalUserId": "00000000-0000-4000-8000-000000000000" }),
    );
    assert_eq!(reply.error_code().as_deref(), Some("NotFound"));
}

/// Uploads `text` by `email` as a `create` dated `date`.
fn teach_on(app: &TestApp, key: &str, email: &str, date: &str, text: &str) {
    let reply = app.upload(
        key,
        &json!({
            "entity_type": "document",
            "action_type": "create",
            "action_date": date,
            "user_email": email,
            "text": text,
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
}

const CRIME: &str = "Police arrested two men after a burglary at a jewellery shop in Bristol. The suspects were arrested near the station and charged with theft.";
const GARDEN: &str = "The county show awards prizes for roses, dahlias and vegetable gardening. Judges praised the allotment growers.";
const PANDAS: &str = "Reshaping a DataFrame in pandas: pivot tables, melt and groupby. Pandas DataFrame indexes make joins fast, and DataFrame columns hold typed arrays.";
const PYTHON: &str = "Python packaging with virtual environments: pip installs wheels, and Python scripts import modules from site-packages.";

#[on_every_backend]
fn every_learned_word_finds_someone(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "every_learned_word_finds_someone") else {
        return;
    };
    let key = app.api_key();
    app.create_user("crime@example.com", "Crime", "Desk");
    app.create_user("garden@example.com", "Garden", "Desk");
    teach(&app, &key, "crime@example.com", "create", CRIME);
    teach(&app, &key, "garden@example.com", "create", GARDEN);

    // No upload has the phrase; the crime desk has "arrested", the
    // garden desk "gardening": each holds one word of five, a lead and
    // no answer, and the reading says who holds what. The query reads
    // as Danish and as English, each word once: the Danish stems nobody
    // learned ("arrested") are other readings of words held as English.
    let question = "Gloucestershire man arrested for naked gardening";
    let found = experts(&app, question);
    let mut listed = emails(&found);
    listed.sort_unstable();
    assert_eq!(listed, ["crime@example.com", "garden@example.com"]);
    for expert in &found {
        let score = expert["score"].as_f64().unwrap();
        assert!((10.0..30.0).contains(&score), "{found:?}");
        assert_eq!(expert["topics"].as_array().unwrap().len(), 1, "{found:?}");
    }
    let reply = app.graphql(QUERY_READING, json!({ "query": question }));
    let topics = reply.json()["data"]["queryReading"]["topics"].clone();
    let held: Vec<&str> = topics
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["people"] == json!(1))
        .map(|t| t["key"].as_str().unwrap())
        .collect();
    assert!(
        held.contains(&"arrest") && held.contains(&"garden"),
        "{topics}"
    );
    let found = experts(&app, "arrested");
    assert_eq!(emails(&found), ["crime@example.com"]);
    let found = experts(&app, "arrested gardening");
    assert_eq!(emails(&found).len(), 2, "{found:?}");
    assert!(found
        .iter()
        .all(|e| !e["topics"].as_array().unwrap().is_empty()));
}

#[on_every_backend]
fn keyword_queries_keep_every_word(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "keyword_queries_keep_every_word") else {
        return;
    };
    let key = app.api_key();
    app.create_user("pandas@example.com", "Pan", "Das");
    app.create_user("python@example.com", "Py", "Thon");
    teach(&app, &key, "pandas@example.com", "create", PANDAS);
    teach(&app, &key, "python@example.com", "create", PYTHON);
    teach(&app, &key, "python@example.com", "create", PYTHON);

    let found = experts(&app, "python pandas dataframe");
    assert_eq!(emails(&found)[0], "pandas@example.com", "{found:?}");
    assert_eq!(emails(&found).len(), 2, "{found:?}");
}

/// A question typed in lower case finds the acronyms its short words
/// spell: texts write `CI` and `ML`, people ask for `ci` and `ml`.
#[on_every_backend]
fn a_short_word_typed_in_lower_case_finds_its_acronym(backend: Backend) {
    let Some(app) = TestApp::spawn(
        backend,
        "a_short_word_typed_in_lower_case_finds_its_acronym",
    ) else {
        return;
    };
    let key = app.api_key();
    app.create_user("ops@example.com", "Ops", "Desk");
    app.create_user("python@example.com", "Py", "Thon");
    let ops = "Our CI runs on every merge request: the CI pipeline builds and \
        tests the ML models before they ship.";
    teach(&app, &key, "ops@example.com", "create", ops);
    teach(&app, &key, "python@example.com", "create", PYTHON);

    for question in ["ci", "who knows about ml?", "CI"] {
        let found = experts(&app, question);
        assert_eq!(emails(&found), ["ops@example.com"], "{question}: {found:?}");
    }
    // Beside other words, a short function word stays one.
    assert_eq!(
        emails(&experts(&app, "ML in production")),
        ["ops@example.com"]
    );
    let reply = app.graphql(QUERY_READING, json!({ "query": "ML in production" }));
    let topics = reply.json()["data"]["queryReading"]["topics"].clone();
    assert!(
        topics
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["key"] != json!("in")),
        "{topics}"
    );
}

#[on_every_backend]
fn specific_topics_outweigh_broad_ones(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "specific_topics_outweigh_broad_ones") else {
        return;
    };
    let key = app.api_key();
    app.create_user("generalist@example.com", "Gene", "Ralist");
    app.create_user("specialist@example.com", "Spe", "Cialist");
    for (n, subject) in [
        "quantum computing",
        "quantum mechanics",
        "quantum optics",
        "quantum sensors",
        "quantum chemistry",
        "quantum networks",
        "quantum materials",
        "quantum gravity",
        "quantum cryptography",
        "quantum annealing",
    ]
    .iter()
    .enumerate()
    {
        teach(
            &app,
            &key,
            "generalist@example.com",
            "create",
            &format!("A review of {subject}: recent quantum results, part {n}. The {subject} community reported new quantum experiments."),
        );
    }
    teach(
        &app,
        &key,
        "specialist@example.com",
        "create",
        "Surface codes for quantum error correction: decoding syndromes and measuring logical error rates below threshold.",
    );
    let found = experts(&app, "quantum error correction");
    assert_eq!(emails(&found)[0], "specialist@example.com", "{found:?}");
    let score = |i: usize| found[i]["score"].as_f64().unwrap();
    assert!(score(0) > score(1) && score(0) <= 100.0 && score(1) > 0.0);
}

const RAW: &str =
    "query experts($query: String!) { experts(query: $query) { score rawScore user { email } } }";

#[on_every_backend]
fn old_material_keeps_a_readable_score(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "old_material_keeps_a_readable_score") else {
        return;
    };
    let key = app.api_key();
    app.create_user("old@example.com", "Old", "Hand");
    let new = app.create_user("new@example.com", "New", "Hand");
    app.create_user("bob@example.com", "Bob", "Finance");
    // Ten years before the clock: ten half-lives.
    teach_on(
        &app,
        &key,
        "old@example.com",
        "2016-03-01T08:00:00.000Z",
        KUBERNETES,
    );
    teach_on(
        &app,
        &key,
        "new@example.com",
        "2026-03-01T08:00:00.000Z",
        KUBERNETES,
    );
    teach_on(
        &app,
        &key,
        "bob@example.com",
        "2026-03-01T08:00:00.000Z",
        TAX,
    );
    let reply = app.graphql(RAW, json!({ "query": "kubernetes clusters" }));
    let found = reply.json()["data"]["experts"].as_array().unwrap().clone();
    assert_eq!(emails(&found), ["new@example.com", "old@example.com"]);
    let (raw_new, raw_old) = (
        found[0]["rawScore"].as_f64().unwrap(),
        found[1]["rawScore"].as_f64().unwrap(),
    );
    let (fresh, old) = (
        found[0]["score"].as_f64().unwrap(),
        found[1]["score"].as_f64().unwrap(),
    );
    // Ten half-lives behind, time takes four: a sixteenth is left.
    assert!(
        (raw_new / raw_old - 16.0).abs() < 0.2,
        "the raw sum has decayed by four half-lives: {raw_old} {raw_new}"
    );
    assert!(fresh <= 100.0 && old < fresh, "{old} {fresh}");

    // Material that aged alike scores alike: when all of it is old, the
    // best match still reads as a good one.
    app.graphql(DEACTIVATE_USER, json!({ "globalUserId": new }));
    let reply = app.graphql(RAW, json!({ "query": "kubernetes clusters" }));
    let found = reply.json()["data"]["experts"].as_array().unwrap().clone();
    assert_eq!(emails(&found), ["old@example.com"]);
    assert!(found[0]["score"].as_f64().unwrap() > 20.0, "{found:?}");
}

const RELATED: &str = "query relatedTopics($topic: String!, $limit: Int) { relatedTopics(topic: $topic, limit: $limit) { topic key score uploads } }";

#[on_every_backend]
fn related_topics_come_from_shared_uploads(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "related_topics_come_from_shared_uploads") else {
        return;
    };
    let key = app.api_key();
    app.create_user("alice@example.com", "Alice", "Ops");
    app.create_user("bob@example.com", "Bob", "Finance");
    teach(&app, &key, "alice@example.com", "create", KUBERNETES);
    teach(&app, &key, "alice@example.com", "create", "Helm charts deploy services to Kubernetes clusters; Helm releases roll back failed containers.");
    teach(&app, &key, "bob@example.com", "create", TAX);

    let reply = app.graphql(RELATED, json!({ "topic": "kubernetes", "limit": 50 }));
    let related = reply.json()["data"]["relatedTopics"]
        .as_array()
        .unwrap()
        .clone();
    let keys: Vec<&str> = related.iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert!(keys.contains(&"contain"), "{keys:?}");
    assert!(keys.contains(&"helm"), "{keys:?}");
    assert!(!keys.contains(&"kubernet"), "not the topic itself");
    assert!(!keys.iter().any(|k| k.contains("tax")), "{keys:?}");
    let helm = related.iter().find(|r| r["key"] == "helm").unwrap();
    assert_eq!(helm["uploads"], 1);

    let reply = app.graphql(RELATED, json!({ "topic": "kubernetes", "limit": 2 }));
    assert_eq!(
        reply.json()["data"]["relatedTopics"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let reply = app.graphql(RELATED, json!({ "topic": "underwater basket weaving" }));
    assert_eq!(
        reply.json()["data"]["relatedTopics"],
        json!([]),
        "{}",
        reply.body
    );
    for (topic, limit, field) in [
        ("kubernetes", json!(0), "limit"),
        ("  ", json!(null), "topic"),
    ] {
        let reply = app.graphql(RELATED, json!({ "topic": topic, "limit": limit }));
        assert_eq!(
            reply.error_code().as_deref(),
            Some("ValidationError"),
            "{}",
            reply.body
        );
        assert_eq!(reply.json()["errors"][0]["extensions"]["field"], field);
    }
    let users_only = app.token(&[Scope::UsersRead]);
    let reply = app.graphql_as(&users_only, RELATED, json!({ "topic": "kubernetes" }));
    assert_eq!(reply.error_code().as_deref(), Some("Forbidden"));
}

/// The scores of the topics of the user `id`, by key, as `app` reads them.
fn topic_scores(app: &TestApp, id: &str) -> Vec<(String, f64)> {
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": id }));
    let topics = reply.json()["data"]["userTopics"]
        .as_array()
        .unwrap_or_else(|| panic!("userTopics failed: {}", reply.body))
        .clone();
    let mut scores: Vec<(String, f64)> = topics
        .iter()
        .map(|t| {
            (
                t["key"].as_str().unwrap().to_owned(),
                t["score"].as_f64().unwrap(),
            )
        })
        .collect();
    scores.sort_by(|a, b| a.0.cmp(&b.0));
    scores
}

/// A server started with other scoring settings serves at once and
/// rebuilds the standings behind it: they end as the new settings make
/// them.
#[on_every_backend]
fn a_start_with_new_settings_rebuilds_while_serving(backend: Backend) {
    let factors = [1.5, 1.0, 0.5];
    let single = Scoring::new([], 1.0, factors, Duration::days(365)).unwrap();
    let options = Options {
        scoring: single,
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "a_start_with_new_settings_rebuilds", options)
    else {
        return;
    };
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    teach(&app, &key, "alice@example.com", "create", KUBERNETES);
    teach(&app, &key, "alice@example.com", "view", TAX);
    let before = topic_scores(&app, &alice);
    assert!(!before.is_empty());

    let double = Scoring::new([], 2.0, factors, Duration::days(365)).unwrap();
    let restarted = app.spawn_beside_with(Options {
        scoring: double,
        ..Options::default()
    });
    // It answers while (or after) it rebuilds.
    let reply = restarted.graphql(USER_TOPICS, json!({ "globalUserId": alice }));
    assert!(
        reply.json()["data"]["userTopics"].is_array(),
        "{}",
        reply.body
    );
    let expected: Vec<(String, f64)> = before.iter().map(|(k, s)| (k.clone(), 2.0 * s)).collect();
    let rebuilt = |scores: &[(String, f64)]| {
        scores.len() == expected.len()
            && scores
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-6 * b.1.max(1.0))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut now = topic_scores(&restarted, &alice);
    while !rebuilt(&now) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        now = topic_scores(&restarted, &alice);
    }
    assert!(rebuilt(&now), "{now:?} after 30 s, expected {expected:?}");
}

#[on_every_backend]
fn experts_within_a_group_rank_its_members_alone(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "experts_within_a_group_rank_its_members_alone") else {
        return;
    };
    let key = app.api_key();
    let ops = app.create_user("ops@example.com", "Olga", "Ops");
    let junior = app.create_user("junior@example.com", "Jon", "Junior");
    app.create_user("tax@example.com", "Tim", "Tax");
    teach(&app, &key, "ops@example.com", "edit", KUBERNETES);
    teach(&app, &key, "ops@example.com", "edit", KUBERNETES);
    teach(
        &app,
        &key,
        "junior@example.com",
        "view",
        "Kubernetes clusters for beginners.",
    );
    teach(&app, &key, "tax@example.com", "edit", TAX);
    let group = app.services.groups.create(kenning_domain::GroupInput {
        display_name: "Juniors".into(),
        external_id: None,
        members: vec![junior.clone()],
    });
    let group = group.unwrap().id().to_string();

    let within = |group: &str| {
        app.graphql(
            "query e($q: String!, $g: UUID) { experts(query: $q, groupId: $g) { globalUserId user { groups { groupId displayName } } } }",
            json!({ "q": "kubernetes clusters", "g": group }),
        )
    };
    let all = experts(&app, "kubernetes clusters");
    assert_eq!(all[0]["globalUserId"], ops.as_str(), "the best of everyone");
    let members = within(&group).json()["data"]["experts"].clone();
    assert_eq!(members.as_array().unwrap().len(), 1, "{members}");
    assert_eq!(members[0]["globalUserId"], junior.as_str());
    assert_eq!(
        members[0]["user"]["groups"],
        json!([{ "groupId": group, "displayName": "Juniors" }])
    );
    let missing = within("8f4c1e36-0000-4000-8000-000000000000");
    assert_eq!(missing.error_code().as_deref(), Some("NotFound"));
}

/// Narrowing an answer to a group keeps its members' order and scores
/// from the whole organisation's answer: the group reads no other
/// statistics than everyone's.
#[on_every_backend]
fn a_group_keeps_the_order_and_scores_of_the_whole_answer(backend: Backend) {
    let Some(app) = TestApp::spawn(
        backend,
        "a_group_keeps_the_order_and_scores_of_the_whole_answer",
    ) else {
        return;
    };
    let key = app.api_key();
    app.create_user("ops@example.com", "Olga", "Ops");
    let writer = app.create_user("writer@example.com", "Wanda", "Writer");
    let reader = app.create_user("reader@example.com", "Rita", "Reader");
    for _ in 0..3 {
        teach(&app, &key, "ops@example.com", "edit", KUBERNETES);
    }
    teach(
        &app,
        &key,
        "writer@example.com",
        "create",
        "Our Kubernetes clusters: how the nodes are upgraded.",
    );
    teach(&app, &key, "writer@example.com", "edit", TAX);
    for text in [
        "Kubernetes clusters for beginners.",
        "Kubernetes clusters: what a node does.",
    ] {
        teach(&app, &key, "reader@example.com", "view", text);
    }
    let group = app.services.groups.create(kenning_domain::GroupInput {
        display_name: "Platform".into(),
        external_id: None,
        members: vec![writer.clone(), reader.clone()],
    });
    let group = group.unwrap().id().to_string();
    let scored = |experts: &[Value]| -> Vec<(String, String)> {
        experts
            .iter()
            .map(|e| {
                let score = e["score"].as_f64().unwrap();
                (
                    e["globalUserId"].as_str().unwrap().to_owned(),
                    format!("{score:.6}"),
                )
            })
            .collect()
    };
    let everyone = scored(&experts(&app, "kubernetes clusters"));
    assert_eq!(everyone.len(), 3, "{everyone:?}");
    let reply = app.graphql(
        "query e($q: String!, $g: UUID) { experts(query: $q, groupId: $g) { globalUserId score } }",
        json!({ "q": "kubernetes clusters", "g": group }),
    );
    let within = scored(reply.json()["data"]["experts"].as_array().unwrap());
    let expected: Vec<(String, String)> = everyone
        .into_iter()
        .filter(|(id, _)| *id == writer || *id == reader)
        .collect();
    assert_eq!(within, expected);
}

/// Alice, who wrote on Kubernetes, and Bob, on tax; the connector key
/// and Alice's id.
fn ops_and_finance(app: &TestApp) -> (String, String) {
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    app.create_user("bob@example.com", "Bob", "Finance");
    teach(app, &key, "alice@example.com", "create", KUBERNETES);
    teach(app, &key, "bob@example.com", "create", TAX);
    (key, alice)
}

const QUERY_READING: &str = "query reading($query: String!) { queryReading(query: $query) { languages unknownTopics topics { topic key weight people learned share } } }";

/// `queryReading` says which topics a query was read as, how many people
/// learned each and its share of the score, and which of them nobody
/// learned: the reason for an empty answer.
#[on_every_backend]
fn a_query_reading_explains_an_empty_answer(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_query_reading_explains_an_empty_answer") else {
        return;
    };
    ops_and_finance(&app);

    assert!(experts(&app, "k8s").is_empty());
    let reply = app.graphql(QUERY_READING, json!({ "query": "k8s" }));
    let reading = &reply.json()["data"]["queryReading"];
    assert_eq!(reading["unknownTopics"], json!(["k8s"]), "{}", reply.body);
    assert_eq!(reading["topics"][0]["learned"], json!(false));
    assert_eq!(
        reading["topics"][0]["share"],
        json!(1.0),
        "the whole query, which nobody covers"
    );

    let reply = app.graphql(
        QUERY_READING,
        json!({ "query": "Kubernetes clusters and k8s" }),
    );
    let reading = &reply.json()["data"]["queryReading"];
    assert_eq!(
        reading["languages"].as_array().unwrap().last(),
        Some(&json!("en")),
        "{}",
        reply.body
    );
    assert_eq!(reading["unknownTopics"], json!(["k8s"]), "{}", reply.body);
    let topics = reading["topics"].as_array().unwrap();
    let learned: Vec<&Value> = topics
        .iter()
        .filter(|t| t["learned"] == json!(true))
        .collect();
    assert!(
        learned.iter().any(|t| t["key"] == json!("kubernet")),
        "{topics:?}"
    );
    assert!(
        learned.iter().all(|t| t["people"] == json!(1)),
        "{topics:?}"
    );
    // The written topics share the score; "k8s", which nobody learned,
    // holds a share nobody covers.
    let share = |t: &Value| t["share"].as_f64().unwrap();
    let shares: f64 = topics.iter().map(share).sum();
    assert!((shares - 1.0).abs() < 1e-9, "{topics:?}");
    let unknown = topics.last().unwrap();
    assert_eq!(unknown["topic"], json!("k8s"), "the unknown come last");
    assert!(share(unknown) > 0.0, "{topics:?}");

    let reply = app.graphql(QUERY_READING, json!({ "query": "  " }));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("ValidationError"),
        "{}",
        reply.body
    );
    // A question is at most 500 characters on every door, as in the web's
    // box: a longer one is refused, naming the field and the rule.
    let long = "Kubernetes ".repeat(46);
    for query in [QUERY_READING, EXPERTS] {
        let reply = app.graphql(query, json!({ "query": long }));
        assert_eq!(
            reply.error_code().as_deref(),
            Some("ValidationError"),
            "{}",
            reply.body
        );
        assert!(reply.body.contains("500"), "{}", reply.body);
        assert!(reply.body.contains("query"), "{}", reply.body);
    }
    assert!(!experts(&app, long.get(..500).unwrap()).is_empty());
}

const QUESTION_READING: &str = "query reading($query: String!) { queryReading(query: $query) { asking subject subjectKnown unknownTopics droppedWords topics { key } } }";

/// People type questions: the words that ask for a person are read as
/// the question, never as topics, in English as in German; the subject
/// alone is matched.
#[on_every_backend]
fn a_question_is_read_apart_from_its_subject(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_question_is_read_apart_from_its_subject") else {
        return;
    };
    let key = app.api_key();
    ops_and_finance(&app);
    // Carol helps: she learns "help", "need" and "know" from her tickets.
    app.create_user("carol@example.com", "Carol", "Support");
    let support = "Customers who need help write to us. We help them and know \
        what they need: help with invoices, help with logins, help with orders.";
    teach(&app, &key, "carol@example.com", "create", support);

    let reply = app.graphql(
        QUESTION_READING,
        json!({ "query": "Who can help with Kubernetes clusters?" }),
    );
    let reading = &reply.json()["data"]["queryReading"];
    assert_eq!(
        reading["asking"],
        json!(["Who", "can", "help", "with"]),
        "{}",
        reply.body
    );
    assert_eq!(reading["subject"], json!("Kubernetes clusters"));
    assert_eq!(reading["subjectKnown"], json!(true));
    assert_eq!(reading["droppedWords"], json!([]));
    // A word that becomes no topic is said to be dropped, not lost.
    let reply = app.graphql(
        QUESTION_READING,
        json!({ "query": "Who knows the R language and Kubernetes in 2019?" }),
    );
    let dropped = &reply.json()["data"]["queryReading"]["droppedWords"];
    for word in ["R", "2019"] {
        assert!(
            dropped.as_array().unwrap().contains(&json!(word)),
            "{}",
            reply.body
        );
    }
    let keys: Vec<&Value> = reading["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["key"])
        .collect();
    assert!(!keys.contains(&&json!("help")), "{keys:?}");
    for question in [
        "Who can help with Kubernetes clusters?",
        "I need someone who knows Kubernetes",
        "Wer kennt sich mit Kubernetes aus?",
    ] {
        let found = experts(&app, question);
        assert_eq!(
            emails(&found),
            ["alice@example.com"],
            "{question}: {found:?}"
        );
    }
    assert_eq!(
        emails(&experts(&app, "I need help with tax returns")),
        ["bob@example.com"]
    );
    // A subject of one word is too short to tell its language by; the
    // question's words tell it.
    let reply = app.graphql(
        "query reading($query: String!) { queryReading(query: $query) { languages subject } }",
        json!({ "query": "Wer kennt sich mit Datenschutz aus?" }),
    );
    let reading = &reply.json()["data"]["queryReading"];
    assert_eq!(reading["subject"], json!("Datenschutz"), "{}", reply.body);
    assert_eq!(reading["languages"][0], json!("de"), "{}", reply.body);
}

/// A subject nobody learned is said to be unknown, and nobody is listed
/// for it as someone who knows.
#[on_every_backend]
fn a_subject_nobody_learned_finds_nobody_who_knows(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_subject_nobody_learned_finds_nobody_who_knows")
    else {
        return;
    };
    ops_and_finance(&app);
    let reply = app.graphql(
        QUESTION_READING,
        json!({ "query": "Does anyone know quantum chromodynamics?" }),
    );
    let reading = &reply.json()["data"]["queryReading"];
    assert_eq!(
        reading["subject"],
        json!("quantum chromodynamics"),
        "{}",
        reply.body
    );
    assert_eq!(reading["subjectKnown"], json!(false), "{}", reply.body);
    assert!(experts(&app, "quantum chromodynamics").is_empty());
    // One word of the subject known, the other not: a weak answer.
    let found = experts(&app, "tax chromodynamics");
    assert_eq!(emails(&found), ["bob@example.com"]);
    assert!(found[0]["score"].as_f64().unwrap() < 50.0, "{found:?}");

    // The reading says what the scores say, as the web app does.
    let verdict = |query: &str| {
        let reply = app.graphql(
            "query r($q: String!) { queryReading(query: $q) { verdict knowing nearest } \
             experts(query: $q) { score band scoreWords } }",
            json!({ "q": query }),
        );
        reply.json()["data"].clone()
    };
    let nobody = verdict("quantum chromodynamics");
    assert_eq!(nobody["queryReading"]["verdict"], "NOBODY", "{nobody}");
    assert_eq!(nobody["queryReading"]["knowing"], 0, "{nobody}");
    let weak = verdict("tax chromodynamics");
    assert_eq!(weak["queryReading"]["knowing"], 0, "{weak}");
    assert_ne!(weak["queryReading"]["verdict"], "KNOWN", "{weak}");
    let bob = &weak["experts"][0];
    assert!(
        ["PARTIAL", "SLIGHT"].contains(&bob["band"].as_str().unwrap()),
        "{weak}"
    );
    assert!(bob["scoreWords"].as_str().unwrap().contains(':'), "{weak}");
    // Whoever scores 50 or more is counted as knowing, and said so.
    let known = verdict("corporate tax returns");
    let scores: Vec<f64> = known["experts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["score"].as_f64().unwrap())
        .collect();
    let at_least_half = scores.iter().filter(|s| **s >= 50.0).count();
    assert_eq!(known["queryReading"]["knowing"], at_least_half, "{known}");
    let expected = if at_least_half > 0 {
        "KNOWN"
    } else {
        "NEAREST"
    };
    assert_eq!(known["queryReading"]["verdict"], expected, "{known}");
}

/// What a person reads are topics (key phrases, nouns, names), never the
/// verbs, adverbs and fragments a text also leaves; every word still
/// ranks.
#[on_every_backend]
fn people_read_topics_not_verbs(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "people_read_topics_not_verbs") else {
        return;
    };
    let (_, alice) = ops_and_finance(&app);
    // Words the lexicon knows as verbs first; "schedule" and "restart"
    // are nouns too, and a label alone cannot tell which was meant.
    let verbs = ["run", "failed", "grows", "due"];

    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": alice, "limit": 100 }));
    let labels: Vec<String> = reply.json()["data"]["userTopics"]
        .as_array()
        .unwrap_or_else(|| panic!("userTopics failed: {}", reply.body))
        .iter()
        .map(|t| t["topic"].as_str().unwrap().to_owned())
        .collect();
    assert!(labels.iter().any(|l| l == "Kubernetes"), "{labels:?}");
    assert!(labels.iter().any(|l| l == "containers"), "{labels:?}");
    for verb in verbs {
        assert!(!labels.iter().any(|l| l == verb), "{verb} in {labels:?}");
    }

    let reply = app.graphql(RELATED, json!({ "topic": "Kubernetes", "limit": 100 }));
    let related = reply.json()["data"]["relatedTopics"].to_string();
    assert!(related.contains("containers"), "{related}");
    for verb in verbs {
        assert!(
            !related.contains(&format!("\"{verb}\"")),
            "{verb} in {related}"
        );
    }

    // Every word still ranks, and an expert found by a verb alone says so.
    let found = experts(&app, "grows");
    assert_eq!(emails(&found), ["alice@example.com"]);
    assert_eq!(found[0]["topics"][0]["key"], json!("grow"));
    let found = experts(&app, "Kubernetes clusters grows");
    let reasons = found[0]["topics"].to_string();
    assert!(reasons.contains("Kubernetes"), "{reasons}");
    assert!(!reasons.contains("\"grows\""), "{reasons}");
}

const HIDE: &str =
    "mutation hide($id: UUID!, $topic: String!) { hideTopic(globalUserId: $id, topic: $topic) }";
const SHOW: &str =
    "mutation show($id: UUID!, $topic: String!) { showTopic(globalUserId: $id, topic: $topic) }";
const HIDDEN: &str = "query hidden($id: UUID!) { hiddenTopics(globalUserId: $id) }";

fn user_topic_keys(app: &TestApp, id: &str) -> Vec<String> {
    topic_scores(app, id).into_iter().map(|(k, _)| k).collect()
}

/// A person's say over their profile: a hidden topic leaves their
/// profile and their ranking, new uploads do not bring it back, and
/// showing it again brings back everything learned meanwhile.
#[on_every_backend]
fn a_hidden_topic_stops_following_its_person(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_hidden_topic_stops_following_its_person") else {
        return;
    };
    let (key, alice) = ops_and_finance(&app);
    teach(
        &app,
        &key,
        "bob@example.com",
        "view",
        "Kubernetes for beginners.",
    );
    assert_eq!(
        experts(&app, "Kubernetes")[0]["user"]["email"],
        json!("alice@example.com")
    );

    // The subject goes with every topic of hers that holds it.
    let holds_the_subject = |keys: &Value| {
        let keys: Vec<&str> = keys
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        keys.contains(&"kubernet")
            && keys
                .iter()
                .all(|k| k.split(' ').any(|word| word == "kubernet"))
    };
    let reply = app.graphql(HIDE, json!({ "id": alice, "topic": "Kubernetes" }));
    assert!(
        holds_the_subject(&reply.json()["data"]["hideTopic"]),
        "{}",
        reply.body
    );
    assert!(!user_topic_keys(&app, &alice).contains(&"kubernet".to_owned()));
    assert_eq!(emails(&experts(&app, "Kubernetes")), ["bob@example.com"]);
    // Her other topics still find her.
    assert_eq!(emails(&experts(&app, "containers"))[0], "alice@example.com");

    teach(&app, &key, "alice@example.com", "create", KUBERNETES);
    assert_eq!(emails(&experts(&app, "Kubernetes")), ["bob@example.com"]);
    let reply = app.graphql(HIDDEN, json!({ "id": alice }));
    assert!(
        holds_the_subject(&reply.json()["data"]["hiddenTopics"]),
        "{}",
        reply.body
    );

    // Only users:write may change a profile.
    let reader = app.token(&[Scope::UsersRead, Scope::ExpertiseRead]);
    let reply = app.graphql_as(&reader, SHOW, json!({ "id": alice, "topic": "kubernet" }));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("Forbidden"),
        "{}",
        reply.body
    );

    let reply = app.graphql(SHOW, json!({ "id": alice, "topic": "kubernet" }));
    assert_eq!(
        reply.json()["data"]["showTopic"],
        json!([]),
        "{}",
        reply.body
    );
    assert!(user_topic_keys(&app, &alice).contains(&"kubernet".to_owned()));
    assert_eq!(emails(&experts(&app, "Kubernetes"))[0], "alice@example.com");

    let reply = app.graphql(HIDE, json!({ "id": uuid::Uuid::new_v4(), "topic": "x" }));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("NotFound"),
        "{}",
        reply.body
    );
    let reply = app.graphql(HIDE, json!({ "id": alice, "topic": " " }));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("ValidationError"),
        "{}",
        reply.body
    );
}

const MEANING_READING: &str = "query reading($query: String!) { queryReading(query: $query) { meaningModel unknownTopics topics { topic key learned share similarity } } }";

/// The model's directory from `KENNING_TEST_MODEL_DIR` (`make test`
/// fetches the model and sets it; the tests that call this are ignored
/// without it).
fn model_dir() -> std::path::PathBuf {
    std::env::var_os("KENNING_TEST_MODEL_DIR")
        .map(std::path::PathBuf::from)
        .expect("KENNING_TEST_MODEL_DIR was set when the tests were built, and is not now")
}

/// The reading of `query` once the server embedded the topics learned
/// (it does so every 200 ms in tests).
fn reading_by_meaning(app: &TestApp, query: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let reply = app.graphql(MEANING_READING, json!({ "query": query }));
        let reading = reply.json()["data"]["queryReading"].clone();
        let reached = reading["topics"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| !t["similarity"].is_null()));
        if reached || std::time::Instant::now() > deadline {
            return reading;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A query in words nobody wrote finds the people who wrote of the same
/// thing in other words ("k8s" the Kubernetes engineer, "taxation" the
/// tax accountant), and its reading says through which learned topics,
/// how near, with which model: with the model (the default) and with the
/// static vectors distilled from it.
#[on_every_backend(needs_model)]
fn experts_find_people_by_what_a_query_means(backend: Backend) {
    let dir = model_dir();
    for meaning in [
        kenning::Meaning::Model(dir.clone()),
        kenning::Meaning::Static(dir),
    ] {
        let options = Options {
            meaning,
            ..Options::default()
        };
        let Some(app) = TestApp::spawn_with(backend, "experts_find_people_by_meaning", options)
        else {
            return;
        };
        found_by_meaning(&app);
    }
}

/// What [`experts_find_people_by_what_a_query_means`] checks on one server.
fn found_by_meaning(app: &TestApp) {
    ops_and_finance(app);

    let reading = reading_by_meaning(app, "taxation");
    assert_eq!(reading["meaningModel"], json!("all-minilm-l6-v2"));
    assert_eq!(reading["unknownTopics"], json!(["taxation"]), "{reading}");
    let reached: Vec<&Value> = reading["topics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| !t["similarity"].is_null())
        .collect();
    assert!(
        reached.iter().any(|t| t["key"] == json!("tax")),
        "{reading}"
    );
    for topic in &reached {
        let similarity = topic["similarity"].as_f64().unwrap();
        assert!(similarity > 0.0 && similarity <= 1.0, "{topic}");
        assert_eq!(topic["learned"], json!(true), "{topic}");
    }
    assert_eq!(emails(&experts(app, "taxation")), ["bob@example.com"]);
    assert_eq!(
        emails(&experts(app, "k8s")).first().map(String::as_str),
        Some("alice@example.com")
    );
    // The words people wrote still count most: what is only near them
    // ("payment" to "tax") ranks far below.
    let found = experts(app, "tax");
    assert_eq!(emails(&found)[0], "bob@example.com", "{found:?}");
    let score = |e: &Value| e["score"].as_f64().unwrap();
    assert!(
        found[1..]
            .iter()
            .all(|e| score(e) * 10.0 < score(&found[0])),
        "{found:?}"
    );
}

/// With the multilingual model beside the English one (as `make run`
/// serves), a question asked in German is read with the multilingual
/// model and finds the person who wrote in English of the same subject;
/// one asked in English is read with the English model alone; a query too
/// short to tell its language by, with the model whose vocabulary spells
/// its words with fewer pieces, or both.
#[on_every_backend(needs_model)]
fn a_question_is_read_with_the_model_of_its_language(backend: Backend) {
    let multilingual = std::env::var_os("KENNING_TEST_MULTILINGUAL_DIR")
        .map(std::path::PathBuf::from)
        .expect("KENNING_TEST_MULTILINGUAL_DIR was set when the tests were built, and is not now");
    let options = Options {
        meaning: kenning::Meaning::Model(model_dir()),
        other_languages: kenning::Meaning::Model(multilingual),
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "read_with_the_model_of_its_language", options)
    else {
        return;
    };
    ops_and_finance(&app);
    let model_of = |query: &str| reading_by_meaning(&app, query)["meaningModel"].clone();
    assert_eq!(
        model_of("Wer kennt sich mit Steuererklärungen aus?"),
        json!("use-multilingual-v3")
    );
    assert_eq!(
        emails(&experts(&app, "Wer kennt sich mit Steuererklärungen aus?")).first(),
        Some(&"bob@example.com".to_owned())
    );
    assert_eq!(
        model_of("Who knows about taxation?"),
        json!("all-minilm-l6-v2")
    );
    // A query of words alone goes to the model whose vocabulary spells its
    // words with fewer pieces, to both when both spell them alike.
    let both = json!("all-minilm-l6-v2 + use-multilingual-v3");
    assert_eq!(model_of("payroll"), json!("all-minilm-l6-v2"));
    assert_eq!(model_of("Datenschutz"), json!("use-multilingual-v3"));
    assert_eq!(model_of("Barrierefreiheit"), json!("use-multilingual-v3"));
    assert_eq!(model_of("protection"), both);
    assert_eq!(model_of("k8s"), both);
    assert_eq!(emails(&experts(&app, "taxation")), ["bob@example.com"]);
}

/// Without the model's files the server starts, ranks by the words alone
/// and says so in every reading.
#[on_every_backend]
fn without_the_model_experts_ranks_by_words(backend: Backend) {
    let options = Options {
        meaning: kenning::Meaning::Static("no/such/model".into()),
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "without_the_model", options) else {
        return;
    };
    ops_and_finance(&app);
    let reply = app.graphql(MEANING_READING, json!({ "query": "taxation" }));
    let reading = &reply.json()["data"]["queryReading"];
    assert_eq!(reading["meaningModel"], json!(null), "{}", reply.body);
    assert!(experts(&app, "taxation").is_empty());
    assert_eq!(emails(&experts(&app, "tax")), ["bob@example.com"]);
    let health = app.request("GET", "/readyz", &[], b"");
    assert_eq!(health.status, 200, "{}", health.body);
}
