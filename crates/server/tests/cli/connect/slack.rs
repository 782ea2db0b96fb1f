//! `kenning connect slack` on workspace exports the tests zip with the
//! `zip` crate, and on a real one (`samples/slack-export.zip`).

use std::io::Write as _;
use std::path::Path;
use std::process::Output;

use serde_json::json;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::contract::{self, Fixture};
use super::{count, Connected};

/// Writes a zip at `path` of `files` (name, content), deflated as Slack's is.
fn zip(path: &Path, files: &[(String, String)]) {
    let mut writer = ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, content) in files {
        writer.start_file(name.as_str(), options).unwrap();
        writer.write_all(content.as_bytes()).unwrap();
    }
    writer.finish().unwrap();
}

/// A message of `user` at `ts` (seconds) saying `text`, in `thread` if given.
fn message(user: &str, ts: u64, text: &str, thread: Option<u64>) -> serde_json::Value {
    let mut message = json!({
        "type": "message", "user": user, "text": text, "ts": format!("{ts}.000100"),
    });
    if let Some(thread) = thread {
        message["thread_ts"] = json!(format!("{thread}.000100"));
    }
    message
}

/// 1 February 2026, 10:00 UTC.
const FEB_1: u64 = 1_769_940_000;
/// A day.
const DAY: u64 = 86_400;

/// A workspace's export: Ada and Grace (in Kenning), Eve (not), a bot;
/// a public channel, a private one and a direct conversation.
fn export(extra: &[(String, String)]) -> Vec<(String, String)> {
    let users = json!([
        {"id": "U1", "team_id": "T9", "name": "ada", "real_name": "Ada Lovelace",
         "profile": {"email": "ada@example.com"}},
        {"id": "U2", "team_id": "T9", "name": "grace", "profile": {"email": "grace@example.com"}},
        {"id": "U3", "team_id": "T9", "name": "eve", "profile": {"email": "eve@elsewhere.example"}},
        {"id": "U4", "team_id": "T9", "name": "deploys", "is_bot": true, "profile": {}}
    ]);
    let engines = json!([
        {"type": "message", "subtype": "channel_join", "user": "U2",
         "text": "<@U2> has joined the channel", "ts": format!("{}.000001", FEB_1)},
        message("U1", FEB_1 + 60, "Computed Bernoulli numbers on the <#C1> analytical engine", None),
        message("U3", FEB_1 + 120, "How do compilers read record layouts?", Some(FEB_1 + 120)),
        message("U2", FEB_1 + 180, "COBOL compilers read record layouts from the data division", Some(FEB_1 + 120)),
        message("U1", FEB_1 + 200, "thanks :tada:", Some(FEB_1 + 120)),
        message("U2", FEB_1 + 240, "Each COBOL record layout becomes a structure", Some(FEB_1 + 120)),
        message("U4", FEB_1 + 300, "Deployed build 42 to production", None),
        {"type": "message", "subtype": "bot_message", "bot_id": "B1",
         "text": "CI passed on main", "ts": format!("{}.000100", FEB_1 + 360)},
        message("U1", FEB_1 + 420, "The analytical engine keeps Bernoulli numbers on punched cards, see <https://example.com/notes|my notes>", None),
    ]);
    let mut files = vec![
        ("users.json".to_owned(), users.to_string()),
        (
            "channels.json".to_owned(),
            json!([{"id": "C1", "name": "engines"}]).to_string(),
        ),
        (
            "groups.json".to_owned(),
            json!([{"id": "G1", "name": "secret-plans"}]).to_string(),
        ),
        (
            "dms.json".to_owned(),
            json!([{"id": "D1", "members": ["U1", "U2"]}]).to_string(),
        ),
        ("mpims.json".to_owned(), json!([]).to_string()),
        ("engines/2026-02-01.json".to_owned(), engines.to_string()),
        (
            "secret-plans/2026-02-01.json".to_owned(),
            json!([message(
                "U2",
                FEB_1 + 500,
                "Jacquard loom patterns for the secret project",
                None
            )])
            .to_string(),
        ),
        (
            "D1/2026-02-01.json".to_owned(),
            json!([message(
                "U1",
                FEB_1 + 600,
                "Gear trains need oiling every week",
                None
            )])
            .to_string(),
        ),
    ];
    files.extend_from_slice(extra);
    files
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn messages_teach_their_authors_and_private_and_direct_ones_only_when_named() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let first = connected.scratch.0.join("slack-2026-02-01.zip");
    zip(&first, &export(&[]));

    let run = connected.connect(&["slack", arg(&first), "--report"]);
    let text = said(&run);
    assert!(run.status.success(), "{text}");
    // Ada's day in #engines, Grace's messages in Eve's thread; Eve is
    // nobody Kenning knows.
    assert_eq!(count(&run, "sent"), 2, "{text}");
    assert_eq!(count(&run, "not found"), 1, "{text}");
    for line in [
        "not found: U3 \"eve\" (1 uploads not sent)",
        "skipped (bot): 2",
        "skipped (join or leave): 1",
        "skipped (one-word message): 1",
        "skipped (private channel (read with --include-private)): 1",
        "skipped (direct message (read with --include-direct)): 1",
        "slack workspace T9 (public channels): read 9,",
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

    let again = connected.connect(&["slack", arg(&first)]);
    assert!(again.status.success(), "{}", said(&again));
    assert_eq!(count(&again, "read"), 0, "{}", said(&again));
    assert_eq!(count(&again, "sent"), 0);

    // A later export, in a file of its own: the workspace's cursor reads
    // only its new day.
    let later = connected.scratch.0.join("slack-2026-02-03.zip");
    let nanoseconds = json!([message(
        "U2",
        FEB_1 + 2 * DAY,
        "A nanosecond is a wire a foot long",
        None
    )]);
    zip(
        &later,
        &export(&[(
            "engines/2026-02-03.json".to_owned(),
            nanoseconds.to_string(),
        )]),
    );
    let newer = connected.connect(&["slack", arg(&later)]);
    assert_eq!(count(&newer, "read"), 1, "{}", said(&newer));
    assert_eq!(count(&newer, "sent"), 1);

    // Naming private channels and direct messages is another selection,
    // with a cursor of its own: what was sent is known, the rest is new.
    let all = connected.connect(&[
        "slack",
        arg(&later),
        "--include-private",
        "--include-direct",
    ]);
    let text = said(&all);
    assert!(all.status.success(), "{text}");
    assert!(
        text.contains("workspace T9 (public and private channels and direct messages)"),
        "{text}"
    );
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
    let lost = connected.connect(&["slack", arg(&later)]);
    assert_eq!(count(&lost, "sent"), 0, "{}", said(&lost));
    assert_eq!(count(&lost, "already known"), 3);
}

#[test]
fn keeps_the_source_contract() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let users = json!([{"id": "U1", "team_id": "T9", "profile": {"email": "ada@example.com"}}]);
    let mut files = vec![
        ("users.json".to_owned(), users.to_string()),
        (
            "channels.json".to_owned(),
            json!([{"id": "C1", "name": "engines"}]).to_string(),
        ),
    ];
    // 300 days of Ada's notes, a file each, from 2026-02-02.
    for n in 1..=300_u64 {
        let day = chrono::DateTime::from_timestamp((FEB_1 + n * DAY) as i64, 0)
            .unwrap()
            .format("%Y-%m-%d");
        let note = message(
            "U1",
            FEB_1 + n * DAY,
            &format!("Tune difference engine gear train {n}"),
            None,
        );
        files.push((format!("engines/{day}.json"), json!([note]).to_string()));
    }
    let path = connected.scratch.0.join("long.zip");
    zip(&path, &files);
    // A day after the others: the export's cursor is the workspace's.
    let later = chrono::DateTime::from_timestamp((FEB_1 + 301 * DAY) as i64, 0)
        .unwrap()
        .format("%Y-%m-%d");
    let damaged_day = format!("engines/{later}.json");
    let damaged = (damaged_day.clone(), "[{\"type\": \"message\",".to_owned());
    let bad = connected.scratch.0.join("bad.zip");
    zip(&bad, &[files[0].clone(), files[1].clone(), damaged]);
    let damaged_named = format!("bad.zip {damaged_day}: not a JSON array of messages");
    let fixture = Fixture {
        args: vec!["slack".to_owned(), arg(&path).to_owned()],
        items: 300,
        window: ("2026-02-02", "2026-02-11", 10),
        bad: Some((
            vec!["slack".to_owned(), arg(&bad).to_owned()],
            &damaged_named,
        )),
    };
    contract::holds(&connected, &fixture);
}

