//! `kenning upload`, the reference connector, against a real server: a
//! JSON Lines file and a directory, the report of what was refused, the
//! checkpoint that makes a rerun send only the rest, and a server killed
//! and restarted in the middle of a run.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{first_line, kenning, serve_at, stderr, stdout, succeeds, Scratch};

/// A server on `db` with ada@example.com, and a connector key.
fn server_with_ada(db: &str, bind: &str) -> (super::Served, u16, String) {
    server_with_ada_and(db, bind, &[])
}

/// [`server_with_ada`] with more settings in the environment.
fn server_with_ada_and(
    db: &str,
    bind: &str,
    settings: &[(&str, &str)],
) -> (super::Served, u16, String) {
    let (mut server, port) = super::serve_with(db, bind, settings);
    let admin = first_line(&mut server);
    let query = r#"{"query":"mutation { createUser(createUserInput: { email: \"ada@example.com\", firstname: \"Ada\", lastname: \"Lovelace\" }) { globalUserId } }"}"#;
    let reply = super::http(
        port,
        &format!(
            "POST /accounts/api/v1/graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Authorization: Bearer {admin}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{query}",
            query.len()
        ),
    );
    assert!(reply.contains("globalUserId"), "{reply}");
    let key = stdout(&succeeds(kenning(db, &["apikey", "create", "--name", "c"])));
    (server, port, key.trim().to_owned())
}

