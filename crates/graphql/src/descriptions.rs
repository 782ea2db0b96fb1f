//! The numbers the schema's descriptions state are the constants that
//! decide them: juniper takes a description as written, so each number
//! written there is checked here against the constant it copies, and a
//! changed constant fails this test until its description says so.

use crate::{schema, Limits};
use kenning_app::ASKED_LISTED;
use kenning_domain::{
    AskedSubject, AuditLimit, ExpertsLimit, Limit, RelatedTopicsLimit, UserTopicsLimit,
    MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, NEAREST_FLOOR, THE_PERSON,
};

/// The description of `field` of the type `of`, its lines and spaces run
/// together.
fn description(of: &str, field: &str) -> String {
    let schema = schema(Limits::default());
    let meta = schema
        .root()
        .schema
        .concrete_type_by_name(of)
        .unwrap_or_else(|| panic!("no type {of}"));
    let field = meta
        .field_by_name(field)
        .unwrap_or_else(|| panic!("no field {of}.{field}"));
    let text = field.description.as_deref().unwrap_or_default();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[track_caller]
fn states(of: &str, field: &str, expected: &str) {
    let text = description(of, field);
    assert!(
        text.contains(expected),
        "{of}.{field} should say {expected:?}: {text}"
    );
}

#[test]
fn the_descriptions_state_the_limits_the_use_cases_apply() {
    let range = |min: u32, max: u32, default: u32| format!("{min} to {max}, default {default}");
    states(
        "Query",
        "experts",
        &range(
            ExpertsLimit::MIN,
            ExpertsLimit::MAX,
            ExpertsLimit::DEFAULT.get(),
        ),
    );
    states(
        "Query",
        "relatedTopics",
        &range(
            RelatedTopicsLimit::MIN,
            RelatedTopicsLimit::MAX,
            RelatedTopicsLimit::DEFAULT.get(),
        ),
    );
    states(
        "Query",
        "userTopics",
        &range(
            UserTopicsLimit::MIN,
            UserTopicsLimit::MAX,
            UserTopicsLimit::DEFAULT.get(),
        ),
    );
    states(
        "Query",
        "usersConnection",
        &format!("(1 to {}, default {})", Limit::MAX, Limit::DEFAULT.get()),
    );
    states(
        "Query",
        "auditTrail",
        &format!(
            "(1 to {}, default {})",
            AuditLimit::MAX,
            AuditLimit::DEFAULT.get()
        ),
    );
    states(
        "Query",
        "askedSubjects",
        &format!(
            "(1 to {}, default {})",
            AskedSubject::KEPT_DAYS,
            AskedSubject::DEFAULT_DAYS
        ),
    );
    states("Query", "askedSubjects", &format!("at most {ASKED_LISTED}"));
    states(
        "Mutation",
        "setLearningRule",
        &format!("({MIN_RETENTION_DAYS} to {MAX_RETENTION_DAYS};"),
    );
}

#[test]
fn the_descriptions_state_the_scores_the_answer_is_read_by() {
    states(
        "QueryReading",
        "verdict",
        &format!("somebody scores {THE_PERSON} or more"),
    );
    states(
        "QueryReading",
        "verdict",
        &format!("some score {NEAREST_FLOOR} or more"),
    );
    states(
        "QueryReading",
        "knowing",
        &format!("at {THE_PERSON} or more"),
    );
    states(
        "QueryReading",
        "knowing",
        &format!("longest list ({})", ExpertsLimit::MAX),
    );
    states(
        "QueryReading",
        "nearest",
        &format!("score {NEAREST_FLOOR} to {THE_PERSON}"),
    );
}
