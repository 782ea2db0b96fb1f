use chrono::TimeZone;

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap()
}

fn s(v: &str) -> Raw<String> {
    Raw::Value(v.to_owned())
}

fn valid() -> RunInput {
    RunInput {
        source: s("git"),
        name: s("/srv/git/kenning.git"),
        started: s("2026-03-02T07:00:00Z"),
        finished: s("2026-03-02T08:01:30.500+01:00"),
        read: Raw::Value(120),
        sent: Raw::Value(100),
        known: Raw::Value(15),
        not_found: Raw::Value(3),
        refused: Raw::Value(vec![("UnknownUser".to_owned(), Raw::Value(2))]),
        failed: Raw::Value(0),
        dry_run: Raw::Value(false),
        error: Raw::Null,
        refused_fields: Vec::new(),
    }
}

fn problems(input: RunInput) -> Vec<String> {
    RunReport::parse(input, now())
        .unwrap_err()
        .violations()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_valid_report() {
    let report = RunReport::parse(valid(), now()).unwrap();
    assert_eq!(report.source.as_str(), "git");
    assert_eq!(report.name.as_str(), "/srv/git/kenning.git");
    assert_eq!(report.took(), Duration::milliseconds(90_500));
    assert_eq!(report.counts.read, 120);
    assert_eq!(
        report
            .refused
            .get(&RefusalCode::parse("code", "UnknownUser").unwrap()),
        Some(&2)
    );
    assert!(report.troubled(), "refusals need a look");
    let quiet = RunReport::parse(
        RunInput {
            refused: Raw::Missing,
            ..valid()
        },
        now(),
    )
    .unwrap();
    assert!(quiet.refused.is_empty());
    assert!(!quiet.troubled());
}

#[test]
fn finished_is_not_before_started() {
    assert_eq!(
        problems(RunInput {
            finished: s("2026-03-02T06:59:59Z"),
            ..valid()
        }),
        ["finished must not be before started"]
    );
}

#[test]
fn an_error_stops_a_run_and_a_blank_one_is_none() {
    let failed = RunReport::parse(
        RunInput {
            error: s("not a git repository: /srv/nothing"),
            refused: Raw::Null,
            ..valid()
        },
        now(),
    )
    .unwrap();
    assert_eq!(
        failed.error.as_ref().map(RunError::as_str),
        Some("not a git repository: /srv/nothing")
    );
    assert!(failed.troubled());
    let blank = RunReport::parse(
        RunInput {
            error: s("  "),
            ..valid()
        },
        now(),
    )
    .unwrap();
    assert_eq!(blank.error, None);
}

#[test]
fn counts_are_whole_numbers_from_zero_to_the_largest_exact_one() {
    let most = i128::from(RunCounts::MAX);
    let at_most = RunReport::parse(
        RunInput {
            read: Raw::Value(most),
            ..valid()
        },
        now(),
    )
    .unwrap();
    assert_eq!(at_most.counts.read, RunCounts::MAX);
    assert_eq!(
        problems(RunInput {
            read: Raw::Value(most + 1),
            sent: Raw::Value(-1),
            known: Raw::Refused("must be a whole number"),
            not_found: Raw::Missing,
            ..valid()
        }),
        [
            "read must be at most 9007199254740991",
            "sent must be at least 0",
            "known must be a whole number",
            "not_found is required and cannot be blank",
        ]
    );
    // The sums a database makes of a source's kept runs fit its integers.
    let kept = RunReport::KEPT as u64 + 1;
    assert!(kept
        .checked_mul(RunCounts::MAX)
        .is_some_and(|sum| sum <= i64::MAX as u64));
}

#[test]
fn every_bad_field_is_named_at_once() {
    let refused = (0..=RunReport::MAX_REFUSAL_CODES)
        .map(|i| (format!("code{i}"), Raw::Value(1)))
        .collect();
    assert_eq!(
        problems(RunInput {
            source: s("Git"),
            name: s(&"n".repeat(501)),
            started: s("yesterday"),
            finished: s("2026-03-04T08:00:01Z"),
            refused: Raw::Value(refused),
            failed: Raw::Null,
            dry_run: Raw::Refused("must be true or false"),
            error: s(&"e".repeat(2001)),
            refused_fields: vec![("items".to_owned(), "is not a known field")],
            ..valid()
        }),
        [
            "items is not a known field",
            "source must be lower-case letters, digits and underscores",
            "name must be at most 500 characters",
            "started must be an RFC 3339 timestamp with an offset, e.g. 2026-03-02T08:00:00.000Z",
            "finished must not be more than a day in the future",
            "refused must hold at most 50 items",
            "failed is required and cannot be blank",
            "dry_run must be true or false",
            "error must be at most 2000 characters",
        ]
    );
}

#[test]
fn each_refusal_is_named_by_its_code() {
    let long = "C".repeat(RefusalCode::MAX_CHARS + 1);
    assert_eq!(
        problems(RunInput {
            refused: Raw::Value(vec![
                ("UnknownUser".to_owned(), Raw::Value(-2)),
                (String::new(), Raw::Value(1)),
                ("Bad\u{7}".to_owned(), Raw::Value(1)),
                (long.clone(), Raw::Refused("must be a whole number")),
            ]),
            source: s(&"g".repeat(SourceKind::MAX_CHARS + 1)),
            ..valid()
        }),
        [
            "source must be at most 40 characters".to_owned(),
            "refused.UnknownUser must be at least 0".to_owned(),
            "refused. is required and cannot be blank".to_owned(),
            "refused.Bad\u{7} must not contain control characters other than tabs and line breaks"
                .to_owned(),
            format!("refused.{}… must be at most 100 characters", &long[..100]),
            format!("refused.{}… must be a whole number", &long[..100]),
        ]
    );
}
