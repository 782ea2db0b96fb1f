//! The endpoints the ready connectors call beside their uploads: who a
//! source's identities are, and the runs they report; with the upload's
//! key, limits and envelope, every status they answer documented.

use kenning_domain::Scope;
use kenning_tests::app::{Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{CREATE_USER, DEACTIVATE_USER, DELETE_USER, GET_USERS};
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const PEOPLE: &str = "/connectors/api/v1/people";
const RUNS: &str = "/connectors/api/v1/runs";

fn post(app: &TestApp, path: &str, key: &str, body: &Value) -> Reply {
    app.request(
        "POST",
        path,
        &[("Content-Type", "application/json"), ("APIKEY", key)],
        body.to_string().as_bytes(),
    )
}

/// The fields at fault in a 422's answer, with their problems.
fn refused(reply: &Reply) -> Vec<(String, String)> {
    assert_eq!(reply.status, 422, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["error"]["code"], "ValidationError", "{}", reply.body);
    body["error"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap().to_owned(),
                f["problem"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn create(app: &TestApp, email: &str, external_id: &str) -> String {
    let reply = app.graphql(
        CREATE_USER,
        json!({ "createUserInput": {
            "email": email, "firstname": "Grace", "lastname": "Hopper", "externalId": external_id,
        } }),
    );
    reply.json()["data"]["createUser"]["globalUserId"]
        .as_str()
        .unwrap_or_else(|| panic!("createUser failed: {}", reply.body))
        .to_owned()
}

fn user_count(app: &TestApp) -> usize {
    let reply = app.graphql(GET_USERS, json!({ "limit": 100 }));
    reply.json()["data"]["users"].as_array().unwrap().len()
}

#[on_every_backend]
fn identities_are_the_users_an_upload_may_name_and_nobody_is_created(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connect_people") else {
        return;
    };
    create(&app, "Grace@Example.org", "emp-7");
    let leaving = create(&app, "leaving@example.org", "emp-8");
    app.graphql(DELETE_USER, json!({ "globalUserId": leaving }));
    let resting = create(&app, "resting@example.org", "emp-9");
    app.graphql(DEACTIVATE_USER, json!({ "globalUserId": resting }));
    let before = user_count(&app);
    let key = app.api_key();
    let reply = post(
        &app,
        PEOPLE,
        &key,
        &json!({ "identities": [
            { "email": "GRACE@example.ORG", "external_id": null },
            { "email": null, "external_id": "emp-7" },
            { "external_id": "EMP-7" },
            { "email": "leaving@example.org" },
            { "external_id": "emp-8" },
            { "email": "resting@example.org" },
            { "email": "nobody@example.org", "external_id": "nobody" },
            { "email": "root@(none)" },
        ] }),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let grace = json!({ "user_email": "Grace@Example.org" });
    assert_eq!(
        reply.json(),
        json!({ "people": [
            grace, grace, null, null, null, { "user_email": "resting@example.org" }, null, null,
        ] })
    );
    assert_eq!(user_count(&app), before, "nobody was created");

    let many: Vec<Value> = (0..1001)
        .map(|i| json!({ "email": format!("p{i}@example.org") }))
        .collect();
    assert_eq!(
        refused(&post(&app, PEOPLE, &key, &json!({ "identities": many }))),
        [(
            "identities".to_owned(),
            "must hold at most 1000 items".to_owned()
        )]
    );
    let most: Vec<Value> = (0..1000)
        .map(|i| json!({ "external_id": format!("emp-{i}") }))
        .collect();
    let answered = post(&app, PEOPLE, &key, &json!({ "identities": most }));
    assert_eq!(answered.status, 200, "{}", answered.body);
    let people = answered.json()["people"].as_array().unwrap().clone();
    assert_eq!(people.len(), 1000);
    assert_eq!(people[7], grace);
    assert_eq!(
        refused(&post(
            &app,
            PEOPLE,
            &key,
            &json!({ "identities": [
                { "email": "a@example.org" },
                { "email": " ", "external_id": null },
                "ada",
                { "email": 7, "name": "Ada" },
            ] }),
        )),
        [
            (
                "identities[1]".to_owned(),
                "must give email, external_id or both".to_owned()
            ),
            ("identities[2]".to_owned(), "must be an object".to_owned()),
            (
                "identities[3].name".to_owned(),
                "is not a known field".to_owned()
            ),
            (
                "identities[3].email".to_owned(),
                "must be a string".to_owned()
            ),
        ]
    );
    assert_eq!(
        refused(&post(&app, PEOPLE, &key, &json!({ "people": [] }))),
        [("people".to_owned(), "is not a known field".to_owned())]
    );
    assert_eq!(
        refused(&post(&app, PEOPLE, &key, &json!({}))),
        [(
            "identities".to_owned(),
            "is required and cannot be blank".to_owned()
        )]
    );
}

fn run(source: &str, refused: Value, error: Value) -> Value {
    json!({
        "source": source,
        "name": "/srv/git/kenning.git",
        "started": "2026-03-02T07:00:00Z",
        "finished": "2026-03-02T07:03:12.500Z",
        "read": 412,
        "sent": 380,
        "known": 20,
        "not_found": 2,
        "refused": refused,
        "failed": 0,
        "dry_run": false,
        "error": error,
    })
}

#[on_every_backend]
fn a_run_is_recorded_with_its_key_and_listed(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connect_runs") else {
        return;
    };
    let key = app.api_key();
    let first = post(&app, RUNS, &key, &run("git", json!({}), Value::Null));
    assert_eq!(first.status, 201, "{}", first.body);
    app.advance(chrono::Duration::minutes(15));
    let second = post(
        &app,
        RUNS,
        &key,
        &run(
            "git",
            json!({ "ValidationError": 1, "UnknownUser": 3 }),
            json!("cut short: the server answered 503 three times"),
        ),
    );
    assert_eq!(second.status, 201, "{}", second.body);
    let id = second.json()["id"].as_str().unwrap().to_owned();

    let sources = app.services.connectors.sources(0, 100).unwrap().sources;
    assert_eq!(sources.len(), 1);
    let git = &sources[0];
    assert_eq!(git.last.id.to_string(), id);
    assert_eq!(git.runs, 2);
    assert_eq!(git.totals.sent, 760);
    assert_eq!(git.last.credential_name, "test");
    assert_eq!(
        git.last.received,
        kenning_ports::Clock::now(app.clock.as_ref())
    );
    let refusals: Vec<(String, u64)> = git
        .last
        .report
        .refused
        .iter()
        .map(|(code, n)| (code.as_str().to_owned(), *n))
        .collect();
    assert_eq!(
        refusals,
        [
            ("UnknownUser".to_owned(), 3),
            ("ValidationError".to_owned(), 1)
        ]
    );
    assert_eq!(
        git.last.report.error.as_ref().map(|e| e.as_str()),
        Some("cut short: the server answered 503 three times")
    );
    assert_eq!(
        git.last.report.took(),
        chrono::Duration::milliseconds(192_500)
    );
}

#[on_every_backend]
fn every_bad_field_of_a_run_is_named_at_once_and_nothing_is_recorded(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connect_bad_run") else {
        return;
    };
    let key = app.api_key();
    let reply = post(
        &app,
        RUNS,
        &key,
        &json!({
            "source": "Git",
            "name": "",
            "started": "2026-03-02T07:00:00Z",
            "finished": "2026-03-02T06:00:00Z",
            "read": -1,
            "sent": 1.5,
            "known": "3",
            "refused": { "UnknownUser": -2 },
            "failed": 9_007_199_254_740_992_u64,
            "dry_run": "no",
            "error": 7,
            "extra": true,
        }),
    );
    let fields: Vec<String> = refused(&reply).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        fields,
        [
            "extra",
            "source",
            "name",
            "finished",
            "read",
            "sent",
            "known",
            "not_found",
            "refused.UnknownUser",
            "failed",
            "dry_run",
            "error",
        ]
    );
    assert!(app
        .services
        .connectors
        .sources(0, 100)
        .unwrap()
        .sources
        .is_empty());
}

#[on_every_backend]
fn both_need_a_connector_api_key(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connect_keys") else {
        return;
    };
    let identities = json!({ "identities": [{ "email": "ada@example.com" }] });
    let report = run("git", Value::Null, Value::Null);
    let token = app.token(&[Scope::UsersRead]);
    for (path, body) in [(PEOPLE, &identities), (RUNS, &report)] {
        for key in ["kn_key_unknown", token.as_str()] {
            let reply = post(&app, path, key, body);
            assert_eq!(reply.status, 401, "{path}: {}", reply.body);
            assert_eq!(reply.json()["error"]["code"], "Unauthenticated");
        }
        let none = app.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        );
        assert_eq!(none.status, 401, "{path}");
        let get = app.request("GET", path, &[], b"");
        assert_eq!(get.status, 405, "{path}");
    }
    assert!(app
        .services
        .connectors
        .sources(0, 100)
        .unwrap()
        .sources
        .is_empty());
}

