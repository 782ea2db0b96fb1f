//! The connector's batch endpoint: one result per item in request order,
//! each what the single endpoint would answer; the request refused whole
//! only when it is not a list of items.

use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const PATH: &str = "/connectors/api/v1/entities-with-action/batch";

fn item(email: &str, alias: Option<&str>, text: &str) -> Value {
    let mut item = json!({
        "entity_type": "document",
        "action_type": "create",
        "action_date": "2026-03-01T10:00:00.000Z",
        "user_email": email,
        "text": text,
    });
    if let Some(alias) = alias {
        item["action_alias"] = json!(alias);
    }
    item
}

fn send(app: &TestApp, key: &str, body: &[u8]) -> Reply {
    app.request(
        "POST",
        PATH,
        &[("Content-Type", "application/json"), ("APIKEY", key)],
        body,
    )
}

fn batch(app: &TestApp, key: &str, items: &[Value]) -> Reply {
    send(app, key, json!({ "items": items }).to_string().as_bytes())
}

/// Each result's status and, for a refusal, its code.
fn outcomes(reply: &Reply) -> Vec<(u64, String)> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {}", reply.body))
        .iter()
        .map(|r| {
            let code = r["error"]["code"].as_str().unwrap_or_default().to_owned();
            (r["status"].as_u64().unwrap(), code)
        })
        .collect()
}

fn code(reply: &Reply) -> (u16, String) {
    let code = reply.json()["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (reply.status, code)
}

#[on_every_backend]
fn each_item_is_answered_in_order_as_the_single_endpoint_would(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "batch_each_item_in_order") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let key = app.api_key();
    let mut late = item("ada@example.com", None, "Sketches of the engine.");
    late["action_date"] = json!("last tuesday");
    late["colour"] = json!("red");
    let reply = batch(
        &app,
        &key,
        &[
            item(
                "ada@example.com",
                Some("doc-1"),
                "Analytical engines compute Bernoulli numbers.",
            ),
            item("nobody@example.com", Some("doc-2"), "Looms weave patterns."),
            late,
            item("ada@example.com", Some("doc-1"), "Punched cards."),
            json!(42),
            json!({ "entity_type": "document", "action_type": "create",
                    "action_date": "2026-03-01T10:00:00Z", "user_email": "ADA@example.com",
                    "texts": [{ "text": "Difference engines tabulate polynomials." }],
                    "action_alias": "doc-2" }),
        ],
    );
    assert_eq!(
        outcomes(&reply),
        vec![
            (201, String::new()),
            (422, "UnknownUser".into()),
            (422, "ValidationError".into()),
            (409, "DuplicateAlias".into()),
            (400, "BadRequest".into()),
            (201, String::new()),
        ]
    );
    let body = reply.json();
    assert_eq!(
        (body["accepted"].as_u64(), body["refused"].as_u64()),
        (Some(2), Some(4))
    );
    let results = body["results"].as_array().unwrap();
    for accepted in [&results[0], &results[5]] {
        assert_eq!(accepted["globalUserId"], json!(ada));
        assert!(accepted["id"].as_str().is_some_and(|id| id.len() == 36));
        assert!(!accepted["topics"].as_array().unwrap().is_empty());
    }
    let fields: Vec<(&str, &str)> = results[2]["error"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["field"].as_str().unwrap(), f["problem"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("colour", "is not a known field"),
            (
                "action_date",
                "must be an RFC 3339 timestamp with an offset, e.g. 2026-03-02T08:00:00.000Z"
            ),
        ]
    );
    assert_eq!(
        results[1]["error"]["fields"][0]["field"],
        json!("user_email")
    );

    // What was accepted is kept as a single upload's would be: its aliases
    // are taken, and the others are still free.
    let again = app.upload(&key, &item("ada@example.com", Some("doc-2"), "Again."));
    assert_eq!(again.status, 409, "{}", again.body);
    let reply = batch(
        &app,
        &key,
        &[item(
            "ada@example.com",
            Some("doc-3"),
            "Bernoulli numbers again.",
        )],
    );
    assert_eq!(outcomes(&reply), vec![(201, String::new())]);
}

