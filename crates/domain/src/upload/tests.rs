use chrono::TimeZone;

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap()
}

fn s(v: &str) -> Raw<String> {
    Raw::Value(v.to_owned())
}

fn valid() -> UploadInput {
    UploadInput {
        entity_type: s("document"),
        action_type: s("edit"),
        action_date: s("2026-03-01T10:15:00.123Z"),
        user_email: s("Ada@Example.com"),
        text: s("Rust borrow checker"),
        action_alias: s("doc_edit_1"),
        ..UploadInput::default()
    }
}

fn problems(input: UploadInput) -> Vec<(String, Rule)> {
    Upload::parse(input, now())
        .unwrap_err()
        .violations()
        .iter()
        .map(|v| (v.field.to_string(), v.rule))
        .collect()
}

#[test]
fn a_valid_upload_with_one_text() {
    let upload = Upload::parse(valid(), now()).unwrap();
    assert_eq!(upload.entity_type.as_str(), "document");
    assert_eq!(upload.user_email.key(), "ada@example.com");
    assert_eq!(
        upload.action_date,
        Utc.with_ymd_and_hms(2026, 3, 1, 10, 15, 0).unwrap() + Duration::milliseconds(123)
    );
    assert_eq!(upload.texts.len(), 1);
    assert_eq!(upload.texts[0].format, TextFormat::Plain);
    assert_eq!(upload.alias.unwrap().as_str(), "doc_edit_1");
}

#[test]
fn offsets_are_converted_to_utc() {
    let input = UploadInput {
        action_date: s("2026-03-01T12:15:00+02:00"),
        ..valid()
    };
    let upload = Upload::parse(input, now()).unwrap();
    assert_eq!(
        upload.action_date,
        Utc.with_ymd_and_hms(2026, 3, 1, 10, 15, 0).unwrap()
    );
}

#[test]
fn texts_are_parsed_with_their_defaults() {
    let input = UploadInput {
        text: Raw::Missing,
        texts: Raw::Value(vec![
            Raw::Value(TextInput {
                text: s("Title"),
                descriptor: s("primary"),
                ..TextInput::default()
            }),
            Raw::Value(TextInput {
                text: s("<p>Body</p>"),
                text_format: s("html"),
                ..TextInput::default()
            }),
        ]),
        ..valid()
    };
    let upload = Upload::parse(input, now()).unwrap();
    assert_eq!(upload.texts[0].descriptor, Descriptor::Primary);
    assert_eq!(upload.texts[0].format, TextFormat::Plain);
    assert_eq!(upload.texts[1].descriptor, Descriptor::Default);
    assert_eq!(upload.texts[1].format, TextFormat::Html);
}

#[test]
fn every_problem_is_reported_at_once() {
    let input = UploadInput {
        entity_type: s("Document"),
        action_type: s("Edit"),
        action_date: s("yesterday"),
        user_email: s("not-an-address"),
        text: Raw::Missing,
        texts: Raw::Value(vec![
            Raw::Value(TextInput {
                text: s("Fine."),
                ..TextInput::default()
            }),
            Raw::Value(TextInput {
                text_format: s("markdown"),
                descriptor: s("main"),
                text: s("  "),
                ..TextInput::default()
            }),
        ]),
        action_alias: s(&"a".repeat(256)),
        ..UploadInput::default()
    };
    assert_eq!(
        problems(input),
        vec![
            ("entity_type".into(), Rule::NotAnIdentifier),
            ("action_type".into(), Rule::NotAnIdentifier),
            ("action_date".into(), Rule::InvalidTimestamp),
            ("user_email".into(), Rule::InvalidEmail),
            ("action_alias".into(), Rule::TooLong { limit: 255 }),
            (
                "texts[1].text_format".into(),
                Rule::OneOf {
                    allowed: "plain, html"
                }
            ),
            (
                "texts[1].descriptor".into(),
                Rule::OneOf {
                    allowed: "default, primary, secondary"
                }
            ),
            ("texts[1].text".into(), Rule::Required),
        ]
    );
}

