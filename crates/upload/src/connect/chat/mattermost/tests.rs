use std::path::PathBuf;

use super::*;
use crate::connect::source::{Descriptor, Item};

const EXPORT: &str = r#"{"type":"version","version":1}
{"type":"team","team":{"name":"looms","display_name":"Looms","type":"O"}}
{"type":"channel","channel":{"team":"looms","name":"cards","display_name":"Cards","type":"O"}}
{"type":"channel","channel":{"team":"looms","name":"plans","display_name":"Plans","type":"P"}}
{"type":"user","user":{"username":"ada","email":"ada@example.com"}}
{"type":"user","user":{"username":"grace","email":"grace@example.com"}}
{"type":"bot","bot":{"username":"ci","display_name":"CI","owner":"ada"}}
{"type":"post","post":{"team":"looms","channel":"cards","user":"ada","message":"How do looms read punched cards? :thinking:","create_at":1706700100000,"replies":[{"user":"grace","message":"Hooks drop through the holes","create_at":1706700200000},{"user":"grace","message":"and lift the warp threads","create_at":1706700300000},{"user":"ada","message":"thanks!","create_at":1706700400000}]}}
{"type":"post","post":{"team":"looms","channel":"cards","user":"ci","message":"Build 42 passed on main","create_at":1706700500000}}
{"type":"post","post":{"team":"looms","channel":"cards","user":"grace","message":"grace joined the channel.","create_at":1706700600000}}
{"type":"post","post":{"team":"looms","channel":"cards","user":"grace","type":"system_header_change","message":"grace updated the channel header","create_at":1706700700000}}
{"type":"post","post":{"team":"looms","channel":"cards","user":"ada","message":"Alerts from the webhook","props":{"from_webhook":"true"},"create_at":1706700800000}}
{"type":"post","post":{"team":"looms","channel":"plans",
{"type":"post","post":{"team":"looms","channel":"plans","user":"ada","message":"Secret plans for the loom","create_at":1706700900000}}
{"type":"direct_channel","direct_channel":{"members":["grace","ada"]}}
{"type":"direct_post","direct_post":{"channel_members":["grace","ada"],"user":"grace","message":"Directly about the loom","create_at":1706701000000}}
"#;

/// An export file, removed when dropped.
struct ExportFile(PathBuf);

impl ExportFile {
    fn new(name: &str, content: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "kenning-mattermost-{name}-{}.jsonl",
            std::process::id()
        ));
        std::fs::write(&path, content).unwrap();
        Self(path)
    }
}

impl Drop for ExportFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
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

fn position(found: &Found) -> Option<String> {
    found.position().map(str::to_owned)
}

#[test]
fn a_thread_teaches_each_person_their_own_messages() {
    let file = ExportFile::new("read", EXPORT);
    let mut export = Export::open(&file.0, Scope::default()).unwrap();
    assert!(export.name().ends_with(".jsonl (public channels)"));
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
                "ada",
                "looms/cards the thread 1706700100000 ada 1706700100000",
                vec![
                    ("How do looms read punched cards?", Descriptor::Default),
                    ("cards", Descriptor::Secondary)
                ]
            ),
            (
                "grace",
                "looms/cards the thread 1706700100000 grace 1706700300000",
                vec![
                    (
                        "Hooks drop through the holes\nand lift the warp threads",
                        Descriptor::Default
                    ),
                    ("How do looms read punched cards?", Descriptor::Secondary),
                    ("cards", Descriptor::Secondary)
                ]
            ),
        ]
    );
    assert_eq!(
        items(&founds)[1].actions[0].0.email.as_deref(),
        Some("grace@example.com")
    );
    let skipped: Vec<&str> = founds
        .iter()
        .filter_map(|found| match found {
            Found::Skipped { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        skipped,
        [
            reason::ONE_WORD,
            reason::BOT,
            reason::JOIN_OR_LEAVE,
            reason::CHANNEL_CHANGE,
            reason::BOT,
            reason::PRIVATE,
            reason::DIRECT,
        ]
    );
    let bad: Vec<String> = founds
        .iter()
        .filter_map(|found| match found {
            Found::Bad {
                origin, problem, ..
            } => Some(format!("{origin}: {problem}")),
            _ => None,
        })
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].contains(".jsonl line 13: not a line of a Mattermost export"),
        "{bad:?}"
    );
    // Every line that gave something moves the cursor past it, the bad
    // one too.
    assert!(founds
        .iter()
        .filter_map(position)
        .any(|p| p.starts_with("line 13 ")));
}

#[test]
fn private_channels_and_direct_messages_are_read_only_when_named() {
    let file = ExportFile::new("scope", EXPORT);
    let scope = Scope {
        private: true,
        direct: true,
    };
    let mut export = Export::open(&file.0, scope).unwrap();
    let founds = read(&mut export, None);
    let ids: Vec<&str> = items(&founds).iter().map(|i| i.id.as_str()).collect();
    assert!(
        ids.contains(&"looms/plans the thread 1706700900000 ada 1706700900000"),
        "{ids:?}"
    );
    assert!(
        ids.contains(&"direct ada,grace the thread 1706701000000 grace 1706701000000"),
        "{ids:?}"
    );
}

#[test]
fn a_run_resumes_after_its_line_unless_the_export_changed() {
    let file = ExportFile::new("cursor", EXPORT);
    let mut export = Export::open(&file.0, Scope::default()).unwrap();
    let all = read(&mut export, None);
    let last = all.iter().rev().find_map(position).unwrap();
    assert!(last.starts_with("line 16 "), "{last}");
    assert!(read(&mut export, Some(&last)).is_empty());

    let after_thread = position(&all[2]).unwrap();
    assert!(after_thread.starts_with("line 8 "), "{after_thread}");
    let rest = read(&mut export, Some(&after_thread));
    assert!(items(&rest).is_empty());
    assert_eq!(rest.len(), all.len() - 3);

    // Another export at the same path: read from its beginning.
    std::fs::write(&file.0, EXPORT.replace("Hooks drop", "Hooks fall")).unwrap();
    let again = read(&mut export, Some(&after_thread));
    assert_eq!(again.len(), all.len());
}

#[test]
fn what_is_not_an_export_is_refused_in_one_line() {
    let file = ExportFile::new("not", "{\"type\":\"user\"}\n");
    let mut export = Export::open(&file.0, Scope::default()).unwrap();
    let refused = export
        .read(None, &Window::default(), &mut |_| true)
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("not a Mattermost bulk export: line 1"),
        "{refused}"
    );
    assert!(is_old_system_message("ron", "ron joined the channel."));
    assert!(is_old_system_message(
        "harry",
        "ron added to the channel by harry."
    ));
    assert!(!is_old_system_message(
        "ron",
        "ron joined the team on Monday."
    ));
    assert_eq!(line_kind(br#"{"type":"direct_post","x":1}"#), "direct_post");
}