#[on_every_backend]
fn the_document_lists_every_status_they_answer(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "connect_statuses") else {
        return;
    };
    let document = app
        .request("GET", "/connectors/api/v1/openapi.json", &[], b"")
        .json();
    let key = app.api_key();
    let identities = json!({ "identities": [{ "email": "ada@example.com" }] });
    let report = run("git", Value::Null, Value::Null);
    for (path, good, bad, success) in [
        (PEOPLE, &identities, json!({ "identities": [] }), 200),
        (RUNS, &report, json!({ "source": "Git" }), 201),
    ] {
        let mut seen = vec![
            post(&app, path, &key, good).status,
            post(&app, path, &key, &bad).status,
            post(&app, path, "kn_key_unknown", good).status,
            app.request(
                "POST",
                path,
                &[("Content-Type", "application/json"), ("APIKEY", &key)],
                b"[",
            )
            .status,
            app.request(
                "POST",
                path,
                &[("Content-Type", "text/plain"), ("APIKEY", &key)],
                good.to_string().as_bytes(),
            )
            .status,
            app.request(
                "POST",
                path,
                &[("Content-Type", "application/json"), ("APIKEY", &key)],
                &vec![b' '; 2 << 20],
            )
            .status,
        ];
        seen.sort_unstable();
        assert_eq!(seen, [success, 400, 401, 413, 415, 422], "{path}");
        let listed: Vec<u16> = document["paths"][path]["post"]["responses"]
            .as_object()
            .unwrap_or_else(|| panic!("{path} is not documented"))
            .keys()
            .map(|s| s.parse().unwrap())
            .collect();
        for status in seen {
            assert!(
                listed.contains(&status),
                "{path}: {status} not in {listed:?}"
            );
        }
    }
}

