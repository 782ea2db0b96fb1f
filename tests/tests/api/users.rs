//! User management rules through the API: validation limits, absent versus
//! null, uniqueness, the lifecycle, the purge and search.

use chrono::Duration;
use kenning_tests::app::{Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::*;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

const STATE: &str = "query state($globalUserId: UUID!) { user(globalUserId: $globalUserId) { status deletionScheduledFor dateDeleted firstname lastname email externalId location } }";

fn extensions(reply: &Reply) -> Value {
    reply.json()["errors"][0]["extensions"].clone()
}

fn create(app: &TestApp, input: Value) -> Reply {
    app.graphql(CREATE_USER, json!({ "createUserInput": input }))
}

fn base(email: &str) -> Value {
    json!({ "firstname": "Ada", "lastname": "Lovelace", "email": email })
}

fn state(app: &TestApp, id: &str) -> Value {
    app.graphql(STATE, json!({ "globalUserId": id })).json()["data"]["user"].clone()
}

#[on_every_backend]
fn every_bounded_field_is_checked_at_its_limit(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "every_bounded_field_is_checked_at_its_limit") else {
        return;
    };
    for (field, limit) in [
        ("firstname", 50),
        ("lastname", 50),
        ("externalId", 250),
        ("location", 100),
        ("about", 100),
        ("company", 255),
        ("department", 255),
        ("position", 255),
    ] {
        let mut at = base(&format!("{field}-ok@example.com"));
        at[field] = json!("x".repeat(limit));
        let reply = create(&app, at);
        assert!(
            reply.error_code().is_none(),
            "{field} at {limit}: {}",
            reply.body
        );

        let mut over = base(&format!("{field}-over@example.com"));
        over[field] = json!("é".repeat(limit + 1));
        let reply = create(&app, over);
        assert_eq!(
            reply.error_code().as_deref(),
            Some("ValidationError"),
            "{field}"
        );
        let ext = extensions(&reply);
        assert_eq!(ext["field"], field);
        assert_eq!(ext["limit"], limit);
    }
    // e-mail: 191 characters at most, and a real address.
    let address = |second_label: usize| {
        format!(
            "{}@{}.{}.example",
            "a".repeat(64),
            "b".repeat(60),
            "c".repeat(second_label)
        )
    };
    assert_eq!(address(57).chars().count(), 191);
    let reply = create(&app, base(&address(57)));
    assert!(reply.error_code().is_none(), "{}", reply.body);
    let ext = extensions(&create(&app, base(&address(58))));
    assert_eq!(
        (ext["field"].clone(), ext["limit"].clone()),
        (json!("email"), json!(191))
    );
    for bad in ["not-an-address", "a@", "@b.c", "a b@c.d"] {
        let ext = extensions(&create(&app, base(bad)));
        assert_eq!(
            (ext["code"].clone(), ext["field"].clone()),
            (json!("ValidationError"), json!("email")),
            "{bad}"
        );
    }
}

#[on_every_backend]
fn codes_and_dates_are_checked_against_real_lists(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "codes_and_dates_are_checked_against_real_lists")
    else {
        return;
    };
    let mut ok = base("ok@example.com");
    ok["languageId"] = json!("DE");
    ok["countryId"] = json!("CH");
    ok["employmentStart"] = json!("2024-02-29");
    let reply = create(&app, ok);
    let id = reply.json()["data"]["createUser"]["globalUserId"]
        .as_str()
        .unwrap()
        .to_owned();
    let user = app.graphql(GET_USER, json!({ "globalUserId": id })).json()["data"]["user"].clone();
    assert_eq!(
        (user["languageId"].clone(), user["countryId"].clone()),
        (json!("de"), json!("ch"))
    );

    for (field, value) in [
        ("languageId", "xx"),
        ("languageId", "eng"),
        ("countryId", "zz"),
        ("countryId", "che"),
        ("employmentStart", "2023-02-29"),
        ("employmentStart", "2024-1-5"),
        ("employmentStart", "05.01.2024"),
    ] {
        let mut input = base(&format!("{field}{value}@example.com"));
        input[field] = json!(value);
        let ext = extensions(&create(&app, input));
        assert_eq!(ext["code"], "ValidationError", "{field}={value}");
        assert_eq!(ext["field"], field, "{field}={value}");
    }
}

