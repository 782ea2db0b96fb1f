//! What an erased user leaves behind in the database's own files.

use chrono::Duration;
use diesel::{Connection, RunQueryDsl};
use kenning_domain::AuditLimit;
use kenning_ports::AuditQuery;
use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::documents::{CREATE_USER, DELETE_USER};
use kenning_tests::on_every_backend;
use serde_json::json;

#[derive(Debug, diesel::QueryableByName)]
struct Table {
    #[diesel(sql_type = diesel::sql_types::Text)]
    relname: String,
}

/// The tables PostgreSQL has vacuumed on request (autovacuum aside), by
/// name; none on SQLite.
fn vacuumed(app: &TestApp) -> Vec<String> {
    if !app.database_url().starts_with("postgres") {
        return Vec::new();
    }
    let mut conn = diesel::PgConnection::establish(app.database_url()).unwrap();
    let tables: Vec<Table> = diesel::sql_query(
        "SELECT relname::text AS relname FROM pg_stat_user_tables \
         WHERE last_vacuum IS NOT NULL ORDER BY relname",
    )
    .load(&mut conn)
    .unwrap();
    tables.into_iter().map(|t| t.relname).collect()
}

/// Every personal field, each with a value found nowhere else.
fn distinctive_user() -> serde_json::Value {
    json!({
        "firstname": "Quorvinda",
        "lastname": "Blathersnipe",
        "email": "quorvinda.blathersnipe@zephyrmail.example",
        "externalId": "ext-vantablorp-8841",
        "location": "Snorkelhaven",
        "about": "Collector of glimmerwick lanterns and frobnicated teacups",
        "company": "Gribbleworks Unlimited",
        "department": "Department of Wobbleprisms",
        "position": "Chief Fizzlesmith",
    })
}

/// What the purge erases: the user's fields, and the topics and alias of
/// its upload, which the upload's answer names; and the user's id.
fn erased_strings(app: &TestApp) -> (Vec<String>, String) {
    let user = distinctive_user();
    let reply = app.graphql(CREATE_USER, json!({ "createUserInput": user }));
    let id = reply.json()["data"]["createUser"]["globalUserId"]
        .as_str()
        .unwrap_or_else(|| panic!("createUser failed: {}", reply.body))
        .to_owned();
    let key = app.api_key();
    let upload = app.upload(
        &key,
        &json!({
            "entity_type": "document",
            "action_type": "create",
            "action_date": "2026-03-01T10:00:00.000Z",
            "user_email": user["email"],
            "text": "Zorbulent moonquills need careful zorbulent moonquill polishing. \
                     Every zorbulent moonquill glows after polishing.",
            "action_alias": "document_create_plonkwhistle",
        }),
    );
    assert_eq!(upload.status, 201, "{}", upload.body);
    let mut strings: Vec<String> = user
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    strings.push("document_create_plonkwhistle".to_owned());
    // Only the topics made of made-up words: "polish" may well be found
    // in the file for other reasons.
    let topics: Vec<String> = upload.json()["topics"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| [t["topic"].as_str().unwrap(), t["key"].as_str().unwrap()])
        .filter(|t| t.contains("moonquil") || t.contains("zorbul"))
        .map(str::to_owned)
        .collect();
    assert!(!topics.is_empty(), "the upload taught its topics");
    strings.extend(topics);

    app.graphql(DELETE_USER, json!({ "globalUserId": id }));
    assert_eq!(app.services.users.purge_due().unwrap(), 0);
    assert_eq!(
        vacuumed(app),
        Vec::<String>::new(),
        "a purge that erased nobody compacts nothing"
    );
    app.advance(Duration::days(14));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    // Stored values are folded for search and uniqueness, so look for the
    // lower-case forms too.
    let folded: Vec<String> = strings.iter().map(|s| s.to_lowercase()).collect();
    strings.extend(folded);
    (strings, id)
}