#[test]
fn bad_input_is_one_clear_error_and_a_bad_day_file_does_not_stop_the_run() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let good = connected.scratch.0.join("good.zip");
    zip(&good, &export(&[]));
    let bytes = std::fs::read(&good).unwrap();
    let truncated = connected.scratch.0.join("truncated.zip");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let refused = connected.connect(&["slack", arg(&truncated)]);
    assert!(!refused.status.success());
    let text = said(&refused);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("error: ")
            && text.contains("truncated.zip: not a zip file Kenning can read"),
        "{text}"
    );

    let not_slack = connected.scratch.0.join("not-slack.zip");
    zip(&not_slack, &[("notes.txt".to_owned(), "hello".to_owned())]);
    let refused = connected.connect(&["slack", arg(&not_slack)]);
    let text = said(&refused);
    assert!(!refused.status.success());
    assert!(
        text.contains("not-slack.zip: not a Slack export: it holds no channels.json"),
        "{text}"
    );

    let damaged = connected.scratch.0.join("damaged.zip");
    zip(
        &damaged,
        &export(&[(
            "engines/2026-02-02.json".to_owned(),
            "[{\"type\": \"message\", \"user\": \"U1\",".to_owned(),
        )]),
    );
    let run = connected.connect(&["slack", arg(&damaged)]);
    let text = said(&run);
    assert!(!run.status.success(), "{text}");
    assert!(
        text.contains("damaged.zip engines/2026-02-02.json: not a JSON array of messages"),
        "{text}"
    );
    assert_eq!(count(&run, "sent"), 2, "{text}");
    assert!(text.contains("refused Unreadable: 1"), "{text}");
}

#[test]
fn a_real_export_is_read() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/connect/samples/slack-export.zip");
    // Its people have no addresses: Hamza is Ada here.
    let identities = connected.scratch.0.join("identities.json");
    std::fs::write(&identities, r#"{"U0BMQB6JE": "ada@example.com"}"#).unwrap();
    let run = connected.connect(&["slack", arg(&sample), "--identities", arg(&identities)]);
    let text = said(&run);
    assert!(run.status.success(), "{text}");
    assert!(count(&run, "sent") > 5, "{text}");
    assert!(text.contains("skipped (bot): 94"), "{text}");
    assert!(text.contains("skipped (join or leave): 8"), "{text}");
    // "<@U0BMQB6JE>: <https://www.maxmind.com/...>": a link, no words.
    assert!(text.contains("skipped (only a link): "), "{text}");
    assert_eq!(
        connected.expert("metaheuristic").as_deref(),
        Some("ada@example.com")
    );
}