#[on_every_backend]
fn a_request_that_is_not_a_list_of_items_is_refused_whole(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            batch_items: 3,
            batch_body_limit: 2048,
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "batch_refused_whole", options) else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let key = app.api_key();
    let one = item("ada@example.com", None, "Analytical engines.");

    let refused = |body: &str| code(&send(&app, &key, body.as_bytes()));
    for broken in ["{", "", "[1, 2"] {
        assert_eq!(refused(broken), (400, "BadRequest".into()), "{broken}");
    }
    for not_an_object in ["[]", "42", "null"] {
        assert_eq!(refused(not_an_object), (400, "BadRequest".into()));
    }
    let four = json!({ "items": [one, one, one, one] }).to_string();
    for wrong in [
        "{}".to_owned(),
        r#"{"items": []}"#.to_owned(),
        r#"{"items": {"text": "a"}}"#.to_owned(),
        four,
    ] {
        let reply = send(&app, &key, wrong.as_bytes());
        assert_eq!(code(&reply), (422, "ValidationError".into()), "{wrong}");
        assert_eq!(
            reply.json()["error"]["fields"],
            json!([{ "field": "items", "problem": "must be an array of 1 to 3 upload objects" }])
        );
    }
    let extra = json!({ "items": [one], "dryRun": true }).to_string();
    let reply = send(&app, &key, extra.as_bytes());
    assert_eq!(
        reply.json()["error"]["fields"],
        json!([{ "field": "dryRun", "problem": "is not a known field" }])
    );

    let huge = json!({ "items": [item("ada@example.com", None, &"engine ".repeat(400))] });
    assert_eq!(
        code(&send(&app, &key, huge.to_string().as_bytes())),
        (413, "PayloadTooLarge".into())
    );
    let body = json!({ "items": [one] }).to_string();
    let reply = app.request(
        "POST",
        PATH,
        &[("Content-Type", "text/plain"), ("APIKEY", &key)],
        body.as_bytes(),
    );
    assert_eq!(code(&reply), (415, "UnsupportedMediaType".into()));
    let reply = app.request(
        "POST",
        PATH,
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(code(&reply), (401, "Unauthenticated".into()));
    let reply = app.request("GET", PATH, &[("APIKEY", &key)], b"");
    assert_eq!(code(&reply), (405, "MethodNotAllowed".into()));

    // Nothing of the above was stored.
    let reply = batch(
        &app,
        &key,
        &[item("ada@example.com", Some("x"), "Engines.")],
    );
    assert_eq!(outcomes(&reply), vec![(201, String::new())]);
}

/// Batches and single uploads sent at once from many connections share
/// writes: each is answered for itself, and every accepted item is kept.
#[on_every_backend]
fn concurrent_batches_are_each_answered_and_all_kept(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "batch_concurrent") else {
        return;
    };
    let people = ["ada@example.com", "bob@example.com", "cy@example.com"];
    for (n, email) in people.iter().enumerate() {
        app.create_user(email, "P", &format!("Person {n}"));
    }
    let key = app.api_key();
    let alias = |c: usize, b: usize, i: usize| format!("c{c}-b{b}-i{i}");
    std::thread::scope(|s| {
        for c in 0..6 {
            let (app, key) = (&app, &key);
            s.spawn(move || {
                for b in 0..4 {
                    let items: Vec<Value> = (0..10)
                        .map(|i| {
                            let email = people[(c + b + i) % people.len()];
                            item(email, Some(&alias(c, b, i)), "Bernoulli numbers by engine.")
                        })
                        .collect();
                    let reply = batch(app, key, &items);
                    assert!(
                        outcomes(&reply).iter().all(|(s, _)| *s == 201),
                        "{}",
                        reply.body
                    );
                    let single = item(people[c % 3], Some(&alias(c, b, 99)), "Looms.");
                    assert_eq!(app.upload(key, &single).status, 201);
                }
            });
        }
    });
    // Every alias is taken: each item was kept.
    for c in 0..6 {
        let items: Vec<Value> = (0..4)
            .flat_map(|b| (0..10).chain([99]).map(move |i| (b, i)))
            .map(|(b, i)| item("ada@example.com", Some(&alias(c, b, i)), "Again."))
            .collect();
        for chunk in items.chunks(100) {
            let reply = batch(&app, &key, chunk);
            assert!(
                outcomes(&reply)
                    .iter()
                    .all(|(s, code)| *s == 409 && code == "DuplicateAlias"),
                "{}",
                reply.body
            );
        }
    }
}

/// A batch large enough to be written in parts by several writers (on a
/// backend that has them) is answered item by item in its order, each
/// person's items learned in the order sent; an alias sent twice in it,
/// even for two people, is refused the second time.
#[on_every_backend]
fn a_large_batch_is_answered_in_order_whoever_writes_it(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "batch_large_in_order") else {
        return;
    };
    let people: Vec<(String, String)> = (0..8)
        .map(|n| {
            let email = format!("person{n}@example.com");
            let id = app.create_user(&email, "P", &format!("Person {n}"));
            (email, id)
        })
        .collect();
    let key = app.api_key();
    let items: Vec<Value> = (0..96)
        .map(|i| {
            let (email, _) = &people[(i * 5) % people.len()];
            item(
                email,
                Some(&format!("doc-{i}")),
                "Bernoulli numbers by engine.",
            )
        })
        .collect();
    let reply = batch(&app, &key, &items);
    assert!(
        outcomes(&reply).iter().all(|(s, _)| *s == 201),
        "{}",
        reply.body
    );
    let results = reply.json()["results"].as_array().unwrap().clone();
    for (i, result) in results.iter().enumerate() {
        assert_eq!(
            result["globalUserId"],
            json!(people[(i * 5) % 8].1),
            "item {i}"
        );
    }
    // The same again with one alias sent twice, by two people, and an
    // unknown person among them.
    let mut again: Vec<Value> = (0..64)
        .map(|i| {
            let (email, _) = &people[i % people.len()];
            item(email, Some(&format!("again-{i}")), "Looms weave patterns.")
        })
        .collect();
    again[40] = item(&people[3].0, Some("again-2"), "Punched cards.");
    again[41] = item("nobody@example.com", None, "Punched cards.");
    let answered = outcomes(&batch(&app, &key, &again));
    for (i, (status, code)) in answered.iter().enumerate() {
        let want = match i {
            40 => (409, "DuplicateAlias"),
            41 => (422, "UnknownUser"),
            _ => (201, ""),
        };
        assert_eq!((*status, code.as_str()), (want.0, want.1), "item {i}");
    }
}
