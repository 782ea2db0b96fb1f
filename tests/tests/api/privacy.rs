//! The privacy rules and a person's rights, end to end through GraphQL:
//! a person who stops learning is neither learned from nor offered; an
//! excluded type teaches nothing; the download holds every action and is
//! audited; forgetting leaves none of the person's topics in the
//! database's files; the subjects nobody knows are counted.

use kenning_domain::Scope;
use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const EXPERTS: &str =
    "query experts($query: String!) { experts(query: $query) { globalUserId score } }";
const SET_RULE: &str = "mutation rule($kind: String!, $value: String, $set: Boolean!) { \
    setLearningRule(kind: $kind, value: $value, set: $set) { anyoneLearns retentionDays \
    rules { kind value setBy { name channel } } } }";
const SET_LEARNING: &str = "mutation learning($id: UUID!, $learning: Boolean) { \
    setUserLearning(globalUserId: $id, learning: $learning) { choice learns } }";
const FORGET: &str = "mutation forget($id: UUID!) { forgetUser(globalUserId: $id) }";
const USER_DATA: &str = "query data($id: UUID!) { userData(globalUserId: $id) }";
const ASKED: &str =
    "query asked($days: Int) { askedSubjects(days: $days) { subject holders asks lastAsked } }";

const GLACIERS: &str = "Glacier moraines record how the glaciers retreated. Our glacier \
    survey mapped moraines and meltwater channels along every glacier of the valley.";
const VOLCANOES: &str = "Volcano monitoring reads the tremors of each volcano. The volcano \
    observatory logs magma movements and tremors under every volcano of the island.";