#[on_every_backend]
fn all_problems_of_an_input_are_reported_together(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "all_problems_of_an_input_are_reported_together")
    else {
        return;
    };
    let reply = create(
        &app,
        json!({ "firstname": " ", "lastname": "x".repeat(51), "email": "nope", "countryId": "zz" }),
    );
    let fields: Vec<String> = extensions(&reply)["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fields, ["email", "firstname", "lastname", "countryId"]);
    // Nothing was stored.
    let users = app.graphql(GET_USERS, json!({})).json();
    assert_eq!(users["data"]["users"], json!([]));
}

#[on_every_backend]
fn update_tells_absent_from_null(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "update_tells_absent_from_null") else {
        return;
    };
    let mut input = base("ada@example.com");
    input["location"] = json!("London");
    input["department"] = json!("Research");
    input["externalId"] = json!("e-1");
    let id = create(&app, input).json()["data"]["createUser"]["globalUserId"]
        .as_str()
        .unwrap()
        .to_owned();
    let update = |changes: Value| {
        let mut input = changes;
        input["globalUserId"] = json!(id);
        app.graphql(UPDATE_USER, json!({ "updateUserInput": input }))
    };
    let reply = update(json!({ "location": null }));
    let user = &reply.json()["data"]["updateUser"];
    assert_eq!(user["location"], Value::Null, "null clears");
    assert_eq!(user["department"], "Research", "absent keeps");
    assert_eq!(user["externalId"], "e-1");

    for field in ["firstname", "lastname", "languageId"] {
        let reply = update(json!({ field: null }));
        let ext = extensions(&reply);
        assert_eq!(ext["code"], "ValidationError", "{field}");
        assert_eq!(ext["field"], field);
    }
    let reply = update(json!({ "externalId": null }));
    assert_eq!(
        reply.json()["data"]["updateUser"]["externalId"],
        Value::Null
    );
    // e-mail is not part of UpdateUserInput.
    let reply = update(json!({ "email": "other@example.com" }));
    assert_eq!(reply.status, 400, "{}", reply.body);

    let missing = app.graphql(
        UPDATE_USER,
        json!({ "updateUserInput": { "globalUserId": uuid::Uuid::new_v4(), "location": "x" } }),
    );
    assert_eq!(missing.error_code().as_deref(), Some("NotFound"));
}

#[on_every_backend]
fn email_and_external_id_are_unique(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "email_and_external_id_are_unique") else {
        return;
    };
    let mut first = base("ada@example.com");
    first["externalId"] = json!("e-1");
    create(&app, first);
    let reply = create(&app, base("ADA@Example.com"));
    assert_eq!(reply.error_code().as_deref(), Some("Conflict"));
    assert_eq!(extensions(&reply)["field"], "email");
    let mut same_external = base("bob@example.com");
    same_external["externalId"] = json!("e-1");
    let reply = create(&app, same_external);
    assert_eq!(extensions(&reply)["field"], "externalId");

    let bob = app.create_user("bob@example.com", "Bob", "Byron");
    let reply = app.graphql(
        UPDATE_USER_EMAIL,
        json!({ "updateUserEmailInput": { "globalUserId": bob, "email": "Ada@example.COM" } }),
    );
    assert_eq!(extensions(&reply)["field"], "email");
    let reply = app.graphql(
        UPDATE_USER,
        json!({ "updateUserInput": { "globalUserId": bob, "externalId": "e-1" } }),
    );
    assert_eq!(extensions(&reply)["field"], "externalId");
}

