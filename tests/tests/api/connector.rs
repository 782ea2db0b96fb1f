//! The connector endpoint: keys, statuses, validation, users, aliases and
//! what is kept of an upload.

use kenning_domain::{CredentialKind, Scope};
use kenning_http::HttpConfig;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{DEACTIVATE_USER, DELETE_USER, REACTIVATE_USER};
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const PATH: &str = "/connectors/api/v1/entities-with-action";

const USER_TOPICS: &str = "query userTopics($globalUserId: UUID!) { userTopics(globalUserId: $globalUserId) { topic key score actions { actionId entityType actionType actionDate actionAlias } } }";

fn entry(email: &str, text: &str) -> Value {
    json!({
        "entity_type": "document",
        "action_type": "create",
        "action_date": "2026-03-01T10:00:00.000Z",
        "user_email": email,
        "text": text,
    })
}

fn code(reply: &Reply) -> String {
    reply.json()["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn problem_fields(reply: &Reply) -> Vec<String> {
    reply.json()["error"]["fields"]
        .as_array()
        .map(|fields| {
            fields
                .iter()
                .map(|f| f["field"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn topic_keys(reply: &Reply) -> Vec<String> {
    reply.json()["topics"]
        .as_array()
        .unwrap_or_else(|| panic!("no topics: {}", reply.body))
        .iter()
        .map(|t| t["key"].as_str().unwrap().to_owned())
        .collect()
}

fn user_topics(app: &TestApp, id: &str) -> Vec<Value> {
    let reply = app.graphql(USER_TOPICS, json!({ "globalUserId": id }));
    reply.json()["data"]["userTopics"]
        .as_array()
        .unwrap_or_else(|| panic!("userTopics failed: {}", reply.body))
        .clone()
}

#[on_every_backend]
fn keys_are_checked(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_keys_are_checked") else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let body = entry(
        "ada@example.com",
        "Analytical engines compute Bernoulli numbers.",
    );
    let bytes = body.to_string();
    let send = |headers: &[(&str, &str)]| {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        app.request("POST", PATH, &all, bytes.as_bytes())
    };
    let revoked = app.api_key();
    let id = app
        .services
        .credentials
        .list(CredentialKind::ApiKey)
        .unwrap()[0]
        .id;
    app.services
        .credentials
        .revoke(CredentialKind::ApiKey, id)
        .unwrap();
    let token = app.token(&Scope::ALL);
    let bearer_key = format!("Bearer {}", app.api_key());
    for headers in [
        vec![],
        vec![("APIKEY", "")],
        vec![("APIKEY", "kn_key_nonsense")],
        vec![("APIKEY", revoked.as_str())],
        vec![("APIKEY", token.as_str())],
        vec![("APIKEY", app.admin_token.as_str())],
        vec![("Authorization", bearer_key.as_str())],
    ] {
        let reply = send(&headers);
        assert_eq!(reply.status, 401, "{headers:?}: {}", reply.body);
        assert_eq!(code(&reply), "Unauthenticated");
        assert!(reply.json()["error"]["message"].is_string());
    }
    // An access token where the key belongs is named as such.
    let reply = send(&[("APIKEY", token.as_str())]);
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.starts_with("an access token was sent"), "{message}");
    let reply = send(&[("APIKEY", revoked.as_str())]);
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(message, "the API key is unknown or revoked");
    let key = app.api_key();
    let reply = send(&[("APIKEY", key.as_str())]);
    assert_eq!(reply.status, 201, "{}", reply.body);
    // The header name is case-insensitive, as HTTP says.
    let reply = send(&[("apikey", key.as_str())]);
    assert_eq!(reply.status, 201, "{}", reply.body);
}

#[on_every_backend]
fn malformed_requests_get_their_status(backend: Backend) {
    let options = Options {
        http: HttpConfig {
            body_limit: 4096,
            ..HttpConfig::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "connector_malformed_requests", options) else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let key = app.api_key();
    let send = |content_type: &str, body: &[u8]| {
        app.request(
            "POST",
            PATH,
            &[("Content-Type", content_type), ("APIKEY", &key)],
            body,
        )
    };
    let good = entry(
        "ada@example.com",
        "Difference engines tabulate polynomials.",
    )
    .to_string();

    let reply = send("text/plain", good.as_bytes());
    assert_eq!(
        (reply.status, code(&reply)),
        (415, "UnsupportedMediaType".into())
    );
    let reply = send("application/x-www-form-urlencoded", b"a=b");
    assert_eq!(reply.status, 415);

    for broken in [&b"{"[..], b"", b"{\"entity_type\": }", b"\xff\xfe"] {
        let reply = send("application/json", broken);
        assert_eq!(
            (reply.status, code(&reply)),
            (400, "BadRequest".into()),
            "{}",
            reply.body
        );
    }
    for not_an_object in ["[]", "[{}]", "\"text\"", "42", "null"] {
        let reply = send("application/json", not_an_object.as_bytes());
        assert_eq!(reply.status, 400, "{not_an_object}: {}", reply.body);
    }

    let huge = entry("ada@example.com", &"engine ".repeat(1000)).to_string();
    let reply = send("application/json", huge.as_bytes());
    assert_eq!(
        (reply.status, code(&reply)),
        (413, "PayloadTooLarge".into())
    );

    let reply = app.request("GET", PATH, &[("APIKEY", &key)], b"");
    assert_eq!(reply.status, 405);

    // None of the above was stored: the same content is still new.
    let reply = send("application/json; charset=utf-8", good.as_bytes());
    assert_eq!(reply.status, 201, "{}", reply.body);
}

#[on_every_backend]
fn every_bad_field_is_reported_at_once(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_every_bad_field_at_once") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let key = app.api_key();
    let reply = app.upload(
        &key,
        &json!({
            "entity_type": "Document",
            "action_type": 7,
            "action_date": "yesterday",
            "user_email": "not-an-address",
            "texts": [
                { "text_format": "markdown", "descriptor": "primary", "text": "Engines." },
                { "descriptor": "tertiary", "text": "   " },
                "just a string",
            ],
            "action_alias": "",
            "colour": "blue",
        }),
    );
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert_eq!(code(&reply), "ValidationError");
    let mut fields = problem_fields(&reply);
    fields.sort();
    assert_eq!(
        fields,
        [
            "action_alias",
            "action_date",
            "action_type",
            "colour",
            "entity_type",
            "texts[0].text_format",
            "texts[1].descriptor",
            "texts[1].text",
            "texts[2]",
            "user_email",
        ]
    );
    for f in reply.json()["error"]["fields"].as_array().unwrap() {
        assert!(!f["problem"].as_str().unwrap().is_empty(), "{f}");
    }

    let cases = [
        (json!({ "text": null, "texts": null }), "text"),
        (json!({ "text": null, "texts": [] }), "texts"),
        (json!({ "text": null, "texts": "a text" }), "texts"),
        (json!({ "texts": { "text": "a" }, "text": "b" }), "text"),
        (json!({ "text": 12 }), "text"),
        (
            json!({ "action_date": "2026-03-01 10:00:00" }),
            "action_date",
        ),
        (
            json!({ "action_date": "2027-03-01T10:00:00.000Z" }),
            "action_date",
        ),
        (json!({ "entity_type": "e".repeat(101) }), "entity_type"),
        (json!({ "action_alias": "a".repeat(256) }), "action_alias"),
        (json!({ "action_alias": 5 }), "action_alias"),
        (json!({ "action_alias": "chat\u{0}1" }), "action_alias"),
    ];
    for (change, field) in cases {
        let mut body = entry("ada@example.com", "Engines.");
        for (name, value) in change.as_object().unwrap() {
            if value.is_null() {
                body.as_object_mut().unwrap().remove(name);
            } else {
                body[name] = value.clone();
            }
        }
        let reply = app.upload(&key, &body);
        assert_eq!(reply.status, 422, "{change}: {}", reply.body);
        assert_eq!(problem_fields(&reply), [field], "{change}");
    }
    assert!(user_topics(&app, &ada).is_empty(), "nothing was learned");
}

#[on_every_backend]
fn uploads_teach_known_users_only(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_uploads_teach_known_users_only") else {
        return;
    };
    let key = app.api_key();
    let ada = app.create_user("Ada@Example.com", "Ada", "Lovelace");
    let resting = app.create_user("resting@example.com", "Resting", "User");
    let leaving = app.create_user("leaving@example.com", "Leaving", "User");
    app.graphql(DEACTIVATE_USER, json!({ "globalUserId": resting }));
    app.graphql(DELETE_USER, json!({ "globalUserId": leaving }));
    let text = "Compilers translate source code into machine code.";

    let reply = app.upload(&key, &entry("nobody@example.com", text));
    assert_eq!((reply.status, code(&reply)), (422, "UnknownUser".into()));
    assert_eq!(problem_fields(&reply), ["user_email"]);
    let reply = app.upload(&key, &entry("leaving@example.com", text));
    assert_eq!((reply.status, code(&reply)), (422, "UnknownUser".into()));
    app.advance(chrono::Duration::days(15));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    let reply = app.upload(&key, &entry("leaving@example.com", text));
    assert_eq!((reply.status, code(&reply)), (422, "UnknownUser".into()));
    assert!(user_topics(&app, &leaving).is_empty());

    // The e-mail is matched case-insensitively.
    let reply = app.upload(&key, &entry("ADA@example.COM", text));
    assert_eq!(reply.status, 201, "{}", reply.body);
    let created = reply.json();
    assert_eq!(created["globalUserId"], ada.as_str());
    let action_id = created["id"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(action_id).is_ok());
    let topics = created["topics"].as_array().unwrap();
    assert!(!topics.is_empty());
    for t in topics {
        assert!(t["topic"].is_string() && t["key"].is_string(), "{t}");
        assert!(t["score"].as_f64().unwrap() > 0.0, "{t}");
    }
    assert!(topic_keys(&reply).iter().any(|k| k.contains("compil")));

    // A deactivated user keeps learning, shown to nobody until back.
    let reply = app.upload(&key, &entry("resting@example.com", text));
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert!(user_topics(&app, &resting).is_empty());
    app.graphql(REACTIVATE_USER, json!({ "globalUserId": resting }));
    assert!(!user_topics(&app, &resting).is_empty());

    let learned = user_topics(&app, &ada);
    let action = &learned[0]["actions"][0];
    assert_eq!(action["actionId"], action_id);
    assert_eq!(action["entityType"], "document");
    assert_eq!(action["actionType"], "create");
    assert_eq!(action["actionDate"], "2026-03-01T10:00:00Z");
    assert_eq!(action["actionAlias"], Value::Null);
}

#[on_every_backend]
fn an_alias_is_accepted_once(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_an_alias_is_accepted_once") else {
        return;
    };
    let key = app.api_key();
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let mut body = entry("ada@example.com", "Punched cards program the loom.");
    body["action_alias"] = json!("document_create_1");
    let first = app.upload(&key, &body);
    assert_eq!(first.status, 201, "{}", first.body);
    body["text"] = json!("Another text under the same alias.");
    let again = app.upload(&key, &body);
    assert_eq!((again.status, code(&again)), (409, "DuplicateAlias".into()));
    assert_eq!(problem_fields(&again), ["action_alias"]);
    // It says which action holds the alias, and since when (the test's
    // clock).
    let message = again.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    let held_by = first.json()["id"].as_str().unwrap().to_owned();
    assert!(
        message.contains(&format!(
            "accepted before, at 2026-03-02T08:00:00.000Z, as action {held_by}"
        )),
        "{message}"
    );

    let learned = user_topics(&app, &ada);
    let actions: Vec<&Value> = learned
        .iter()
        .flat_map(|t| t["actions"].as_array().unwrap())
        .collect();
    assert!(actions.iter().all(|a| a["actionId"] == first.json()["id"]));
    assert_eq!(actions[0]["actionAlias"], "document_create_1");
    let keys: Vec<&str> = learned.iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert!(!keys.iter().any(|k| k.contains("alias")), "{keys:?}");
}

#[on_every_backend]
fn simultaneous_uploads_of_one_alias_have_one_winner(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_simultaneous_alias") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let replies: Vec<Reply> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..24)
            .map(|i| {
                let (app, key) = (&app, &key);
                s.spawn(move || {
                    let mut body = entry(
                        "ada@example.com",
                        &format!("Race number {i} about concurrent uploads of chat messages."),
                    );
                    body["action_alias"] = json!("chat_message_42");
                    app.upload(key, &body)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created = replies.iter().filter(|r| r.status == 201).count();
    let duplicates = replies
        .iter()
        .filter(|r| r.status == 409 && code(r) == "DuplicateAlias")
        .count();
    assert_eq!(
        (created, duplicates),
        (1, 23),
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
}

#[on_every_backend]
fn html_counts_only_its_visible_text(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_html_visible_text") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let html = r#"<html><head><title>Quantum notes</title><style>.zebrafish { colour: red }</style></head>
        <body><div class="container"><h1>Quantum computing</h1>
        <p>Quantum computing uses <b>qubits</b>; quantum computing hardware keeps qubits coherent.</p>
        <script>var narwhal = documentWrite("hidden");</script>
        <p>Error correction protects qubits &amp; quantum gates.</p></div></body></html>"#;
    let reply = app.upload(
        &key,
        &json!({
            "entity_type": "document",
            "action_type": "create",
            "action_date": "2026-03-01T10:00:00Z",
            "user_email": "ada@example.com",
            "texts": { "text_format": "html", "descriptor": "primary", "text": html },
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    let keys = topic_keys(&reply).join(" | ");
    assert!(keys.contains("quantum comput"), "{keys}");
    assert!(keys.contains("qubit"), "{keys}");
    for hidden in [
        "zebrafish",
        "narwhal",
        "documentwrit",
        "colour",
        "div",
        "class",
        "contain",
        "script",
        "style",
        "amp",
    ] {
        assert!(!keys.contains(hidden), "{hidden} in {keys}");
    }
}

#[on_every_backend]
fn texts_come_as_one_object_or_an_array(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_texts_forms") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let base = entry("ada@example.com", "");
    let mut one = base.clone();
    one.as_object_mut().unwrap().remove("text");
    let mut many = one.clone();
    one["texts"] = json!({ "text": "Glacier hydrology measures meltwater runoff." });
    many["texts"] = json!([
        { "descriptor": "primary", "text": "Glacier hydrology" },
        { "descriptor": "secondary", "text_format": "plain", "text": "Volcanic ash clouds disrupt aviation routes." },
    ]);
    let reply = app.upload(&key, &one);
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert!(topic_keys(&reply).iter().any(|k| k.contains("glacier")));
    let reply = app.upload(&key, &many);
    assert_eq!(reply.status, 201, "{}", reply.body);
    let keys = topic_keys(&reply).join(" | ");
    assert!(keys.contains("glacier"), "{keys}");
    assert!(keys.contains("volcan"), "{keys}");
}

#[on_every_backend]
fn only_topics_are_kept(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_only_topics_are_kept") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let secret = "The merger with Initech closes on Friday, tell nobody before then.";
    let reply = app.upload(&key, &entry("ada@example.com", secret));
    assert_eq!(reply.status, 201, "{}", reply.body);
    if matches!(backend, Backend::Sqlite) {
        let path = app
            .database_url()
            .trim_start_matches("sqlite://")
            .to_owned();
        let mut stored = std::fs::read(&path).unwrap();
        stored.extend(std::fs::read(format!("{path}-wal")).unwrap_or_default());
        let stored = String::from_utf8_lossy(&stored);
        assert!(
            !stored.contains("tell nobody before then"),
            "the text was stored"
        );
        assert!(
            !stored.contains("merger with Initech closes"),
            "the text was stored"
        );
    }
    let metrics = app.request("GET", "/metrics", &[], b"");
    assert!(
        metrics
            .body
            .contains("kenning_uploads_total{outcome=\"Accepted\"} 1"),
        "{}",
        metrics.body
    );
    assert!(metrics.body.contains("kenning_topics_extracted_total"));
}

#[on_every_backend]
fn a_word_too_long_to_be_a_topic_loses_nothing(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_a_word_too_long_to_be_a_topic") else {
        return;
    };
    let key = app.api_key();
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    // A base64 block of 3,000 letters: larger than a btree index row.
    let block: String = (0..3000)
        .map(|i| char::from(b'a' + u8::try_from((i * 7 + i / 13) % 26).unwrap()))
        .collect();
    let text = format!("Attachment {block} sent with the quarterly budget review. The budget review covers travel costs.");
    let reply = app.upload(&key, &entry("ada@example.com", &text));
    assert_eq!(reply.status, 201, "{}", reply.body);
    let keys = topic_keys(&reply);
    assert!(keys.iter().any(|k| k.contains("budget")), "{keys:?}");
    assert!(
        keys.iter()
            .all(|k| k.split(' ').all(|w| w.chars().count() <= 64)),
        "{keys:?}"
    );
    assert!(!user_topics(&app, &ada).is_empty());
}

#[on_every_backend]
fn a_title_is_read_in_the_language_of_its_upload(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connector_a_title_in_its_uploads_language") else {
        return;
    };
    let key = app.api_key();
    app.create_user("ada@example.com", "Ada", "Lovelace");
    // Read alone, the title looks French: `tre`, `listener`.
    let reply = app.upload(
        &key,
        &json!({
            "entity_type": "commit",
            "action_type": "authored",
            "action_date": "2026-03-01T10:00:00Z",
            "user_email": "ada@example.com",
            "texts": [
                { "descriptor": "primary", "text": "tree/container: remove event listeners on destroy" },
                { "text": "The container no longer listens for events once it is destroyed, so the tree does not read freed memory." },
                { "descriptor": "secondary", "text": "sway tree container.c" },
            ],
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    let keys = topic_keys(&reply);
    for english in ["tree", "listen", "remov event listen"] {
        assert!(keys.iter().any(|k| k == english), "{english} in {keys:?}");
    }
    for french in ["tre", "listener", "remov event listener"] {
        assert!(!keys.iter().any(|k| k == french), "{french} in {keys:?}");
    }
}