#[on_every_backend]
fn a_purge_leaves_no_personal_data_in_the_files(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "erasure_leaves_no_personal_data_in_the_files") else {
        return;
    };
    let (erased, id) = erased_strings(&app);
    // The audit trail keeps the user's history by field names alone.
    let trail = app
        .services
        .audit
        .entries(
            AuditQuery {
                resource_id: Some(id.parse().unwrap()),
                ..AuditQuery::default()
            },
            AuditLimit::default(),
        )
        .unwrap()
        .entries;
    let kinds: Vec<&str> = trail.iter().map(|e| e.change.kind.as_str()).collect();
    assert_eq!(kinds, ["user.anonymized", "user.deleted", "user.created"]);
    let text = format!("{trail:?}");
    let left: Vec<&String> = erased.iter().filter(|s| text.contains(*s)).collect();
    assert!(left.is_empty(), "the audit trail holds {left:?}");
    match backend {
        Backend::Sqlite => {
            let path = app.database_url().trim_start_matches("sqlite://");
            for file in [path.to_owned(), format!("{path}-wal")] {
                let bytes = std::fs::read(&file).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes);
                let left: Vec<&String> = erased.iter().filter(|s| text.contains(*s)).collect();
                assert!(left.is_empty(), "{file} still holds {left:?}");
            }
        }
        Backend::Postgres => {
            // The bytes live in the server's files, out of reach here; the
            // tables that held them must have been vacuumed.
            assert_eq!(
                vacuumed(&app),
                [
                    "action_topics",
                    "actions",
                    "learners",
                    "standings",
                    "topic_learners",
                    "users"
                ]
            );
        }
    }
}

/// The migration that makes the sign-ins and sign-outs of people
/// anonymized or forgotten before the stores did it themselves name
/// nobody, as the stores now do.
const ANONYMOUS_SIGN_INS: [&str; 2] = [
    include_str!("../../../migrations/sqlite/2026-12-03-100000_anonymous_sign_ins/up.sql"),
    include_str!("../../../migrations/postgres/2026-12-03-100000_anonymous_sign_ins/up.sql"),
];

#[on_every_backend]
fn sign_ins_recorded_before_an_erasure_name_nobody_after_the_migration(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "erasure_sign_ins_migration") else {
        return;
    };
    let gone = app.create_user("gone@example.com", "Gone", "Person");
    let forgotten = app.create_user("forgot@example.com", "Forgot", "Person");
    let kept = app.create_user("kept@example.com", "Kept", "Person");
    app.graphql(DELETE_USER, json!({ "globalUserId": gone }));
    app.advance(Duration::days(14));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    // The trail as the stores wrote it before: every sign-in under its
    // person, the forgotten person's before and after her erasure.
    let entry = |kind: &str, id: &str| {
        app.execute_sql(&format!(
            "INSERT INTO audit_entries (at, kind, resource_id, credential_id, actor_name, \
             channel, fields) VALUES ('2026-03-01 10:00:00', '{kind}', '{id}', NULL, '{id}', \
             'web', '')"
        ));
    };
    entry("user.signed_in", &gone);
    entry("user.signed_out", &gone);
    entry("user.signed_in", &forgotten);
    entry("user.forgotten", &forgotten);
    entry("user.signed_in", &forgotten);
    entry("user.signed_in", &kept);

    let migration = match backend {
        Backend::Sqlite => ANONYMOUS_SIGN_INS[0],
        Backend::Postgres => ANONYMOUS_SIGN_INS[1],
    };
    let code: Vec<&str> = migration
        .lines()
        .filter(|line| !line.trim_start().starts_with("--"))
        .collect();
    for statement in code.join("\n").split(';').filter(|s| !s.trim().is_empty()) {
        app.execute_sql(statement);
    }

    let uses = |id: &str| -> Vec<String> {
        let entries = app
            .services
            .audit
            .entries(
                AuditQuery {
                    resource_id: Some(id.parse().unwrap()),
                    ..AuditQuery::default()
                },
                AuditLimit::default(),
            )
            .unwrap()
            .entries;
        entries
            .iter()
            .filter(|e| e.change.kind.records_personal_use())
            .map(|e| format!("{} by {}", e.change.kind, e.actor.name))
            .collect()
    };
    assert_eq!(uses(&gone), Vec::<String>::new());
    assert_eq!(uses(&forgotten), [format!("user.signed_in by {forgotten}")]);
    assert_eq!(uses(&kept), [format!("user.signed_in by {kept}")]);
    let nobody = uses(&kenning_domain::NOBODY.to_string());
    assert_eq!(
        nobody,
        [
            "user.signed_in by anonymous",
            "user.signed_out by anonymous",
            "user.signed_in by anonymous",
        ]
    );
}
