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
    assert!(store.sources(0, 10).unwrap().sources.is_empty());
    let first = run("git", "/srv/git/a.git", 10, 0);
    // Recorded later, though its moments are earlier: the order of
    // recording decides which is last.
    let second = run("git", "/srv/git/a.git", 30, -60);
    let mail = run("mail", "/var/mail/ada.mbox", 7, 5);
    let other_kind = run("chat", "/srv/git/a.git", 1, 6);
    for r in [&first, &mail, &second, &other_kind] {
        store.record_run(r, RunReport::KEPT).unwrap();
    }
    let page = store.sources(0, 10).unwrap();
    assert_eq!(page.total, 3);
    let sources = page.sources;
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
    // Paged in the same order, each page counting them all.
    let paged = store.sources(1, 1).unwrap();
    assert_eq!(paged.total, 3);
    assert_eq!(paged.sources, sources[1..2]);
    assert!(store.sources(3, 10).unwrap().sources.is_empty());
}

/// A source is reported by the key of its newest run; a key's sources
/// are counted whatever their kind.
#[contract_check]
fn a_source_names_the_key_of_its_last_run_and_a_key_counts_its_sources(store: Arc<impl Store>) {
    let first = run("git", "/srv/git/a.git", 1, 0);
    let key = first.credential_id;
    assert_eq!(store.sources_reported_by(key).unwrap(), 0);
    assert_eq!(
        store
            .reporter_of(&kind("git"), &named("/srv/git/a.git"))
            .unwrap(),
        None
    );
    store.record_run(&first, RunReport::KEPT).unwrap();
    for (source, name, minute) in [("git", "/srv/git/a.git", 1), ("mail", "/srv/git/a.git", 2)] {
        let mut again = run(source, name, 1, minute);
        again.credential_id = key;
        store.record_run(&again, RunReport::KEPT).unwrap();
    }
    assert_eq!(store.sources_reported_by(key).unwrap(), 2);
    let taken = run("git", "/srv/git/a.git", 1, 3);
    store.record_run(&taken, RunReport::KEPT).unwrap();
    assert_eq!(
        store
            .reporter_of(&kind("git"), &named("/srv/git/a.git"))
            .unwrap(),
        Some(taken.credential_id)
    );
    assert_eq!(store.sources_reported_by(taken.credential_id).unwrap(), 1);
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
    let sources = store.sources(0, 10).unwrap().sources;
    assert_eq!(sources[0].runs, 3);
    assert_eq!(sources[0].totals.read, 3 + 4 + 5);
    assert_eq!(sources[0].since, recorded[2].received);
}