fn upload_command(port: u16, key: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kenning"));
    command
        .arg("upload")
        .args(args)
        .args(["--url", &format!("http://127.0.0.1:{port}")])
        .env("KENNING_API_KEY", key)
        .env_remove("DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn upload(port: u16, key: &str, args: &[&str]) -> Output {
    upload_command(port, key, args).output().unwrap()
}

fn upload_line(n: usize, email: &str) -> Value {
    json!({
        "entity_type": "document",
        "action_type": "edit",
        "action_date": "2026-03-01T10:00:00Z",
        "user_email": email,
        "text": format!("Analytical engines compute Bernoulli numbers, note {n}."),
        "action_alias": format!("note-{n}"),
    })
}

fn write_jsonl(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// `total` uploads by ada@example.com, one a line.
fn write_uploads_by_ada(path: &Path, total: usize) {
    let lines: Vec<String> = (0..total)
        .map(|n| upload_line(n, "ada@example.com").to_string())
        .collect();
    write_jsonl(path, &lines);
}

/// The summary line's counts: (sent, already known, not found, refused,
/// failed, acknowledged before).
fn counts(output: &Output) -> (u64, u64, u64, u64, u64, u64) {
    let text = stderr(output);
    let line = text
        .lines()
        .find(|l| l.starts_with("read "))
        .unwrap_or_else(|| panic!("no summary: {text}"));
    let number = |after: &str| -> u64 {
        line.split(after)
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no `{after}` in {line}"))
    };
    (
        number(", sent "),
        number("already known "),
        number("not found "),
        number("refused "),
        number("failed "),
        number("acknowledged before "),
    )
}

fn report(path: &Path) -> Vec<Value> {
    super::json_lines(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn a_jsonl_file_is_sent_refusals_are_reported_and_a_rerun_sends_the_rest() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (_server, port, key) = server_with_ada(&db, "127.0.0.1:0");
    let mut lines: Vec<String> = (0..120)
        .map(|n| {
            let email = if n == 7 {
                "bob@example.com"
            } else {
                "ada@example.com"
            };
            upload_line(n, email).to_string()
        })
        .collect();
    lines.push("not json".to_owned());
    let mut invalid = upload_line(500, "ada@example.com");
    invalid["action_date"] = json!("yesterday");
    lines.push(invalid.to_string());
    // The same alias as an earlier line: the server has it already.
    lines.push(
        upload_line(3, "ada@example.com")
            .to_string()
            .replace("note 3", "again"),
    );
    let input = scratch.0.join("uploads.jsonl");
    write_jsonl(&input, &lines);

    let first = upload(port, &key, &[input.to_str().unwrap(), "--batch-size", "25"]);
    assert!(!first.status.success(), "refusals make the run fail");
    assert_eq!(counts(&first), (119, 1, 1, 2, 0, 0), "{}", stderr(&first));
    let failures = report(&scratch.0.join("uploads.jsonl.kenning-failures.jsonl"));
    let mut reported: Vec<(String, String)> = failures
        .iter()
        .map(|f| {
            (
                f["item"].as_str().unwrap().to_owned(),
                f["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    reported.sort();
    assert_eq!(
        reported,
        vec![
            ("line 121".to_owned(), "Unreadable".to_owned()),
            ("line 122".to_owned(), "ValidationError".to_owned()),
            ("line 8".to_owned(), "UnknownUser".to_owned()),
        ]
    );
    assert!(failures
        .iter()
        .any(|f| f["problem"].as_str().unwrap().contains("action_date")));

    // A rerun sends only what was not acknowledged; once bob exists and
    // the bad lines are mended, everything is done.
    let again = upload(port, &key, &[input.to_str().unwrap()]);
    assert_eq!(counts(&again), (0, 0, 1, 2, 0, 120));
    lines[120] = upload_line(600, "ada@example.com").to_string();
    lines[121] = upload_line(500, "ada@example.com").to_string();
    lines[7] = upload_line(7, "ada@example.com").to_string();
    write_jsonl(&input, &lines);
    let mended = succeeds(upload(port, &key, &[input.to_str().unwrap()]));
    assert_eq!(counts(&mended), (3, 0, 0, 0, 0, 120));
    assert!(report(&scratch.0.join("uploads.jsonl.kenning-failures.jsonl")).is_empty());
}

#[test]
fn a_directory_is_sent_with_its_mapping() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (_server, port, key) = server_with_ada(&db, "127.0.0.1:0");
    let docs = scratch.0.join("docs");
    std::fs::create_dir_all(docs.join("wiki")).unwrap();
    std::fs::write(
        docs.join("engine.txt"),
        "Analytical engines compute Bernoulli numbers.",
    )
    .unwrap();
    std::fs::write(
        docs.join("wiki/loom.md"),
        "# Looms\n\nJacquard looms weave with punched cards.",
    )
    .unwrap();
    std::fs::write(
        docs.join("wiki/notes.html"),
        "<html><body><h1>Notes</h1><p>Difference engines tabulate polynomials.</p></body></html>",
    )
    .unwrap();
    std::fs::write(docs.join("scan.pdf"), b"%PDF-1.4").unwrap();
    std::fs::write(docs.join("stranger.txt"), "Nobody maps this file.").unwrap();
    let mapping = scratch.0.join("mapping.csv");
    std::fs::write(
        &mapping,
        "path,user_email,action_type,action_date\n\
         engine.txt,ada@example.com,create,2026-02-01T09:00:00Z\n\
         wiki/loom.md,ada@example.com,edit,\n\
         wiki/notes.html,ada@example.com,,\n",
    )
    .unwrap();

    let out = upload(
        port,
        &key,
        &[
            docs.to_str().unwrap(),
            "--mapping",
            mapping.to_str().unwrap(),
        ],
    );
    assert_eq!(counts(&out), (3, 0, 0, 1, 0, 0), "{}", stderr(&out));
    let failures = report(&scratch.0.join("docs.kenning-failures.jsonl"));
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0]["item"], "stranger.txt");
    assert!(failures[0]["problem"]
        .as_str()
        .unwrap()
        .contains("--user-email"));

    // With a default user the last file goes too; the others are done.
    let with_default = [
        docs.to_str().unwrap(),
        "--mapping",
        mapping.to_str().unwrap(),
        "--user-email",
        "ada@example.com",
    ];
    let out = succeeds(upload(port, &key, &with_default));
    assert_eq!(counts(&out), (1, 0, 0, 0, 0, 3));
    // A lost checkpoint costs nothing but a resend: each file's alias makes
    // it a duplicate.
    std::fs::remove_file(scratch.0.join("docs.kenning-checkpoint")).unwrap();
    let out = succeeds(upload(port, &key, &with_default));
    assert_eq!(counts(&out), (0, 4, 0, 0, 0, 0));
}

#[test]
fn a_run_survives_a_server_restart_and_a_killed_run_resumes() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    // A port of our own, so the restarted server answers at the same URL.
    let bind = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    let (server, port, key) = server_with_ada(&db, &bind);
    let total = 3_000;
    let input = scratch.0.join("backlog.jsonl");
    write_uploads_by_ada(&input, total);
    let checkpoint = scratch.0.join("backlog.jsonl.kenning-checkpoint");
    let acknowledged = || {
        std::fs::read_to_string(&checkpoint)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let wait_for = |at_least: usize| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while acknowledged() < at_least {
            assert!(Instant::now() < deadline, "no progress: {}", acknowledged());
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let args = [
        input.to_str().unwrap(),
        "--batch-size",
        "20",
        "--concurrency",
        "2",
        "--tries",
        "100",
        "--backoff-ms",
        "50",
    ];

    // The server dies mid-run and comes back: the run waits and goes on.
    let run = upload_command(port, &key, &args).spawn().unwrap();
    wait_for(200);
    drop(server);
    std::thread::sleep(Duration::from_millis(300));
    let (restarted, _) = serve_at(&db, &bind);
    wait_for(1_000);
    // The run itself is killed: a new run sends only the rest.
    let mut run = run;
    run.kill().unwrap();
    run.wait().unwrap();
    let before = acknowledged();
    assert!(before < total, "the run ended before it was killed");
    let rest = succeeds(upload(port, &key, &args));
    let (sent, known, not_found, refused, failed, done_before) = counts(&rest);
    assert_eq!((not_found, refused, failed), (0, 0, 0), "{}", stderr(&rest));
    assert_eq!(done_before, before as u64);
    assert_eq!(sent + known + done_before, total as u64);
    // The uploads in flight when the run was killed came back as
    // duplicates (their aliases); a third run finds everything done.
    let all = succeeds(upload(port, &key, &args));
    assert_eq!(counts(&all), (0, 0, 0, 0, 0, total as u64));
    drop(restarted);
}

#[test]
fn a_throttled_run_waits_as_the_server_asks_and_loses_nothing() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    // 300 requests a minute for the key, as many at once: the run's 360
    // one-upload requests go past it and get 429 with Retry-After.
    let (_server, port, key) = server_with_ada_and(
        &db,
        "127.0.0.1:0",
        &[("KENNING_REQUESTS_PER_MINUTE", "300")],
    );
    let total = 360;
    let input = scratch.0.join("throttled.jsonl");
    write_uploads_by_ada(&input, total);
    let started = Instant::now();
    let out = succeeds(upload(
        port,
        &key,
        &[
            input.to_str().unwrap(),
            "--batch-size",
            "1",
            "--tries",
            "30",
        ],
    ));
    assert_eq!(
        counts(&out),
        (total as u64, 0, 0, 0, 0, 0),
        "{}",
        stderr(&out)
    );
    // The 60 beyond the burst came at the key's rate, 5 a second.
    assert!(
        started.elapsed() >= Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}
