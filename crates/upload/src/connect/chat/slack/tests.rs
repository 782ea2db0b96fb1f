use std::path::PathBuf;

use super::*;
use crate::connect::source::{Descriptor, Item};

/// An export folder, as Slack's zip unzips, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("kenning-slack-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let folder = Self(dir);
        folder.write(
            "users.json",
            r#"[{"id": "U1", "team_id": "T1", "name": "ada", "profile": {"email": "ada@example.com"}},
                {"id": "U2", "team_id": "T1", "name": "grace", "profile": {"email": ""}},
                {"id": "U3", "team_id": "T1", "name": "deploybot", "is_bot": true, "profile": {}}]"#,
        );
        folder.write("channels.json", r#"[{"id": "C1", "name": "engines"}]"#);
        folder.write("groups.json", r#"[{"id": "G1", "name": "secret-plans"}]"#);
        folder.write("dms.json", r#"[{"id": "D1", "members": ["U1", "U2"]}]"#);
        folder.write(
            "engines/2024-01-31.json",
            r#"[
            {"type": "message", "subtype": "channel_join", "user": "U1", "text": "<@U1> has joined the channel", "ts": "1706700000.000001"},
            {"type": "message", "user": "U1", "text": "Punched cards drive the <#C1> loom :tada:", "ts": "1706700000.000100"},
            {"type": "message", "user": "U1", "text": "How do looms read <https://example.com/cards|punched cards>?", "ts": "1706700100.000100", "thread_ts": "1706700100.000100", "reply_count": 2},
            {"type": "message", "user": "U2", "text": "Hooks drop through the holes in each card", "ts": "1706700200.000100", "thread_ts": "1706700100.000100", "parent_user_id": "U1"},
            {"type": "message", "user": "U2", "text": "thanks!", "ts": "1706700300.000100", "thread_ts": "1706700100.000100"},
            {"type": "message", "user": "U3", "text": "Deployed build 42 to production", "ts": "1706700400.000100"},
            {"type": "message", "subtype": "bot_message", "bot_id": "B1", "text": "CI passed on the main branch", "ts": "1706700500.000100"},
            {"type": "message", "user": "USLACKBOT", "text": "Reminder: water the plants", "ts": "1706700550.000100"},
            {"type": "message", "subtype": "channel_topic", "user": "U1", "text": "set the channel topic: looms", "ts": "1706700600.000100"},
            {"type": "message", "user": "U1", "text": "two words", "ts": "not a time"},
            {"type": "message", "user": "U1", "bot_id": null, "text": "Stored the cards for <@U2>", "ts": "1706700700.000100"}
        ]"#,
        );
        folder.write(
            "engines/2024-02-01.json",
            r#"[{"type": "message", "user": "U2", "text": "and lift the warp threads", "ts": "1706790000.000100", "thread_ts": "1706700100.000100"}]"#,
        );
        folder.write("engines/2024-02-02.json", "[{\"type\": \"message\"");
        folder.write(
            "secret-plans/2024-01-31.json",
            r#"[{"type": "message", "user": "U1", "text": "Secret plans for the loom", "ts": "1706700000.000200"}]"#,
        );
        folder.write(
            "D1/2024-01-31.json",
            r#"[{"type": "message", "user": "U2", "text": "Directly about the loom", "ts": "1706700000.000300"}]"#,
        );
        folder
    }

    fn write(&self, name: &str, content: &str) {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn read(export: &mut Export, cursor: Option<&str>) -> Vec<Found> {
    let mut founds = Vec::new();
    export
        .read(cursor, &Window::default(), &mut |found| {
            founds.push(found);
            true
        })
        .unwrap();
    founds
}

/// An item's person, id, and texts with their weights.
type Summary<'a> = (&'a str, &'a str, Vec<(&'a str, Descriptor)>);

fn items(founds: &[Found]) -> Vec<&Item> {
    founds
        .iter()
        .filter_map(|found| match found {
            Found::Item(item) => Some(item),
            _ => None,
        })
        .collect()
}