/// What a transport refused is reported in the place of the field, among
/// the problems found here.
#[test]
fn refused_fields_are_reported_in_place() {
    const WHY: &str = "cannot be read";
    let refused = Rule::Refused { problem: WHY };
    let input = UploadInput {
        action_type: Raw::Refused(WHY),
        action_date: s("yesterday"),
        text: Raw::Missing,
        texts: Raw::Value(vec![
            Raw::Refused(WHY),
            Raw::Value(TextInput {
                descriptor: Raw::Refused(WHY),
                text: s("  "),
                refused_fields: vec![("lang".into(), WHY)],
                ..TextInput::default()
            }),
        ]),
        refused_fields: vec![("user".into(), WHY)],
        ..valid()
    };
    assert_eq!(
        problems(input),
        vec![
            ("user".into(), refused),
            ("action_type".into(), refused),
            ("action_date".into(), Rule::InvalidTimestamp),
            ("texts[0]".into(), refused),
            ("texts[1].lang".into(), refused),
            ("texts[1].descriptor".into(), refused),
            ("texts[1].text".into(), Rule::Required),
        ]
    );
    assert_eq!(refused.to_string(), WHY);
}

#[test]
fn a_refused_text_still_counts_as_sent() {
    let both = UploadInput {
        text: Raw::Refused("cannot be read"),
        texts: Raw::Value(vec![Raw::Refused("cannot be read")]),
        ..valid()
    };
    assert_eq!(
        problems(both),
        vec![("text".into(), Rule::ExactlyOneOf { other: "texts" })]
    );
    let alone = UploadInput {
        text: Raw::Refused("cannot be read"),
        ..valid()
    };
    assert_eq!(
        problems(alone),
        vec![(
            "text".into(),
            Rule::Refused {
                problem: "cannot be read"
            }
        )]
    );
}

#[test]
fn required_fields_are_named() {
    assert_eq!(
        problems(UploadInput::default()),
        vec![
            ("entity_type".into(), Rule::Required),
            ("action_type".into(), Rule::Required),
            ("action_date".into(), Rule::Required),
            ("user_email".into(), Rule::Required),
            ("text".into(), Rule::ExactlyOneOf { other: "texts" }),
        ]
    );
}

#[test]
fn text_and_texts_exclude_each_other() {
    let both = UploadInput {
        texts: Raw::Value(vec![Raw::Value(TextInput {
            text: s("x"),
            ..TextInput::default()
        })]),
        ..valid()
    };
    assert_eq!(
        problems(both),
        vec![("text".into(), Rule::ExactlyOneOf { other: "texts" })]
    );
    let empty = UploadInput {
        text: Raw::Missing,
        texts: Raw::Value(vec![]),
        ..valid()
    };
    assert_eq!(problems(empty), vec![("texts".into(), Rule::Required)]);
    let too_many = UploadInput {
        text: Raw::Missing,
        texts: Raw::Value(vec![
            Raw::Value(TextInput {
                text: s("x"),
                ..TextInput::default()
            });
            Upload::MAX_TEXTS + 1
        ]),
        ..valid()
    };
    assert_eq!(
        problems(too_many),
        vec![("texts".into(), Rule::TooMany { max: 100 })]
    );
}

#[test]
fn identifiers_are_limited_at_100_characters() {
    let at = |n: usize| UploadInput {
        entity_type: s(&"e".repeat(n)),
        ..valid()
    };
    assert!(Upload::parse(at(100), now()).is_ok());
    assert_eq!(
        problems(at(101)),
        vec![("entity_type".into(), Rule::TooLong { limit: 100 })]
    );
}

#[test]
fn the_alias_is_limited_at_255_characters() {
    let at = |n: usize| UploadInput {
        action_alias: s(&"a".repeat(n)),
        ..valid()
    };
    assert!(Upload::parse(at(255), now()).is_ok());
    assert_eq!(
        problems(at(256)),
        vec![("action_alias".into(), Rule::TooLong { limit: 255 })]
    );
}

#[test]
fn actions_dated_beyond_a_day_ahead_are_refused() {
    let at = |date: &str| UploadInput {
        action_date: s(date),
        ..valid()
    };
    assert!(Upload::parse(at("2026-03-03T08:00:00Z"), now()).is_ok());
    assert_eq!(
        problems(at("2026-03-03T08:00:01Z")),
        vec![("action_date".into(), Rule::InFuture)]
    );
    assert_eq!(
        problems(at("2026-03-01 10:00:00")),
        vec![("action_date".into(), Rule::InvalidTimestamp)]
    );
}
