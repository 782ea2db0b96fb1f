//! `kenning connect mattermost` on bulk exports the tests write, zipped
//! as `mmctl export` downloads them too, and on a real one
//! (`samples/mattermost-export.jsonl`).

use std::io::Write as _;
use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};
use zip::write::SimpleFileOptions;
use zip::ZipWriter;

use super::contract::{self, Fixture};
use super::{count, Connected};

/// 1 February 2026, 10:00 UTC, in milliseconds.
const FEB_1: i64 = 1_769_940_000_000;

fn post(channel: &str, user: &str, at: i64, message: &str, replies: Value) -> Value {
    json!({"type": "post", "post": {"team": "looms", "channel": channel, "user": user,
        "message": message, "create_at": at, "replies": replies}})
}

/// An export's lines: Ada and Grace (in Kenning), Eve (not), a bot; a
/// public channel, a private one and a direct conversation.
fn export() -> Vec<Value> {
    vec![
        json!({"type": "version", "version": 1}),
        json!({"type": "team", "team": {"name": "looms", "display_name": "Looms", "type": "O"}}),
        json!({"type": "channel", "channel": {"team": "looms", "name": "engines", "type": "O"}}),
        json!({"type": "channel", "channel": {"team": "looms", "name": "secret-plans", "type": "P"}}),
        json!({"type": "user", "user": {"username": "ada", "email": "ada@example.com"}}),
        json!({"type": "user", "user": {"username": "grace", "email": "grace@example.com"}}),
        json!({"type": "user", "user": {"username": "eve", "email": "eve@elsewhere.example"}}),
        json!({"type": "bot", "bot": {"username": "ci", "display_name": "CI", "owner": "ada"}}),
        post(
            "engines",
            "ada",
            FEB_1,
            "Computed Bernoulli numbers on the analytical engine :tada:",
            Value::Null,
        ),
        post(
            "engines",
            "eve",
            FEB_1 + 60_000,
            "How do compilers read record layouts?",
            json!([
                {"user": "grace", "message": "COBOL compilers read record layouts from the data division", "create_at": FEB_1 + 120_000},
                {"user": "ada", "message": "thanks!", "create_at": FEB_1 + 150_000},
                {"user": "grace", "message": "Each COBOL record layout becomes a structure", "create_at": FEB_1 + 180_000}
            ]),
        ),
        post(
            "engines",
            "ci",
            FEB_1 + 240_000,
            "Deployed build 42 to production",
            Value::Null,
        ),
        json!({"type": "post", "post": {"team": "looms", "channel": "engines", "user": "grace",
            "type": "system_join_channel", "message": "grace joined the channel.", "create_at": FEB_1 + 300_000}}),
        post(
            "secret-plans",
            "grace",
            FEB_1 + 360_000,
            "Jacquard loom patterns for the secret project",
            Value::Null,
        ),
        json!({"type": "direct_channel", "direct_channel": {"members": ["ada", "grace"]}}),
        json!({"type": "direct_post", "direct_post": {"channel_members": ["ada", "grace"], "user": "ada",
            "message": "Gear trains need oiling every week", "create_at": FEB_1 + 420_000}}),
    ]
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn threads_teach_their_people_and_private_and_direct_ones_only_when_named() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let file = connected.scratch.0.join("export.jsonl");
    std::fs::write(&file, jsonl(&export())).unwrap();

    let run = connected.connect(&["mattermost", arg(&file), "--report"]);
    let text = said(&run);
    assert!(run.status.success(), "{text}");
    // Ada's post, Grace's replies in Eve's thread; Eve is nobody Kenning
    // knows.
    assert_eq!(count(&run, "sent"), 2, "{text}");
    assert_eq!(count(&run, "not found"), 1, "{text}");
    for line in [
        "export.jsonl (public channels): read 8,",
        "not found: eve (1 uploads not sent)",
        "skipped (bot): 1",
        "skipped (join or leave): 1",
        "skipped (one-word message): 1",
        "skipped (private channel (read with --include-private)): 1",
        "skipped (direct message (read with --include-direct)): 1",
    ] {
        assert!(text.contains(line), "no `{line}` in {text}");
    }
    assert_eq!(
        connected.expert("Bernoulli numbers").as_deref(),
        Some("ada@example.com")
    );
    assert_eq!(
        connected.expert("COBOL record layouts").as_deref(),
        Some("grace@example.com")
    );
    assert_eq!(connected.expert("Jacquard loom patterns"), None);
    assert_eq!(connected.expert("oiling gear trains"), None);

    let again = connected.connect(&["mattermost", arg(&file)]);
    assert!(again.status.success(), "{}", said(&again));
    assert_eq!(count(&again, "read"), 0, "{}", said(&again));

    // The export grew: only its new line is read.
    let mut lines = export();
    lines.push(post(
        "engines",
        "grace",
        FEB_1 + 86_400_000,
        "A nanosecond is a wire a foot long",
        Value::Null,
    ));
    std::fs::write(&file, jsonl(&lines)).unwrap();
    let newer = connected.connect(&["mattermost", arg(&file)]);
    assert_eq!(count(&newer, "read"), 1, "{}", said(&newer));
    assert_eq!(count(&newer, "sent"), 1);

    let all = connected.connect(&[
        "mattermost",
        arg(&file),
        "--include-private",
        "--include-direct",
    ]);
    let text = said(&all);
    assert!(all.status.success(), "{text}");
    assert_eq!(count(&all, "sent"), 2, "{text}");
    assert_eq!(count(&all, "already known"), 3, "{text}");
    assert_eq!(
        connected.expert("Jacquard loom patterns").as_deref(),
        Some("grace@example.com")
    );
    assert_eq!(
        connected.expert("oiling gear trains").as_deref(),
        Some("ada@example.com")
    );

    // Without its cursor, a run costs time, never a second lesson.
    std::fs::remove_dir_all(connected.scratch.0.join("cursors")).unwrap();
    let lost = connected.connect(&["mattermost", arg(&file)]);
    assert_eq!(count(&lost, "sent"), 0, "{}", said(&lost));
    assert_eq!(count(&lost, "already known"), 3);
}

