//! Webhooks end to end, with a real HTTP receiver in the test: every kind
//! of change arrives as a signed CloudEvent, in order per resource;
//! failures are retried until taken or the subscription is given up on;
//! two instances deliver each event once; a URL the policy refuses is
//! refused. The server runs no round of delivery of its own here: the
//! test runs them ([`TestApp::deliver_webhooks`]), so that "nothing was
//! sent" is what a round did, not what a pause saw.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::TimeDelta;
use kenning::{Rounds, WebhookSettings};
use kenning_app::{DeliverySettings, Round};
use kenning_tests::app::{Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{CREATE_USER, DELETE_USER};
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

/// What the receiver answers a request: a status, or nothing until the
/// sender gives up.
#[derive(Debug, Clone, Copy)]
enum Answer {
    Status(u16),
    Silence,
}

/// One request the receiver took.
#[derive(Debug, Clone)]
struct Received {
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Received {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// An HTTP receiver on 127.0.0.1: records every request and answers the
/// scripted answers in turn, then 200.
struct Receiver {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
    script: Arc<Mutex<Vec<Answer>>>,
}

impl Receiver {
    fn start(script: Vec<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script));
        let (kept, answers) = (received.clone(), script.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (kept, answers) = (kept.clone(), answers.clone());
                std::thread::spawn(move || serve(stream, &kept, &answers));
            }
        });
        Self {
            url,
            received,
            script,
        }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn answer_next(&self, answers: Vec<Answer>) {
        *self.script.lock().unwrap() = answers;
    }
}