/// Uploads `text` for `email` as an `entity_type`, answering the upload's
/// topic keys.
fn teach(
    app: &TestApp,
    key: &str,
    email: &str,
    entity_type: &str,
    alias: &str,
    text: &str,
) -> Vec<String> {
    let reply = app.upload(
        key,
        &json!({
            "entity_type": entity_type,
            "action_type": "create",
            "action_date": "2026-03-01T10:00:00.000Z",
            "user_email": email,
            "text": text,
            "action_alias": alias,
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.json()["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["key"].as_str().unwrap().to_owned())
        .collect()
}

fn found(app: &TestApp, query: &str) -> Vec<String> {
    let reply = app.graphql(EXPERTS, json!({ "query": query }));
    reply.json()["data"]["experts"]
        .as_array()
        .unwrap_or_else(|| panic!("experts failed: {}", reply.body))
        .iter()
        .map(|e| e["globalUserId"].as_str().unwrap().to_owned())
        .collect()
}

fn data(app: &TestApp, id: &str) -> Value {
    let reply = app.graphql(USER_DATA, json!({ "id": id }));
    let text = reply.json()["data"]["userData"]
        .as_str()
        .unwrap_or_else(|| panic!("userData failed: {}", reply.body))
        .to_owned();
    serde_json::from_str(&text).unwrap()
}

#[on_every_backend]
fn a_person_who_stops_learning_is_neither_learned_from_nor_offered(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "privacy_stop_learning") else {
        return;
    };
    let key = app.api_key();
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    assert!(!teach(&app, &key, "ada@example.com", "document", "d1", GLACIERS).is_empty());
    assert_eq!(found(&app, "glacier moraines"), std::slice::from_ref(&ada));

    let off = app.graphql(SET_LEARNING, json!({ "id": ada, "learning": false }));
    assert_eq!(
        off.json()["data"]["setUserLearning"],
        json!({ "choice": false, "learns": false })
    );
    assert!(
        found(&app, "glacier moraines").is_empty(),
        "not offered while off"
    );
    assert!(
        teach(&app, &key, "ada@example.com", "document", "d2", VOLCANOES).is_empty(),
        "an upload naming her is accepted and teaches nothing"
    );
    let spent = app.upload(
        &key,
        &json!({
            "entity_type": "document", "action_type": "create",
            "action_date": "2026-03-01T10:00:00.000Z", "user_email": "ada@example.com",
            "text": VOLCANOES, "action_alias": "d2",
        }),
    );
    assert_eq!(spent.status, 409, "her alias is spent: {}", spent.body);

    app.graphql(SET_LEARNING, json!({ "id": ada, "learning": true }));
    assert_eq!(found(&app, "glacier moraines"), std::slice::from_ref(&ada));
    assert!(
        found(&app, "volcano tremors").is_empty(),
        "later uploads only"
    );

    let kept = data(&app, &ada);
    let mut aliases: Vec<&str> = kept["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["alias"].as_str().unwrap())
        .collect();
    // Both are of the same date: their order is the ids'.
    aliases.sort_unstable();
    assert_eq!(aliases, ["d1", "d2"], "every action is in the download");
    assert_eq!(kept["user"]["email"], "ada@example.com");
    assert!(kept["topics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["key"].as_str().unwrap().contains("glacier")));
    let audit: Vec<&str> = kept["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        audit,
        [
            "user.created",
            "user.learning_changed",
            "user.learning_changed"
        ]
    );
    let handed_out = data(&app, &ada);
    assert_eq!(
        handed_out["audit"].as_array().unwrap().last().unwrap()["kind"],
        "user.exported",
        "the hand-out is audited"
    );

    // A token that may only read expertise may do none of it.
    let reader = app.token(&[Scope::ExpertiseRead]);
    let refused = app.graphql_as(&reader, USER_DATA, json!({ "id": ada }));
    assert_eq!(
        refused.error_code().as_deref(),
        Some("Forbidden"),
        "{}",
        refused.body
    );
}

#[on_every_backend]
fn the_organisation_s_rules_take_effect_at_once(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "privacy_rules") else {
        return;
    };
    let key = app.api_key();
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let set = |kind: &str, value: Option<&str>, on: bool| {
        app.graphql(SET_RULE, json!({ "kind": kind, "value": value, "set": on }))
    };
    let rules = set("excluded_entity_type", Some("chat"), true);
    assert_eq!(
        rules.json()["data"]["setLearningRule"]["rules"],
        json!([{ "kind": "excluded_entity_type", "value": "chat",
                 "setBy": { "name": "admin", "channel": "graphql" } }]),
        "{}",
        rules.body
    );
    assert!(teach(&app, &key, "ada@example.com", "chat", "c1", GLACIERS).is_empty());
    assert!(found(&app, "glacier moraines").is_empty());
    assert!(!teach(&app, &key, "ada@example.com", "document", "d1", VOLCANOES).is_empty());
    assert_eq!(found(&app, "volcano tremors"), std::slice::from_ref(&ada));

    let off = set("learning_off", None, true);
    assert_eq!(off.json()["data"]["setLearningRule"]["anyoneLearns"], false);
    assert!(found(&app, "volcano tremors").is_empty());
    set("learning_off", None, false);
    assert_eq!(found(&app, "volcano tremors"), [ada]);

    for (kind, value, field) in [
        ("sometimes", None, "kind"),
        ("excluded_entity_type", Some("Chat"), "value"),
        ("retention_days", Some("0"), "value"),
        ("group_off", Some("not-an-id"), "value"),
    ] {
        let bad = set(kind, value, true);
        let error = &bad.json()["errors"][0];
        assert_eq!(
            error["extensions"]["code"], "ValidationError",
            "{}",
            bad.body
        );
        assert_eq!(error["extensions"]["field"], field, "{}", bad.body);
    }
    let missing = set(
        "group_off",
        Some("7d0d8a4e-4c3e-4a8c-9a57-0d8f1c2b3a4d"),
        true,
    );
    assert_eq!(
        missing.error_code().as_deref(),
        Some("NotFound"),
        "{}",
        missing.body
    );
}

#[on_every_backend]
fn forgetting_leaves_none_of_a_person_s_topics_in_the_files(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "privacy_forget") else {
        return;
    };
    let key = app.api_key();
    let id = app.create_user("quorvinda@example.com", "Quorvinda", "Blathersnipe");
    let text = "Zorbulent moonquills need careful zorbulent moonquill polishing. \
                Every zorbulent moonquill glows after polishing.";
    let topics: Vec<String> = teach(
        &app,
        &key,
        "quorvinda@example.com",
        "document",
        "plonkwhistle",
        text,
    )
    .into_iter()
    .filter(|t| t.contains("moonquil") || t.contains("zorbul"))
    .collect();
    assert!(!topics.is_empty(), "the upload taught its topics");
    let forgot = app.graphql(FORGET, json!({ "id": id }));
    assert_eq!(forgot.json()["data"]["forgetUser"], true, "{}", forgot.body);
    let kept = data(&app, &id);
    assert_eq!(kept["actions"], json!([]));
    assert_eq!(kept["topics"], json!([]));
    assert_eq!(kept["user"]["firstname"], "Quorvinda", "the account stays");
    if backend == Backend::Sqlite {
        let path = app.database_url().trim_start_matches("sqlite://");
        let mut erased = topics.clone();
        erased.push("plonkwhistle".to_owned());
        for file in [path.to_owned(), format!("{path}-wal")] {
            let bytes = std::fs::read(&file).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            let left: Vec<&String> = erased.iter().filter(|s| text.contains(*s)).collect();
            assert!(left.is_empty(), "{file} still holds {left:?}");
        }
    }
}

#[on_every_backend]
fn subjects_nobody_knows_are_counted_without_who_asked(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "privacy_asked") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    teach(&app, &key, "ada@example.com", "document", "d1", GLACIERS);
    for _ in 0..2 {
        assert!(found(&app, "quantum chromodynamics").is_empty());
    }
    found(&app, "glacier moraines");
    let asked = app.graphql(ASKED, json!({ "days": 30 }));
    let subjects = asked.json()["data"]["askedSubjects"].clone();
    let gaps: Vec<(&str, i64, i64)> = subjects
        .as_array()
        .unwrap_or_else(|| panic!("askedSubjects failed: {}", asked.body))
        .iter()
        .map(|s| {
            (
                s["subject"].as_str().unwrap(),
                s["holders"].as_i64().unwrap(),
                s["asks"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(
        gaps.iter()
            .any(|(s, holders, asks)| s.contains("chromodynamics") && *holders == 0 && *asks == 2),
        "{gaps:?}"
    );
    let bad = app.graphql(ASKED, json!({ "days": 91 }));
    assert_eq!(
        bad.json()["errors"][0]["extensions"]["field"],
        "days",
        "{}",
        bad.body
    );
}