fn skipped(founds: &[Found]) -> Vec<&'static str> {
    founds
        .iter()
        .filter_map(|found| match found {
            Found::Skipped { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

fn last_position(founds: &[Found]) -> String {
    founds.last().unwrap().position().unwrap().to_owned()
}

#[test]
fn messages_teach_their_authors_a_thread_or_a_day_at_a_time() {
    let folder = Folder::new("read");
    let mut export = Export::open(&folder.0, Scope::default()).unwrap();
    assert_eq!(export.name(), "workspace T1 (public channels)");
    let founds = read(&mut export, None);
    let read: Vec<Summary<'_>> = items(&founds)
        .into_iter()
        .map(|item| {
            let texts = item
                .texts
                .iter()
                .map(|t| (t.text.as_str(), t.descriptor))
                .collect();
            (item.actions[0].0.key.as_str(), item.id.as_str(), texts)
        })
        .collect();
    assert_eq!(
        read,
        [
            (
                "U1",
                "C1 the day 2024-01-31 U1 1706700700.000100",
                vec![
                    (
                        "Punched cards drive the #engines loom\nStored the cards for @grace",
                        Descriptor::Default
                    ),
                    ("engines", Descriptor::Secondary)
                ]
            ),
            (
                "U1",
                "C1 the thread 1706700100.000100 U1 1706700100.000100",
                vec![
                    ("How do looms read punched cards?", Descriptor::Default),
                    ("engines", Descriptor::Secondary)
                ]
            ),
            (
                "U2",
                "C1 the thread 1706700100.000100 U2 1706700200.000100",
                vec![
                    (
                        "Hooks drop through the holes in each card",
                        Descriptor::Default
                    ),
                    ("How do looms read punched cards?", Descriptor::Secondary),
                    ("engines", Descriptor::Secondary)
                ]
            ),
            (
                "U2",
                "C1 the thread 1706700100.000100 U2 1706790000.000100",
                vec![
                    ("and lift the warp threads", Descriptor::Default),
                    ("How do looms read punched cards?", Descriptor::Secondary),
                    ("engines", Descriptor::Secondary)
                ]
            ),
        ]
    );
    let people: Vec<&Identity> = items(&founds).iter().map(|i| &i.actions[0].0).collect();
    assert_eq!(people[0].email.as_deref(), Some("ada@example.com"));
    assert_eq!(people[2].email, None, "a blank address is none");
    assert_eq!(
        skipped(&founds),
        [
            reason::DIRECT,
            reason::JOIN_OR_LEAVE,
            reason::ONE_WORD,
            reason::BOT,
            reason::BOT,
            reason::BOT,
            reason::CHANNEL_CHANGE,
            reason::PRIVATE,
        ]
    );
    let bad: Vec<(&str, &str)> = founds
        .iter()
        .filter_map(|found| match found {
            Found::Bad {
                origin, problem, ..
            } => Some((origin.as_str(), problem.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(
        bad[0].0.ends_with("engines/2024-01-31.json message 10") && bad[0].1.contains("not a time"),
        "{bad:?}"
    );
    assert!(
        bad[1].0.ends_with("engines/2024-02-02.json")
            && bad[1].1.starts_with("not a JSON array of messages"),
        "{bad:?}"
    );
}

#[test]
fn private_channels_and_direct_messages_are_read_only_when_named() {
    let folder = Folder::new("scope");
    let everything = Scope {
        private: true,
        direct: true,
    };
    let mut export = Export::open(&folder.0, everything).unwrap();
    assert_eq!(
        export.name(),
        "workspace T1 (public and private channels and direct messages)"
    );
    let founds = read(&mut export, None);
    let texts: Vec<&str> = items(&founds)
        .iter()
        .map(|item| item.texts[0].text.as_str())
        .collect();
    assert!(texts.contains(&"Secret plans for the loom"), "{texts:?}");
    assert!(texts.contains(&"Directly about the loom"), "{texts:?}");
    let mut private = Export::open(
        &folder.0,
        Scope {
            private: true,
            direct: false,
        },
    )
    .unwrap();
    let founds = read(&mut private, None);
    let texts: Vec<&str> = items(&founds)
        .iter()
        .map(|item| item.texts[0].text.as_str())
        .collect();
    assert!(texts.contains(&"Secret plans for the loom"), "{texts:?}");
    assert!(!texts.contains(&"Directly about the loom"), "{texts:?}");
}

#[test]
fn a_channels_name_says_what_its_messages_are_about_except_the_general_channel() {
    let folder = Folder::new("subject");
    folder.write(
        "channels.json",
        r#"[{"id": "C1", "name": "engines"}, {"id": "C2", "name": "lobby", "is_general": true}]"#,
    );
    folder.write(
        "lobby/2024-01-31.json",
        r#"[{"type": "message", "user": "U1", "text": "Welcome to the loom works", "ts": "1706700000.000400"}]"#,
    );
    let mut export = Export::open(&folder.0, Scope::default()).unwrap();
    let founds = read(&mut export, None);
    let subjects = |text: &str| -> Vec<String> {
        let item = items(&founds)
            .into_iter()
            .find(|item| item.texts[0].text == text)
            .unwrap_or_else(|| panic!("no item says {text:?}"));
        item.texts[1..]
            .iter()
            .filter(|t| t.descriptor == Descriptor::Secondary)
            .map(|t| t.text.clone())
            .collect()
    };
    assert_eq!(subjects("Welcome to the loom works"), Vec::<String>::new());
    assert_eq!(
        subjects("How do looms read punched cards?"),
        ["engines".to_owned()]
    );
}

#[test]
fn a_run_resumes_after_its_cursor_and_reads_a_grown_day_again() {
    let folder = Folder::new("cursor");
    let mut export = Export::open(&folder.0, Scope::default()).unwrap();
    let all = read(&mut export, None);
    assert!(read(&mut export, Some(&last_position(&all))).is_empty());

    // Past the last file of 31 January, the run goes on with 1 February.
    let end_of_31 = all
        .iter()
        .rev()
        .find_map(|found| match found {
            Found::Skipped {
                position: Some(position),
                ..
            } if position.starts_with("2024-01-31 secret-plans") => Some(position.clone()),
            _ => None,
        })
        .unwrap();
    let rest = read(&mut export, Some(&end_of_31));
    assert_eq!(items(&rest).len(), 1);
    assert_eq!(items(&rest)[0].texts[0].text, "and lift the warp threads");

    // A newer export holds more of 31 January: that day is read again,
    // and the grown day's item is a new one.
    folder.write(
        "engines/2024-01-31.json",
        r#"[{"type": "message", "user": "U1", "text": "Punched cards drive the <#C1> loom", "ts": "1706700000.000100"},
            {"type": "message", "user": "U1", "text": "Stored the cards for <@U2>", "ts": "1706700700.000100"},
            {"type": "message", "user": "U1", "text": "Oiled the loom in the evening", "ts": "1706740000.000100"}]"#,
    );
    let again = read(&mut export, Some(&end_of_31));
    let ids: Vec<&str> = items(&again).iter().map(|i| i.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "C1 the day 2024-01-31 U1 1706740000.000100",
            "C1 the thread 1706700100.000100 U2 1706790000.000100"
        ]
    );
}

#[test]
fn a_folder_without_channels_json_is_no_export_and_slack_times_read_as_moments() {
    let folder = Folder::new("none");
    std::fs::remove_file(folder.0.join("channels.json")).unwrap();
    let refused = Export::open(&folder.0, Scope::default()).unwrap_err();
    assert!(
        refused.to_string().contains("not a Slack export"),
        "{refused}"
    );
    assert_eq!(
        slack_time("1706700100.000100").map(|t| t.to_rfc3339()),
        Some("2024-01-31T11:21:40.000100+00:00".to_owned())
    );
    assert_eq!(
        slack_time("1706700100").map(|t| t.timestamp()),
        Some(1_706_700_100)
    );
    assert_eq!(slack_time("soon"), None);
    assert_eq!(event("channel_leave"), reason::JOIN_OR_LEAVE);
    assert_eq!(event("pinned_item"), reason::EVENT);
}