fn serve(stream: TcpStream, kept: &Mutex<Vec<Received>>, answers: &Mutex<Vec<Answer>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut headers = HashMap::new();
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.trim_end().split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let answer = {
        let mut script = answers.lock().unwrap();
        if script.is_empty() {
            Answer::Status(200)
        } else {
            script.remove(0)
        }
    };
    kept.lock().unwrap().push(Received { headers, body });
    let mut stream = stream;
    match answer {
        Answer::Status(status) => {
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
        Answer::Silence => std::thread::sleep(Duration::from_secs(5)),
    }
}

/// Webhooks allowed to the loopback network over http, quick to time out,
/// delivered in the rounds the test runs.
fn options(retry_for: TimeDelta) -> Options {
    Options {
        webhooks: WebhookSettings {
            allow_networks: vec!["127.0.0.0/8".parse().unwrap()],
            timeout: Duration::from_millis(500),
            rounds: Rounds::OnDemand,
            delivery: DeliverySettings {
                retry_for,
                lease: TimeDelta::seconds(30),
                ..DeliverySettings::default()
            },
        },
        ..Options::default()
    }
}

const CREATE_WEBHOOK: &str = "mutation hook($url: String!, $kinds: [String!]) { \
    createWebhook(url: $url, kinds: $kinds) { secret webhook { id url kinds state } } }";

/// Subscribes `url` to `kinds`; the subscription's id and secret.
fn subscribe(app: &TestApp, url: &str, kinds: &[&str]) -> (String, String) {
    let reply = app.graphql(CREATE_WEBHOOK, json!({ "url": url, "kinds": kinds }));
    let created = &reply.json()["data"]["createWebhook"];
    assert!(created.is_object(), "{}", reply.body);
    (
        created["webhook"]["id"].as_str().unwrap().to_owned(),
        created["secret"].as_str().unwrap().to_owned(),
    )
}

fn webhooks(app: &TestApp) -> Value {
    app.graphql(
        "{ webhooks { id state failingSince pending delivered } }",
        json!({}),
    )
    .json()["data"]["webhooks"]
        .clone()
}

fn scim(app: &TestApp, method: &str, path: &str, body: &Value) -> Value {
    let reply = app.request(
        method,
        &format!("/accounts/api/v1/scim/v2{path}"),
        &[
            ("Authorization", &format!("Bearer {}", app.admin_token)),
            ("Content-Type", "application/scim+json"),
        ],
        body.to_string().as_bytes(),
    );
    assert!(reply.status < 300, "{}", reply.body);
    if reply.body.is_empty() {
        Value::Null
    } else {
        reply.json()
    }
}

fn mutate(app: &TestApp, document: &str, variables: Value) {
    let reply = app.graphql(document, variables);
    assert!(reply.json()["errors"].is_null(), "{}", reply.body);
}

#[on_every_backend]
fn every_kind_of_change_arrives_signed_and_in_order(backend: Backend) {
    let Some(app) =
        TestApp::spawn_with(backend, "webhooks_every_kind", options(TimeDelta::hours(1)))
    else {
        return;
    };
    let receiver = Receiver::start(Vec::new());
    let (_, secret) = subscribe(&app, &receiver.url, &[]);

    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let id = json!({ "id": ada });
    let global = json!({ "globalUserId": ada });
    mutate(
        &app,
        "mutation u($id: UUID!) { updateUser(updateUserInput: {globalUserId: $id, lastname: \"Byron\"}) { version } }",
        id.clone(),
    );
    mutate(
        &app,
        "mutation u($id: UUID!) { updateUserEmail(updateUserEmailInput: {globalUserId: $id, email: \"augusta@example.com\"}) { version } }",
        id.clone(),
    );
    for step in ["deactivateUser", "reactivateUser"] {
        mutate(
            &app,
            &format!("mutation u($id: UUID!) {{ {step}(globalUserId: $id) {{ version }} }}"),
            id.clone(),
        );
    }
    let group = scim(
        &app,
        "POST",
        "/Groups",
        &json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "Team", "members": [{"value": ada}]}),
    );
    let group = group["id"].as_str().unwrap().to_owned();
    mutate(&app, DELETE_USER, global.clone());
    mutate(
        &app,
        "mutation u($id: UUID!) { cancelDelete(globalUserId: $id) { version } }",
        id.clone(),
    );
    mutate(&app, DELETE_USER, global.clone());
    app.advance(TimeDelta::days(14));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    scim(&app, "DELETE", &format!("/Groups/{group}"), &Value::Null);
    let key = app.api_key();
    let key_id = kenning_app::id_of_secret(kenning_domain::CredentialKind::ApiKey, &key).unwrap();
    app.services
        .credentials
        .revoke(kenning_domain::CredentialKind::ApiKey, key_id)
        .unwrap();

    let expected_of_ada = [
        "user.created",
        "user.updated",
        "user.email_changed",
        "user.deactivated",
        "user.reactivated",
        "user.deleted",
        "user.deletion_cancelled",
        "user.deleted",
        "user.anonymized",
    ];
    let round = app.deliver_webhooks();
    assert_eq!(round.delivered, expected_of_ada.len() + 5, "{round:?}");
    let all = receiver.received();
    let events: Vec<Value> = all.iter().map(Received::json).collect();
    let kinds_of = |resource: &str| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["subject"] == resource)
            .map(|e| e["data"]["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(kinds_of(&ada), expected_of_ada, "in order for the user");
    assert_eq!(
        kinds_of(&group),
        ["group.created", "group.updated", "group.deleted"],
        "in order for the group"
    );
    assert_eq!(
        kinds_of(&key_id.to_string()),
        ["credential.issued", "credential.revoked"]
    );
    // The app runs on a manual clock, from 2 March 2026 and 14 days on.
    let start = 1_772_438_400;
    for (request, event) in all.iter().zip(&events) {
        assert_eq!(event["specversion"], "1.0");
        assert_eq!(
            event["type"],
            format!("io.kenning.{}", event["data"]["kind"].as_str().unwrap())
        );
        assert_eq!(request.headers["webhook-id"], event["id"].as_str().unwrap());
        assert_eq!(
            request.headers["content-type"],
            "application/cloudevents+json"
        );
        let signature = &request.headers["kenning-signature"];
        let sent: i64 = signature
            .strip_prefix("t=")
            .and_then(|rest| rest.split(',').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("{signature}"));
        assert!((start..=start + 15 * 86_400).contains(&sent), "{signature}");
        assert!(
            kenning_webhook::verify(signature, secret.as_bytes(), &request.body, sent, 300),
            "{signature}"
        );
        assert!(!kenning_webhook::verify(
            signature,
            b"another secret",
            &request.body,
            sent,
            300
        ));
        assert!(
            !kenning_webhook::verify(
                signature,
                secret.as_bytes(),
                &request.body,
                sent + 3_600,
                300
            ),
            "an old signature is refused"
        );
        let text = String::from_utf8_lossy(&request.body);
        for personal in ["Ada", "Lovelace", "Byron", "augusta@"] {
            assert!(!text.contains(personal), "{text}");
        }
    }
    let ids: std::collections::HashSet<&str> =
        events.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), events.len(), "one id an event");
}

