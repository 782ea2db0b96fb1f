//! `kenning demo` loads the sample organisation into a running server
//! through its API, once however often it runs, and each subject's
//! question then finds the people whose subject it is first.

use std::process::{Command, Output};

use serde_json::{json, Value};

use super::{first_line, graphql_post, http, kenning, serve, stderr, stdout, succeeds, Scratch};

fn demo(db: &str, port: u16, token: &str, key: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(["--database-url", db])
        .args(["demo", "--url", &format!("http://127.0.0.1:{port}")])
        .args(["--token", token, "--api-key", key])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// The data of a GraphQL answer to `query` sent with `token`.
fn graphql(port: u16, token: &str, query: &str, variables: Value) -> Value {
    let body = json!({ "query": query, "variables": variables }).to_string();
    let reply = graphql_post(port, token, &body);
    let json = reply.split("\r\n\r\n").nth(1).unwrap_or_default();
    let answer: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {reply}"));
    assert!(answer.get("errors").is_none(), "{answer}");
    answer["data"].clone()
}

#[test]
fn the_sample_organisation_loads_once_and_answers_its_questions() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (mut served, port) = serve(&db);
    let token = first_line(&mut served);
    let key = stdout(&succeeds(kenning(
        &db,
        &["apikey", "create", "--name", "demo"],
    )));
    let key = key.trim();

    let first = succeeds(demo(&db, port, &token, key));
    // Stdout holds a sign-in link for a sample person, alone; it works.
    let link = stdout(&first);
    assert_eq!(link.lines().count(), 1, "{link}");
    let path = link
        .trim()
        .strip_prefix(&format!("http://127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("a link to the server: {link}"));
    // Opened, it shows its button; the button signs in.
    let page = http(
        port,
        &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    );
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    let cookie = page
        .split("set-cookie: ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("the page set no cookie: {page}"));
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no button: {page}"));
    let form = format!("csrf={csrf}");
    let signed = http(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: {cookie}\r\n\
             Origin: http://127.0.0.1:{port}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            form.len()
        ),
    );
    assert!(signed.starts_with("HTTP/1.1 303"), "{signed}");
    assert!(signed.contains("kenning_session="), "{signed}");
    let said = stderr(&first);
    assert!(said.contains("sign in as Priya Raman"), "{said}");
    assert!(
        said.contains("12 people (12 new), 312 uploads (sent 312, already known 0)"),
        "{said}"
    );
    let again = stderr(&succeeds(demo(&db, port, &token, key)));
    assert!(
        again.contains("12 people (0 new), 312 uploads (sent 0, already known 312)"),
        "{again}"
    );
    let users = graphql(port, &token, "{ users(limit: 100) { email } }", json!({}));
    assert_eq!(users["users"].as_array().unwrap().len(), 12);

    for (question, owners) in kenning_upload::demo::questions() {
        assert!(said.contains(question), "{question} is suggested: {said}");
        let found = graphql(
            port,
            &token,
            "query q($q: String!) { experts(query: $q, limit: 5) { score user { email } } }",
            json!({ "q": question }),
        );
        let ranked: Vec<&str> = found["experts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["user"]["email"].as_str())
            .collect();
        // The people whose own subject it is come first, in some order.
        let mut first: Vec<&str> = ranked.iter().take(owners.len()).copied().collect();
        first.sort_unstable();
        let mut wanted: Vec<&str> = owners.iter().map(String::as_str).collect();
        wanted.sort_unstable();
        assert_eq!(first, wanted, "{question}: {found}");
    }

    // A token without users:write cannot load it, and says why.
    let reader = stdout(&succeeds(kenning(
        &db,
        &[
            "token",
            "create",
            "--name",
            "reader",
            "--scope",
            "expertise:read",
        ],
    )));
    let refused = demo(&db, port, reader.trim(), key);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("Forbidden"),
        "{}",
        stderr(&refused)
    );
}
