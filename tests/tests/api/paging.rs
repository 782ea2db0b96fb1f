//! Reading the user listing far: pages by cursor (`usersConnection`) and
//! the maximum offset of `users`.

use kenning_domain::Scope;
use kenning_graphql::Limits;
use kenning_tests::app::{Options, Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::{GET_USERS, USERS_CONNECTION};
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

fn extensions(reply: &Reply) -> Value {
    reply.json()["errors"][0]["extensions"].clone()
}

/// The last names `users` lists for `search`, all on one page.
fn listed(app: &TestApp, search: Value) -> Vec<String> {
    let reply = app.graphql(GET_USERS, json!({ "searchText": search, "limit": 1000 }));
    reply.json()["data"]["users"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", reply.body))
        .iter()
        .map(|u| u["lastname"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The connection's page of `first` users after `after`.
fn page(app: &TestApp, search: &Value, first: i64, after: &Value) -> Value {
    let variables = json!({ "searchText": search, "first": first, "after": after });
    let reply = app.graphql(USERS_CONNECTION, variables);
    let page = reply.json()["data"]["usersConnection"].clone();
    assert!(page.is_object(), "{}", reply.body);
    page
}

/// Every page of the connection for `search`, `first` users at a time,
/// each starting at the `endCursor` of the one before: the last names.
fn walk(app: &TestApp, search: Value, first: i64) -> Vec<String> {
    let mut after = Value::Null;
    let mut names = Vec::new();
    loop {
        let page = page(app, &search, first, &after);
        let edges = page["edges"].as_array().cloned().unwrap_or_default();
        let info = &page["pageInfo"];
        assert_eq!(
            info["endCursor"],
            edges.last().map_or(Value::Null, |e| e["cursor"].clone())
        );
        names.extend(edges.iter().map(|e| {
            e["node"]["lastname"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        }));
        if info["hasNextPage"] == json!(false) {
            return names;
        }
        assert_eq!(edges.len() as i64, first, "only the last page is short");
        after = info["endCursor"].clone();
    }
}

#[on_every_backend]
fn cursor_pages_list_what_users_lists(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "cursor_pages_list_what_users_lists") else {
        return;
    };
    let people = [
        ("Ada", "Lovelace"),
        ("Alan", "Turing"),
        ("Grace", "Hopper"),
        ("Barbara", "Liskov"),
        ("Edsger", "Dijkstra"),
        ("Ada", "Yonath"),
        ("Donald", "Knuth"),
    ];
    for (i, (first, last)) in people.iter().enumerate() {
        app.create_user(&format!("p{i}@example.com"), first, last);
    }
    for search in [Value::Null, json!(""), json!("ada"), json!("nobody")] {
        for first in [1, 2, 3, 7, 100] {
            assert_eq!(
                walk(&app, search.clone(), first),
                listed(&app, search.clone()),
                "{search} by {first}"
            );
        }
    }

    // Without `first`, a page holds up to 100 users.
    let reply = app.graphql(USERS_CONNECTION, json!({}));
    let page = &reply.json()["data"]["usersConnection"];
    assert_eq!(
        page["edges"].as_array().map(Vec::len),
        Some(7),
        "{}",
        reply.body
    );
    assert_eq!(page["pageInfo"]["hasNextPage"], false);

    // After the last user: an empty page, and nothing follows.
    let end = page["pageInfo"]["endCursor"].clone();
    let after_end = self::page(&app, &Value::Null, 3, &end);
    assert_eq!(after_end["edges"], json!([]));
    assert_eq!(
        after_end["pageInfo"],
        json!({ "hasNextPage": false, "endCursor": null })
    );

    let writer = app.token(&[Scope::UsersWrite]);
    let refused = app.graphql_as(&writer, USERS_CONNECTION, json!({}));
    assert_eq!(
        refused.error_code().as_deref(),
        Some("Forbidden"),
        "{}",
        refused.body
    );
}

#[on_every_backend]
fn bad_cursors_and_page_sizes_are_refused(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "bad_cursors_and_page_sizes_are_refused") else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    app.create_user("alan@example.com", "Alan", "Turing");
    let first = page(&app, &Value::Null, 1, &Value::Null);
    let cursor = first["pageInfo"]["endCursor"].as_str().unwrap().to_owned();
    let mut other_version = cursor.clone();
    other_version.replace_range(0..2, "02");
    for after in [
        String::new(),
        "garbage".to_owned(),
        cursor[..cursor.len() - 2].to_owned(),
        format!("{cursor}00"),
        cursor.to_uppercase(),
        other_version,
        "0".repeat(100_000),
    ] {
        let reply = app.graphql(USERS_CONNECTION, json!({ "first": 1, "after": after }));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let ext = extensions(&reply);
        assert_eq!(ext["code"], "ValidationError", "{}", reply.body);
        assert_eq!(ext["field"], "after");
    }
    for (first, limit) in [(0, 1), (1001, 1000)] {
        let reply = app.graphql(USERS_CONNECTION, json!({ "first": first }));
        let ext = extensions(&reply);
        assert_eq!(ext["code"], "ValidationError", "{}", reply.body);
        assert_eq!(
            (ext["field"].clone(), ext["limit"].clone()),
            (json!("first"), json!(limit))
        );
    }
    let next = page(&app, &Value::Null, 1000, &json!(cursor));
    assert_eq!(next["edges"][0]["node"]["lastname"], "Turing");
}

#[on_every_backend]
fn offsets_past_the_maximum_point_to_cursor_paging(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "offsets_past_the_maximum") else {
        return;
    };
    let at_most = app.graphql(GET_USERS, json!({ "offset": 10_000 }));
    assert_eq!(
        at_most.json()["data"]["users"],
        json!([]),
        "{}",
        at_most.body
    );
    let beyond = app.graphql(GET_USERS, json!({ "offset": 10_001 }));
    let ext = extensions(&beyond);
    assert_eq!(ext["code"], "ValidationError", "{}", beyond.body);
    assert_eq!(
        (ext["field"].clone(), ext["limit"].clone()),
        (json!("offset"), json!(10_000))
    );
    let message = beyond.json()["errors"][0]["message"].clone();
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.contains("usersConnection")),
        "{message}"
    );
    drop(app);

    let options = Options {
        limits: Limits {
            max_offset: 2,
            ..Limits::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "offsets_past_the_maximum_2", options) else {
        return;
    };
    for i in 0..4 {
        app.create_user(&format!("u{i}@example.com"), "Ada", &format!("L{i}"));
    }
    let last = app.graphql(GET_USERS, json!({ "offset": 2, "limit": 5 }));
    assert_eq!(
        last.json()["data"]["users"].as_array().map(Vec::len),
        Some(2),
        "{}",
        last.body
    );
    let beyond = app.graphql(GET_USERS, json!({ "offset": 3 }));
    assert_eq!(extensions(&beyond)["limit"], 2, "{}", beyond.body);
}

#[on_every_backend]
fn the_schema_publishes_the_domains_list_defaults(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "the_schema_publishes_the_domains_list_defaults")
    else {
        return;
    };
    let reply = app.graphql(
        "{ __type(name: \"Query\") { fields { name args { name defaultValue } } } }",
        json!({}),
    );
    let fields = reply.json()["data"]["__type"]["fields"].clone();
    let default = |field: &str, arg: &str| -> Value {
        fields
            .as_array()
            .and_then(|fields| fields.iter().find(|f| f["name"] == field))
            .and_then(|f| {
                f["args"]
                    .as_array()?
                    .iter()
                    .find(|a| a["name"] == arg)
                    .cloned()
            })
            .map(|a| a["defaultValue"].clone())
            .unwrap_or_else(|| panic!("{field}({arg}): {}", reply.body))
    };
    assert_eq!(
        default("userTopics", "limit"),
        json!(kenning_domain::UserTopicsLimit::DEFAULT.get().to_string())
    );
    assert_eq!(
        default("auditTrail", "limit"),
        json!(kenning_domain::AuditLimit::DEFAULT.get().to_string())
    );
    assert_eq!(
        default("askedSubjects", "days"),
        json!(kenning_domain::AskedSubject::DEFAULT_DAYS.to_string())
    );
    assert_eq!(default("userTopics", "limit"), json!("15"));
}