#[test]
fn keeps_the_source_contract() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let mut lines = export()[..5].to_vec();
    // 300 posts, one a minute from 2026-02-01T10:01:00Z.
    for n in 1..=300_i64 {
        lines.push(post(
            "engines",
            "ada",
            FEB_1 + n * 60_000,
            &format!("Tune difference engine gear train {n}"),
            Value::Null,
        ));
    }
    let file = connected.scratch.0.join("long.jsonl");
    std::fs::write(&file, jsonl(&lines)).unwrap();
    let mut bad = jsonl(&export()[..5]);
    bad.push_str("not json\n");
    let bad_file = connected.scratch.0.join("bad.jsonl");
    std::fs::write(&bad_file, bad).unwrap();
    let fixture = Fixture {
        args: vec!["mattermost".to_owned(), arg(&file).to_owned()],
        items: 300,
        window: ("2026-02-01T10:01:00Z", "2026-02-01T10:10:00Z", 10),
        bad: Some((
            vec!["mattermost".to_owned(), arg(&bad_file).to_owned()],
            "bad.jsonl line 6",
        )),
    };
    contract::holds(&connected, &fixture);
}

#[test]
fn a_malformed_line_is_named_and_passed_and_what_is_no_export_is_refused() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let mut text = jsonl(&export());
    // Line 9, Ada's post, cut in the middle.
    let lines: Vec<&str> = text.lines().collect();
    let broken = format!(
        "{}\n{}\n{}\n",
        lines[..8].join("\n"),
        &lines[8][..40],
        lines[9..].join("\n")
    );
    text = broken;
    let file = connected.scratch.0.join("broken.jsonl");
    std::fs::write(&file, &text).unwrap();
    let run = connected.connect(&["mattermost", arg(&file)]);
    let said_ = said(&run);
    assert!(!run.status.success(), "{said_}");
    assert!(
        said_.contains("broken.jsonl line 9: not a line of a Mattermost export"),
        "{said_}"
    );
    // The run went on: Grace's thread was sent.
    assert_eq!(count(&run, "sent"), 1, "{said_}");
    assert!(said_.contains("refused Unreadable: 1"), "{said_}");

    let users = connected.scratch.0.join("users.jsonl");
    std::fs::write(&users, jsonl(&export()[4..6])).unwrap();
    let refused = connected.connect(&["mattermost", arg(&users)]);
    let text = said(&refused);
    assert!(!refused.status.success());
    assert!(
        text.contains("users.jsonl: not a Mattermost bulk export: line 1"),
        "{text}"
    );

    // `mmctl export download` gives a zip: its .jsonl is read in place.
    let zipped = connected.scratch.0.join("export.zip");
    let mut writer = ZipWriter::new(std::fs::File::create(&zipped).unwrap());
    let options = SimpleFileOptions::default();
    writer.start_file("data/attachment.txt", options).unwrap();
    writer.write_all(b"an attachment").unwrap();
    writer.start_file("import.jsonl", options).unwrap();
    writer.write_all(jsonl(&export()).as_bytes()).unwrap();
    writer.finish().unwrap();
    let run = connected.connect(&["mattermost", arg(&zipped)]);
    let text = said(&run);
    assert!(run.status.success(), "{text}");
    assert_eq!(count(&run, "already known"), 1, "{text}");
    assert_eq!(count(&run, "sent"), 1, "{text}");

    let bytes = std::fs::read(&zipped).unwrap();
    let truncated = connected.scratch.0.join("truncated.zip");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let refused = connected.connect(&["mattermost", arg(&truncated)]);
    let text = said(&refused);
    assert!(!refused.status.success());
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("truncated.zip: not a zip file Kenning can read"),
        "{text}"
    );
}

#[test]
fn a_real_export_is_read() {
    let connected = Connected::with_people(&["harry@zulip.com", "ron@zulip.com"]);
    let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/connect/samples/mattermost-export.jsonl");
    let run = connected.connect(&["mattermost", arg(&sample), "--report"]);
    let text = said(&run);
    assert!(run.status.success(), "{text}");
    assert_eq!(count(&run, "sent"), 6, "{text}");
    for line in [
        "not found: malfoy (1 uploads not sent)",
        "skipped (join or leave): 6",
        "skipped (one-word message): 2",
        "skipped (private channel (read with --include-private)): 5",
    ] {
        assert!(text.contains(line), "no `{line}` in {text}");
    }
    assert_eq!(
        connected.expert("empty channel").as_deref(),
        Some("harry@zulip.com")
    );
    assert_eq!(connected.expert("weather"), None);

    let private = connected.connect(&["mattermost", arg(&sample), "--include-private"]);
    let text = said(&private);
    assert!(private.status.success(), "{text}");
    assert_eq!(count(&private, "sent"), 2, "{text}");
    assert_eq!(
        connected.expert("weather").as_deref(),
        Some("ron@zulip.com")
    );
}