#[on_every_backend]
fn a_user_is_looked_up_exactly_by_email_or_external_id(backend: Backend) {
    let Some(app) = TestApp::spawn(
        backend,
        "a_user_is_looked_up_exactly_by_email_or_external_id",
    ) else {
        return;
    };
    let mut ada = base("Ada@Example.com");
    ada["externalId"] = json!("E-1");
    let ada = create(&app, ada).json()["data"]["createUser"]["globalUserId"].clone();
    app.create_user("adam@example.com", "Adam", "Smith");
    const BY_EMAIL: &str =
        "query($email: String!) { userByEmail(email: $email) { globalUserId email } }";
    const BY_EXTERNAL_ID: &str = "query($externalId: String!) \
        { userByExternalId(externalId: $externalId) { globalUserId externalId } }";

    let found = app.graphql(BY_EMAIL, json!({ "email": "ada@EXAMPLE.com" }));
    assert_eq!(found.json()["data"]["userByEmail"]["globalUserId"], ada);
    let found = app.graphql(BY_EXTERNAL_ID, json!({ "externalId": "E-1" }));
    assert_eq!(
        found.json()["data"]["userByExternalId"]["globalUserId"],
        ada
    );

    // Whole values only, unlike users(searchText:).
    for (document, variables) in [
        (BY_EMAIL, json!({ "email": "da@example.com" })),
        (BY_EXTERNAL_ID, json!({ "externalId": "e-1" })),
        (BY_EXTERNAL_ID, json!({ "externalId": "E-" })),
    ] {
        let reply = app.graphql(document, variables.clone());
        assert_eq!(
            reply.error_code().as_deref(),
            Some("NotFound"),
            "{variables}"
        );
    }
    // A value no user could hold names its field and rule.
    let reply = app.graphql(BY_EMAIL, json!({ "email": "not an address" }));
    assert_eq!(reply.error_code().as_deref(), Some("ValidationError"));
    assert_eq!(extensions(&reply)["field"], "email");
    let reply = app.graphql(BY_EXTERNAL_ID, json!({ "externalId": "x".repeat(251) }));
    assert_eq!(extensions(&reply)["field"], "externalId");
    assert_eq!(extensions(&reply)["limit"], 250);
}

#[on_every_backend]
fn a_display_name_is_set_cleared_and_erased(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_display_name_is_set_cleared_and_erased") else {
        return;
    };
    const SHOWN: &str = "query u($id: UUID!) { user(globalUserId: $id) { displayName } }";
    let shown = |id: &Value| {
        app.graphql(SHOWN, json!({ "id": id })).json()["data"]["user"]["displayName"].clone()
    };
    let mut input = base("ada@example.com");
    input["displayName"] = json!("  Countess of Lovelace ");
    let id = create(&app, input).json()["data"]["createUser"]["globalUserId"].clone();
    assert_eq!(shown(&id), "Countess of Lovelace");
    let update = |value: Value| {
        app.graphql(
            UPDATE_USER,
            json!({ "updateUserInput": { "globalUserId": id, "displayName": value } }),
        )
    };
    let reply = update(json!("x".repeat(256)));
    assert_eq!(extensions(&reply)["field"], "displayName");
    assert_eq!(extensions(&reply)["limit"], 255);
    assert_eq!(extensions(&update(json!(" ")))["field"], "displayName");
    update(Value::Null);
    assert_eq!(shown(&id), "Ada Lovelace");
    update(json!("Ada"));
    assert_eq!(shown(&id), "Ada");

    // Anonymization erases it with the other personal fields.
    app.graphql(DELETE_USER, json!({ "globalUserId": id }));
    app.advance(Duration::days(15));
    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    assert_eq!(shown(&id), "");
}

