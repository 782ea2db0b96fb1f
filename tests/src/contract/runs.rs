//! Connectors' runs, kept by every store alike: a run comes back as
//! recorded; a source's last run is the one recorded last, whatever its
//! moments; only the newest runs of a source are kept, and no other
//! source's are touched.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{RefusalCode, RunCounts, RunError, RunReport, SourceKind, SourceName};
use kenning_ports::StoredRun;
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{adapters, now, Store};

/// A run of `source`, `name` that read `read` items, received `minute`
/// minutes after [`now`] and started an hour before that.
fn run(source: &str, name: &str, read: u64, minute: i64) -> StoredRun {
    let received = now() + Duration::minutes(minute);
    StoredRun {
        id: Uuid::new_v4(),
        report: RunReport {
            source: SourceKind::parse(source).unwrap(),
            name: SourceName::parse(name).unwrap(),
            started: received - Duration::hours(1),
            finished: received - Duration::milliseconds(1_500),
            counts: RunCounts {
                read,
                sent: read / 2,
                known: 1,
                not_found: 2,
                failed: 0,
            },
            refused: BTreeMap::new(),
            dry_run: false,
            error: None,
        },
        credential_id: Uuid::new_v4(),
        credential_name: "nightly git".to_owned(),
        received,
    }
}

fn kind(source: &str) -> SourceKind {
    SourceKind::parse(source).unwrap()
}

fn named(name: &str) -> SourceName {
    SourceName::parse(name).unwrap()
}

#[contract_check]
fn a_run_comes_back_as_recorded(store: Arc<impl Store>) {
    let mut troubled = run("mail", "imap://mail.example.org/Sent", 40, 0);
    troubled.report.refused = BTreeMap::from([
        (RefusalCode::parse("c", "UnknownUser").unwrap(), 3),
        (
            RefusalCode::parse("c", "ValidationError").unwrap(),
            RunCounts::MAX,
        ),
    ]);
    troubled.report.error = Some(RunError::parse("login refused: wrong password").unwrap());
    troubled.report.dry_run = true;
    troubled.report.counts.failed = RunCounts::MAX;
    store.record_run(&troubled, RunReport::KEPT).unwrap();
    let plain = run("git", "/srv/git/kenning.git", 10, 1);
    store.record_run(&plain, RunReport::KEPT).unwrap();
    assert_eq!(
        store
            .runs_of(&kind("mail"), &named("imap://mail.example.org/Sent"), 10)
            .unwrap(),
        vec![troubled.clone()]
    );
    assert_eq!(
        store
            .runs_of(&kind("git"), &named("/srv/git/kenning.git"), 10)
            .unwrap(),
        vec![plain]
    );
    assert!(store
        .runs_of(&kind("git"), &named("/srv/git/other.git"), 10)
        .unwrap()
        .is_empty());
}

#[contract_check]
fn each_source_is_listed_once_with_its_last_run_and_its_totals(store: Arc<impl Store>) {
    assert!(store.sources().unwrap().is_empty());
    let first = run("git", "/srv/git/a.git", 10, 0);
    // Recorded later, though its moments are earlier: the order of
    // recording decides which is last.
    let second = run("git", "/srv/git/a.git", 30, -60);
    let mail = run("mail", "/var/mail/ada.mbox", 7, 5);
    let other_kind = run("chat", "/srv/git/a.git", 1, 6);
    for r in [&first, &mail, &second, &other_kind] {
        store.record_run(r, RunReport::KEPT).unwrap();
    }
    let sources = store.sources().unwrap();
    let listed: Vec<(&str, &str, Uuid)> = sources
        .iter()
        .map(|s| {
            (
                s.last.report.source.as_str(),
                s.last.report.name.as_str(),
                s.last.id,
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("chat", "/srv/git/a.git", other_kind.id),
            ("git", "/srv/git/a.git", second.id),
            ("mail", "/var/mail/ada.mbox", mail.id),
        ]
    );
    let git = &sources[1];
    assert_eq!(git.last, second);
    assert_eq!(git.runs, 2);
    assert_eq!(git.since, first.received.min(second.received));
    assert_eq!(
        git.totals,
        RunCounts {
            read: 40,
            sent: 20,
            known: 2,
            not_found: 4,
            failed: 0,
        }
    );
    assert_eq!(sources[2].runs, 1);
    assert_eq!(sources[2].totals, mail.report.counts);
}

#[contract_check]
fn only_the_newest_runs_of_a_source_are_kept(store: Arc<impl Store>) {
    let other = run("git", "/srv/git/b.git", 1, 0);
    store.record_run(&other, 3).unwrap();
    let mut recorded = Vec::new();
    for minute in 1..=5 {
        let mut r = run("git", "/srv/git/a.git", minute as u64, minute);
        r.report.refused = BTreeMap::from([(RefusalCode::parse("c", "UnknownUser").unwrap(), 1)]);
        store.record_run(&r, 3).unwrap();
        recorded.push(r);
    }
    let newest_first: Vec<StoredRun> = recorded.iter().rev().take(3).cloned().collect();
    assert_eq!(
        store
            .runs_of(&kind("git"), &named("/srv/git/a.git"), 10)
            .unwrap(),
        newest_first
    );
    assert_eq!(
        store
            .runs_of(&kind("git"), &named("/srv/git/a.git"), 2)
            .unwrap(),
        newest_first[..2]
    );
    assert_eq!(
        store
            .runs_of(&kind("git"), &named("/srv/git/b.git"), 10)
            .unwrap(),
        vec![other]
    );
    let sources = store.sources().unwrap();
    assert_eq!(sources[0].runs, 3);
    assert_eq!(sources[0].totals.read, 3 + 4 + 5);
    assert_eq!(sources[0].since, recorded[2].received);
}
