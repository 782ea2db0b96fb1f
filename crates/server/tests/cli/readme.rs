//! The README's API examples, run as written, in order, against a real
//! server on a fresh database, so that they cannot drift from the service.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::{first_line, serve, stderr, stdout, Scratch};

const README: &str = include_str!("../../../../README.md");

/// The bodies of the README's ```sh blocks that call the API (those with
/// `curl`), in order.
fn curl_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in readme.lines() {
        match open.as_mut() {
            None => {
                if line.trim() == "```sh" {
                    open = Some(String::new());
                }
            }
            Some(block) if line.trim() == "```" => {
                if block.contains("curl ") {
                    blocks.push(std::mem::take(block));
                }
                open = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

/// The path of the first empty list in `value`, if any: every example is
/// meant to show something (an `experts` answer of `[]` means the steps
/// before left no one to find).
fn empty_list(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::Array(items) if items.is_empty() => Some(path.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| empty_list(item, &format!("{path}[{i}]"))),
        Value::Object(fields) => fields
            .iter()
            .find_map(|(name, item)| empty_list(item, &format!("{path}.{name}"))),
        _ => None,
    }
}

#[test]
fn the_readme_examples_work_in_order() {
    let curl = Command::new("curl").arg("--version").output();
    assert!(
        curl.is_ok_and(|out| out.status.success()),
        "this test runs the README's examples with curl and bash; install curl"
    );
    let blocks = curl_blocks(README);
    assert!(blocks.len() >= 8, "the README's API examples: {blocks:?}");

    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (mut served, port) = serve(&db);
    let token = first_line(&mut served);
    let base = format!("http://127.0.0.1:{port}");
    // The upload example creates its key with `kenning`, as a reader would.
    let bin = Path::new(env!("CARGO_BIN_EXE_kenning")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let mut id: Option<String> = None;
    for (n, block) in blocks.iter().enumerate() {
        let mut script = block.replace("http://127.0.0.1:8080", &base);
        match &id {
            Some(id) => script = script.replace("<id>", id),
            None => assert!(
                !script.contains("<id>"),
                "example {n} uses <id> before any answer gave one:\n{script}"
            ),
        }
        let out = Command::new("bash")
            .args(["-eu", "-o", "pipefail", "-c", &script])
            .env("TOKEN", &token)
            .env("API", format!("{base}/accounts/api/v1/graphql"))
            .env("DATABASE_URL", &db)
            .env("PATH", &path)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        let shown = format!(
            "example {n}:\n{script}\nexit {:?}\nstdout: {}\nstderr: {}",
            out.status,
            stdout(&out),
            stderr(&out)
        );
        assert!(out.status.success(), "{shown}");
        let answers: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("not JSON answers ({e}): {shown}"));
        assert!(!answers.is_empty(), "no answer: {shown}");
        for answer in &answers {
            // GraphQL reports failures in `errors`, the connector in `error`
            // (with a status that is not 2xx).
            assert!(
                answer.get("errors").is_none() && answer.get("error").is_none(),
                "{shown}"
            );
            if let Some(path) = empty_list(answer, "") {
                panic!("{path} is empty: {shown}");
            }
        }
        if id.is_none() {
            id = answers[0]["data"]["createUser"]["globalUserId"]
                .as_str()
                .map(str::to_owned);
        }
    }
}
