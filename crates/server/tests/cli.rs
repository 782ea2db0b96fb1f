//! The `kenning` command line, run as a real process on a fresh SQLite file.

// Test helpers stop the test with a message when a step fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

/// A temporary folder removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("kenning-cli-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn db_url(&self) -> String {
        format!("sqlite://{}", self.0.join("nested/kenning.db").display())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn kenning(db: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kenning"))
        .arg("--database-url")
        .arg(db)
        .args(args)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn succeeds(output: Output) -> Output {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status,
        stdout(&output),
        stderr(&output)
    );
    output
}

fn fails_with(output: Output, message: &str) {
    assert!(
        !output.status.success(),
        "expected a failure: {}",
        stdout(&output)
    );
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "one line on stderr: {err}");
    assert!(err.starts_with("error: ") && err.contains(message), "{err}");
}

/// The id column of a `list` line naming `name`.
fn listed<'a>(list: &'a str, name: &str) -> Vec<&'a str> {
    list.lines()
        .find(|line| line.split('\t').nth(1) == Some(name))
        .unwrap_or_else(|| panic!("{name} not in {list}"))
        .split('\t')
        .collect()
}

#[test]
fn every_command_has_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["migrate", "--help"],
        vec!["token", "--help"],
        vec!["token", "create", "--help"],
        vec!["token", "list", "--help"],
        vec!["token", "revoke", "--help"],
        vec!["apikey", "--help"],
        vec!["apikey", "create", "--help"],
        vec!["purge", "--help"],
    ] {
        let out = succeeds(kenning("unused.db", &args));
        assert!(stdout(&out).contains("Usage: kenning"), "{args:?}");
    }
}

#[test]
fn migrate_creates_the_database_and_its_folder() {
    let scratch = Scratch::new();
    succeeds(kenning(&scratch.db_url(), &["migrate"]));
    assert!(scratch.0.join("nested/kenning.db").exists());
    // Running it again is harmless.
    succeeds(kenning(&scratch.db_url(), &["migrate"]));
}

#[test]
fn tokens_are_created_listed_and_revoked() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let out = succeeds(kenning(
        &db,
        &[
            "token",
            "create",
            "--name",
            "reporting",
            "--scope",
            "users:read",
        ],
    ));
    let secret = stdout(&out);
    assert_eq!(secret.lines().count(), 1, "the secret alone: {secret}");
    assert!(secret.starts_with("kn_tok_"), "{secret}");
    succeeds(kenning(&db, &["token", "create", "--name", "all"]));

    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert!(!list.contains(secret.trim()), "secrets are never listed");
    let reporting = listed(&list, "reporting");
    assert_eq!(reporting[2], "users:read");
    assert_eq!(reporting[4], "-");
    assert_eq!(
        listed(&list, "all")[2],
        "users:read,users:write,expertise:read"
    );

    let id = reporting[0].to_owned();
    succeeds(kenning(&db, &["token", "revoke", &id]));
    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_ne!(listed(&list, "reporting")[4], "-");
    fails_with(kenning(&db, &["token", "revoke", &id]), "no live token");
    // A token id is not an API key id.
    let all = listed(&list, "all")[0].to_owned();
    fails_with(kenning(&db, &["apikey", "revoke", &all]), "no live apikey");
}

#[test]
fn bad_arguments_are_one_clear_error() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let out = kenning(&db, &["token", "create", "--name", "x", "--scope", "admin"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown scope `admin`"),
        "{}",
        stderr(&out)
    );
    let out = kenning(&db, &["token", "revoke", "not-a-uuid"]);
    assert!(!out.status.success());
    fails_with(kenning(&db, &["token", "create", "--name", "   "]), "name");
}

#[test]
fn api_keys_are_created_listed_and_revoked() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let secret = stdout(&succeeds(kenning(
        &db,
        &["apikey", "create", "--name", "crm"],
    )));
    assert!(secret.starts_with("kn_key_") && secret.lines().count() == 1);
    let list = stdout(&succeeds(kenning(&db, &["apikey", "list"])));
    let crm = listed(&list, "crm");
    assert_eq!(crm[2], "-");
    succeeds(kenning(&db, &["apikey", "revoke", crm[0]]));
    // Keys are not tokens.
    let tokens = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_eq!(tokens.lines().count(), 1, "only the header: {tokens}");
}

#[test]
fn purge_prints_how_many_users_it_anonymized() {
    let scratch = Scratch::new();
    let out = succeeds(kenning(&scratch.db_url(), &["purge"]));
    assert_eq!(stdout(&out), "0\n");
}

#[test]
fn unusable_database_urls_are_refused_without_leaking_secrets() {
    fails_with(
        kenning("mysql://root:hunter2@db/kenning", &["migrate"]),
        "unsupported database URL scheme `mysql`",
    );
    let out = kenning(
        "postgres://kenning:hunter2@127.0.0.1:1/kenning",
        &["migrate"],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.starts_with("error: ") && !err.contains("hunter2"),
        "{err}"
    );
}

/// A running `kenning serve`, killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `serve` on a free port; returns the process, the port and what it
/// printed on stdout before it was ready.
fn serve(db: &str) -> (Served, u16) {
    let child = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(["--database-url", db, "serve", "--bind", "127.0.0.1:0"])
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut served = Served(child);
    let stderr = served.0.stderr.take().unwrap();
    let mut port = None;
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if let Some(p) = line.split("serving on port ").nth(1) {
            port = Some(p.trim().parse().unwrap());
            break;
        }
    }
    (served, port.expect("the server never said it was serving"))
}

fn http(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

#[test]
fn serve_prints_a_first_admin_token_once_and_it_works() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (mut served, port) = serve(&db);
    let mut token = String::new();
    BufReader::new(served.0.stdout.take().unwrap())
        .read_line(&mut token)
        .unwrap();
    let token = token.trim();
    assert!(token.starts_with("kn_tok_"), "{token}");

    let ready = http(
        port,
        "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
    let body = r#"{"query":"{ users { globalUserId } }"}"#;
    let reply = http(
        port,
        &format!(
            "POST /accounts/api/v1/graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.ends_with(r#"{"data":{"users":[]}}"#), "{reply}");
    drop(served);

    // The second start finds the token and prints nothing on stdout.
    let (mut again, _) = serve(&db);
    let _ = again.0.kill();
    let mut out = String::new();
    again
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "");
    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_eq!(
        listed(&list, "admin")[2],
        "users:read,users:write,expertise:read"
    );
}