#[on_every_backend]
fn concurrent_creates_of_one_email_have_one_winner(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "concurrent_creates_of_one_email_have_one_winner")
    else {
        return;
    };
    let replies: Vec<Reply> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..24)
            .map(|i| {
                let app = &app;
                s.spawn(move || {
                    create(
                        app,
                        json!({ "firstname": "Racer", "lastname": format!("No{i}"), "email": "race@example.com" }),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(replies.iter().all(|r| r.status == 200), "never a 500");
    let won = replies.iter().filter(|r| r.error_code().is_none()).count();
    let conflicts = replies
        .iter()
        .filter(|r| {
            r.error_code().as_deref() == Some("Conflict") && extensions(r)["field"] == "email"
        })
        .count();
    assert_eq!((won, conflicts), (1, 23));
}

#[on_every_backend]
fn the_lifecycle_follows_the_rules(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "the_lifecycle_follows_the_rules") else {
        return;
    };
    let id = app.create_user("ada@example.com", "Ada", "Lovelace");
    let run = |document: &str| app.graphql(document, json!({ "globalUserId": id }));
    assert_eq!(state(&app, &id)["status"], "ACTIVE");
    // Repeats succeed and change nothing.
    for _ in 0..2 {
        assert!(run(DEACTIVATE_USER).error_code().is_none());
        assert_eq!(state(&app, &id)["status"], "DEACTIVATED");
    }
    for _ in 0..2 {
        assert!(run(REACTIVATE_USER).error_code().is_none());
        assert_eq!(state(&app, &id)["status"], "ACTIVE");
    }
    let reply = run(CANCEL_DELETE);
    assert_eq!(reply.error_code().as_deref(), Some("InvalidTransition"));
    assert_eq!(extensions(&reply)["status"], "ACTIVE");

    assert!(run(DELETE_USER).error_code().is_none());
    let pending = state(&app, &id);
    assert_eq!(pending["status"], "PENDING_DELETION");
    assert_eq!(pending["deletionScheduledFor"], "2026-03-16T08:00:00Z");
    // A second delete keeps the first schedule.
    app.advance(Duration::days(3));
    assert!(run(DELETE_USER).error_code().is_none());
    assert_eq!(
        state(&app, &id)["deletionScheduledFor"],
        "2026-03-16T08:00:00Z"
    );
    assert!(run(DEACTIVATE_USER).error_code().is_none());
    let reply = run(REACTIVATE_USER);
    assert_eq!(extensions(&reply)["status"], "PENDING_DELETION");
    let reply = app.graphql(
        UPDATE_USER,
        json!({ "updateUserInput": { "globalUserId": id, "location": "x" } }),
    );
    assert_eq!(reply.error_code().as_deref(), Some("InvalidTransition"));

    // Cancelling within the grace period: back to DEACTIVATED.
    assert!(run(CANCEL_DELETE).error_code().is_none());
    let cancelled = state(&app, &id);
    assert_eq!(cancelled["status"], "DEACTIVATED");
    assert_eq!(cancelled["deletionScheduledFor"], Value::Null);

    let unknown = uuid::Uuid::new_v4();
    for document in [
        DEACTIVATE_USER,
        REACTIVATE_USER,
        DELETE_USER,
        CANCEL_DELETE,
        GET_USER,
    ] {
        let reply = app.graphql(document, json!({ "globalUserId": unknown }));
        assert_eq!(
            reply.error_code().as_deref(),
            Some("NotFound"),
            "{document}"
        );
    }
}

#[on_every_backend]
fn cancelling_after_the_moment_is_too_late(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "cancelling_after_the_moment_is_too_late") else {
        return;
    };
    let id = app.create_user("ada@example.com", "Ada", "Lovelace");
    app.graphql(DELETE_USER, json!({ "globalUserId": id }));
    app.advance(Duration::days(14) - Duration::seconds(1));
    let early = app.create_user("early@example.com", "Early", "Bird");
    app.graphql(DELETE_USER, json!({ "globalUserId": early }));
    assert!(app
        .graphql(CANCEL_DELETE, json!({ "globalUserId": early }))
        .error_code()
        .is_none());
    app.advance(Duration::seconds(1));
    // Exactly at the moment, and the purge has not run yet.
    let reply = app.graphql(CANCEL_DELETE, json!({ "globalUserId": id }));
    assert_eq!(reply.error_code().as_deref(), Some("GracePeriodExpired"));
    assert_eq!(
        extensions(&reply)["scheduledFor"],
        "2026-03-16T08:00:00+00:00"
    );
    assert_eq!(state(&app, &id)["status"], "PENDING_DELETION");
}

#[on_every_backend]
fn the_purge_anonymizes_exactly_the_due_users(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "the_purge_anonymizes_exactly_the_due_users") else {
        return;
    };
    let mut input = base("gone@example.com");
    input["externalId"] = json!("ext-gone");
    input["location"] = json!("Paris");
    let gone = create(&app, input).json()["data"]["createUser"]["globalUserId"]
        .as_str()
        .unwrap()
        .to_owned();
    let later = app.create_user("later@example.com", "Later", "User");
    let stays = app.create_user("stays@example.com", "Stays", "Here");
    app.graphql(DELETE_USER, json!({ "globalUserId": gone }));
    app.advance(Duration::days(1));
    app.graphql(DELETE_USER, json!({ "globalUserId": later }));
    app.advance(Duration::days(13));

    assert_eq!(app.services.users.purge_due().unwrap(), 1);
    assert_eq!(app.services.users.purge_due().unwrap(), 0, "never twice");
    let purged = state(&app, &gone);
    assert_eq!(purged["status"], "DELETED");
    assert_eq!(purged["dateDeleted"], "2026-03-16T08:00:00Z");
    assert_eq!(
        (&purged["firstname"], &purged["lastname"], &purged["email"]),
        (&json!(""), &json!(""), &json!(""))
    );
    assert_eq!(
        (&purged["externalId"], &purged["location"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(state(&app, &later)["status"], "PENDING_DELETION");
    assert_eq!(state(&app, &stays)["status"], "ACTIVE");

    // Nothing can change a deleted user.
    for document in [DEACTIVATE_USER, REACTIVATE_USER, DELETE_USER, CANCEL_DELETE] {
        let reply = app.graphql(document, json!({ "globalUserId": gone }));
        assert_eq!(extensions(&reply)["status"], "DELETED", "{document}");
    }
    // Its e-mail and externalId are free again.
    let mut again = base("GONE@example.com");
    again["externalId"] = json!("ext-gone");
    assert!(create(&app, again).error_code().is_none());
    // It no longer matches a search.
    let found = app
        .graphql(GET_USERS, json!({ "searchText": "gone" }))
        .json();
    assert_eq!(found["data"]["users"].as_array().unwrap().len(), 1);
}

#[on_every_backend]
fn the_server_purges_on_its_interval(backend: Backend) {
    let options = kenning_tests::app::Options {
        purge_interval: std::time::Duration::from_millis(50),
        ..Default::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "the_server_purges_on_its_interval", options)
    else {
        return;
    };
    let id = app.create_user("ada@example.com", "Ada", "Lovelace");
    app.graphql(DELETE_USER, json!({ "globalUserId": id }));
    app.advance(Duration::days(14));
    // The purge runs on its own; wait for it (bounded), without a purge call.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while state(&app, &id)["status"] != "DELETED" {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never purged"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(state(&app, &id)["email"], "");
}

#[on_every_backend]
fn search_matches_and_pages_in_a_stable_order(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "search_matches_and_pages_in_a_stable_order") else {
        return;
    };
    let people = [
        ("Ada", "Lovelace", "ada@example.com"),
        ("Alan", "Turing", "alan@turing.example"),
        ("Grace", "Hopper", "grace_100%@navy.example"),
        ("Barbara", "Liskov", "barbara@mit.example"),
        ("Edsger", "Dijkstra", "ewd@utexas.example"),
    ];
    for (first, last, email) in people {
        app.create_user(email, first, last);
    }
    let names = |search: Value, offset: i64, limit: i64| -> Vec<String> {
        let reply = app.graphql(
            GET_USERS,
            json!({ "searchText": search, "offset": offset, "limit": limit }),
        );
        reply.json()["data"]["users"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", reply.body))
            .iter()
            .map(|u| u["lastname"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(json!(""), 0, 100),
        ["Dijkstra", "Hopper", "Liskov", "Lovelace", "Turing"]
    );
    assert_eq!(names(json!("LOVE"), 0, 100), ["Lovelace"]);
    assert_eq!(names(json!("ada lovelace"), 0, 100), ["Lovelace"]);
    assert_eq!(names(json!("TURING.EXAMPLE"), 0, 100), ["Turing"]);
    assert_eq!(names(json!("_100%"), 0, 100), ["Hopper"]);
    assert_eq!(names(json!("%"), 0, 100), ["Hopper"]);
    assert!(names(json!("nobody"), 0, 100).is_empty());
    let mut paged = Vec::new();
    for offset in [0, 2, 4, 6] {
        paged.extend(names(Value::Null, offset, 2));
    }
    assert_eq!(paged, names(Value::Null, 0, 1000));
}

#[on_every_backend]
fn offset_and_limit_are_range_checked(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "offset_and_limit_are_range_checked") else {
        return;
    };
    for (variables, field, limit) in [
        (json!({ "offset": -1 }), "offset", 0),
        (json!({ "limit": 0 }), "limit", 1),
        (json!({ "limit": 1001 }), "limit", 1000),
    ] {
        let reply = app.graphql(GET_USERS, variables.clone());
        let ext = extensions(&reply);
        assert_eq!(ext["code"], "ValidationError", "{variables}");
        assert_eq!(
            (ext["field"].clone(), ext["limit"].clone()),
            (json!(field), json!(limit))
        );
    }
    for variables in [json!({ "limit": 1000 }), json!({ "limit": 1, "offset": 0 })] {
        let reply = app.graphql(GET_USERS, variables);
        assert!(reply.error_code().is_none(), "{}", reply.body);
    }
    let reply = app.graphql(GET_USERS, json!({ "limit": "ten" }));
    assert_eq!(reply.status, 400, "{}", reply.body);
}

#[on_every_backend]
fn control_characters_and_endless_searches_are_refused(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "control_characters_and_endless_searches") else {
        return;
    };
    for (field, value) in [
        ("firstname", "A\u{0}da"),
        ("lastname", "Love\u{7}lace"),
        ("externalId", "e\u{0}1"),
        ("email", "ada\u{0}@example.com"),
    ] {
        let mut input = base("ada@example.com");
        input[field] = json!(value);
        let reply = create(&app, input);
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.error_code().as_deref(),
            Some("ValidationError"),
            "{field}: {}",
            reply.body
        );
        assert_eq!(extensions(&reply)["field"], field);
    }
    let mut input = base("ada@example.com");
    input["about"] = json!("Line one\nline two\ttabbed");
    let reply = create(&app, input);
    assert_eq!(reply.error_code(), None, "{}", reply.body);

    let reply = app.graphql(GET_USERS, json!({ "searchText": "x".repeat(60_000) }));
    assert_eq!(
        reply.error_code().as_deref(),
        Some("ValidationError"),
        "{}",
        reply.body
    );
    assert_eq!(extensions(&reply)["field"], "searchText");
    assert_eq!(extensions(&reply)["limit"], 250);
    let reply = app.graphql(GET_USERS, json!({ "searchText": "\u{0}ada\u{0}" }));
    assert_eq!(
        reply.json()["data"]["users"].as_array().unwrap().len(),
        1,
        "{}",
        reply.body
    );
}

#[on_every_backend]
fn a_change_asked_for_an_old_version_is_a_conflict(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "a_change_asked_for_an_old_version_is_a_conflict")
    else {
        return;
    };
    let id = app.create_user("ver@example.com", "Ver", "Sion");
    let read = |app: &TestApp| {
        app.graphql(
            "query v($id: UUID!) { user(globalUserId: $id) { version lastModified created } }",
            json!({ "id": id }),
        )
        .json()["data"]["user"]
            .clone()
    };
    let first = read(&app);
    assert_eq!(first["version"], 1);
    assert_eq!(first["lastModified"], first["created"]);

    let update = |expected: Value, location: &str| {
        app.graphql(
            UPDATE_USER,
            json!({ "updateUserInput": { "globalUserId": id, "location": location, "expectedVersion": expected } }),
        )
    };
    assert!(update(json!(1), "Leeds").error_code().is_none());
    let stale = update(json!(1), "York");
    assert_eq!(stale.error_code().as_deref(), Some("Conflict"));
    assert_eq!(extensions(&stale)["field"], "version");
    let email = app.graphql(
        UPDATE_USER_EMAIL,
        json!({ "updateUserEmailInput": { "globalUserId": id, "email": "v2@example.com", "expectedVersion": 1 } }),
    );
    assert_eq!(extensions(&email)["field"], "version");
    assert_eq!(
        state(&app, &id)["location"],
        "Leeds",
        "nothing half-written"
    );

    let bad = update(json!(0), "York");
    assert_eq!(bad.error_code().as_deref(), Some("ValidationError"));
    assert_eq!(extensions(&bad)["fields"][0]["field"], "expectedVersion");

    assert!(update(json!(2), "York").error_code().is_none());
    app.advance(Duration::minutes(3));
    assert!(update(Value::Null, "Hull").error_code().is_none());
    let last = read(&app);
    assert_eq!(last["version"], 4);
    let moment = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    assert_eq!(
        moment(&last["lastModified"]) - moment(&first["lastModified"]),
        Duration::minutes(3)
    );
}