#[on_every_backend]
fn administrators_see_each_source_with_its_last_run(backend: Backend) {
    let Some(app) = crate::admin::with_admin_group(backend, "connect_sources_page") else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    app.create_user("grace@example.com", "Grace", "Hopper");
    app.services
        .groups
        .create(crate::admin::admins(&[&frances]))
        .unwrap();
    let admin = app.sign_in("frances@example.com");
    let person = app.sign_in("grace@example.com");

    let empty = app.page("/admin/sources", &admin);
    assert_eq!(empty.status, 200, "{}", empty.body);
    assert!(
        empty.body.contains("kenning connect git REPO --url"),
        "{}",
        empty.body
    );

    let key = app.api_key();
    let quiet = post(&app, RUNS, &key, &run("git", json!({}), Value::Null));
    assert_eq!(quiet.status, 201, "{}", quiet.body);
    let mut mail = run(
        "mail",
        json!({ "UnknownUser": 3, "ValidationError": 1 }),
        json!("<script>alert(1)</script> login refused"),
    );
    mail["name"] = json!("imap://mail.example.org/<b>Sent</b>");
    mail["dry_run"] = json!(true);
    assert_eq!(post(&app, RUNS, &key, &mail).status, 201);

    let page = app.page("/admin/sources", &admin);
    assert_eq!(page.status, 200, "{}", page.body);
    let body = &page.body;
    assert!(!body.contains("kenning connect git REPO"), "{body}");
    let mail_at = body.find("mail: imap://mail.example.org/&#60;b&#62;Sent&#60;/b&#62;");
    let git_at = body.find("git: /srv/git/kenning.git");
    assert!(
        mail_at.is_some() && git_at.is_some() && mail_at < git_at,
        "the source heard from last first: {body}"
    );
    assert!(
        body.contains("Needs a look:</strong> it stopped on an error, and 4 uploads were refused"),
        "{body}"
    );
    assert_eq!(body.matches("Needs a look").count(), 1, "{body}");
    assert!(body.contains("UnknownUser 3, ValidationError 1"), "{body}");
    assert!(body.contains("a dry run: nothing was sent"), "{body}");
    assert!(body.contains("took 3 min 12 s"), "{body}");
    assert!(
        !body.contains("<script>alert(1)") && !body.contains("<b>Sent"),
        "escaped: {body}"
    );
    assert!(body.contains("&#60;script&#62;alert(1)&#60;/script&#62; login refused"));
    assert!(body.contains("aria-current=\"page\">Sources</a>"), "{body}");

    let runs = app.page(
        "/admin/sources/runs?source=git&name=%2Fsrv%2Fgit%2Fkenning.git",
        &admin,
    );
    assert_eq!(runs.status, 200, "{}", runs.body);
    assert!(runs.body.contains("Runs of git: /srv/git/kenning.git"));
    let nowhere = app.page("/admin/sources/runs?source=git&name=%2Fnowhere", &admin);
    assert_eq!(nowhere.status, 404);
    let invalid = app.page("/admin/sources/runs?source=Git", &admin);
    assert_eq!(invalid.status, 404);

    for path in ["/admin/sources", "/admin/sources/runs?source=git&name=x"] {
        let refused = app.page(path, &person);
        assert_eq!(refused.status, 403, "{path}");
    }
}