#[on_every_backend]
fn failures_are_retried_with_the_same_id_then_the_subscription_fails(backend: Backend) {
    let Some(app) =
        TestApp::spawn_with(backend, "webhooks_retries", options(TimeDelta::minutes(30)))
    else {
        return;
    };
    let receiver = Receiver::start(vec![
        Answer::Status(500),
        Answer::Silence,
        Answer::Status(503),
    ]);
    let (hook, _) = subscribe(&app, &receiver.url, &["user.created"]);
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let failed = Round {
        failed: 1,
        ..Round::default()
    };
    assert_eq!(app.deliver_webhooks(), failed);
    assert_eq!(receiver.received().len(), 1, "the first attempt, 500");
    assert_eq!(
        app.deliver_webhooks(),
        Round::default(),
        "not retried before its time"
    );
    assert_eq!(receiver.received().len(), 1);
    app.advance(TimeDelta::minutes(1));
    assert_eq!(app.deliver_webhooks(), failed);
    assert_eq!(receiver.received().len(), 2, "the second, timed out");
    app.advance(TimeDelta::minutes(1));
    assert_eq!(app.deliver_webhooks(), failed);
    assert_eq!(receiver.received().len(), 3, "the third, 503");
    app.advance(TimeDelta::minutes(1));
    assert_eq!(app.deliver_webhooks().delivered, 1);
    let all = receiver.received();
    assert_eq!(all.len(), 4, "the fourth, taken");
    let ids: Vec<&String> = all.iter().map(|r| &r.headers["webhook-id"]).collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    let listed = webhooks(&app);
    assert_eq!(listed[0]["id"], hook.as_str());
    assert_eq!(listed[0]["delivered"], 1);
    assert_eq!(listed[0]["pending"], 0);

    // A receiver that keeps failing past the retry time fails the
    // subscription; its events are kept, and delivered once resumed.
    receiver.answer_next(vec![Answer::Status(500); 100]);
    app.create_user("bob@example.com", "Bob", "Byron");
    assert_eq!(app.deliver_webhooks(), failed);
    app.advance(TimeDelta::minutes(31));
    let given_up = app.deliver_webhooks();
    assert_eq!(given_up.given_up, 1, "{given_up:?}");
    assert_eq!(receiver.received().len(), 6);
    let listed = webhooks(&app);
    assert_eq!(listed[0]["state"], "FAILING");
    assert!(listed[0]["failingSince"].is_string());
    app.create_user("cy@example.com", "Cy", "Coder");
    app.advance(TimeDelta::minutes(60));
    assert_eq!(app.deliver_webhooks(), Round::default());
    assert_eq!(receiver.received().len(), 6, "nothing sent while failing");
    assert_eq!(webhooks(&app)[0]["pending"], 2, "kept");

    receiver.answer_next(Vec::new());
    mutate(
        &app,
        "mutation r($id: UUID!) { resumeWebhook(id: $id) }",
        json!({ "id": hook }),
    );
    assert_eq!(app.deliver_webhooks().delivered, 2);
    assert_eq!(receiver.received().len(), 8);
    assert_eq!(webhooks(&app)[0]["pending"], 0);
    let text = app.request("GET", "/metrics", &[], b"").body;
    assert!(
        text.contains(&format!(
            "kenning_webhook_events{{subscription=\"{hook}\",state=\"delivered\"}} 3"
        )),
        "{text}"
    );
}

#[on_every_backend]
fn a_url_the_network_policy_refuses_is_refused(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "webhooks_refused") else {
        return;
    };
    for url in [
        "http://127.0.0.1:9/hook",
        "https://127.0.0.1/hook",
        "https://10.1.2.3/hook",
        "https://169.254.169.254/latest",
        "http://hooks.example/plain",
        "ftp://hooks.example/x",
    ] {
        let reply = app.graphql(CREATE_WEBHOOK, json!({ "url": url }));
        let error = &reply.json()["errors"][0];
        assert_eq!(
            error["extensions"]["code"], "ValidationError",
            "{url}: {}",
            reply.body
        );
        assert_eq!(
            error["extensions"]["fields"][0]["field"], "url",
            "{}",
            reply.body
        );
    }
    let reply = app.graphql(
        CREATE_WEBHOOK,
        json!({ "url": "https://hooks.example/in", "kinds": ["user.renamed"] }),
    );
    assert_eq!(
        reply.json()["errors"][0]["extensions"]["fields"][0]["field"],
        "kinds",
        "{}",
        reply.body
    );
    let reader = app.token(&[kenning_domain::Scope::UsersRead]);
    let refused = app.graphql_as(&reader, "{ webhooks { id } }", json!({}));
    assert_eq!(
        refused.json()["errors"][0]["extensions"]["code"],
        "Forbidden"
    );
    assert_eq!(webhooks(&app), json!([]));
}

#[on_every_backend]
fn two_instances_deliver_each_event_once(backend: Backend) {
    let Some(app) = TestApp::spawn_with(
        backend,
        "webhooks_two_instances",
        options(TimeDelta::hours(1)),
    ) else {
        return;
    };
    let beside = app.spawn_beside_with(options(TimeDelta::hours(1)));
    let receiver = Receiver::start(Vec::new());
    subscribe(&app, &receiver.url, &["user.created"]);
    let count = 30;
    for n in 0..count {
        let on = if n % 2 == 0 { &app } else { &beside };
        let reply = on.graphql(
            CREATE_USER,
            json!({ "createUserInput": { "email": format!("p{n}@example.com"), "firstname": "P", "lastname": format!("{n}") } }),
        );
        assert!(reply.json()["errors"].is_null(), "{}", reply.body);
    }
    // Both instances deliver at once, each until it finds nothing due.
    let (here, there) = std::thread::scope(|s| {
        let here = s.spawn(|| app.deliver_webhooks());
        let there = s.spawn(|| beside.deliver_webhooks());
        (here.join().unwrap(), there.join().unwrap())
    });
    assert_eq!(
        here.delivered + there.delivered,
        count,
        "{here:?} {there:?}"
    );
    let got = receiver.received();
    assert_eq!(got.len(), count, "no event twice");
    let ids: std::collections::HashSet<String> = got
        .iter()
        .map(|r| r.headers["webhook-id"].clone())
        .collect();
    assert_eq!(ids.len(), count);
}
