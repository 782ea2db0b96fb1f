//! `ExpertiseService` with an extractor that reads fixed topics: what an
//! upload teaches is exactly what the extractor found, and `experts` and
//! `userTopics` rank people by it.

use std::collections::HashMap;

use kenning_app::{
    ExpertiseService, ServiceError, UserService, ACTIONS_PER_TOPIC, TOPICS_PER_CARD,
};
use kenning_domain::{
    ExpertsLimit, NewUserInput, Raw, TextFormat, TextWord, Topic, UploadInput, UserId,
    UserTopicsLimit, THE_PERSON,
};
use kenning_ports::{Extraction, TopicExtractor};

use super::{expertise, users, world};

/// Reads each text it knows as the topics it was given for it, with one
/// content word per topic word; any other text has none.
struct FixedTopics(HashMap<&'static str, Vec<(&'static str, &'static str, f64)>>);

impl TopicExtractor for FixedTopics {
    fn extract(
        &self,
        text: &str,
        _format: TextFormat,
        _language: Option<&str>,
        limit: usize,
    ) -> Extraction {
        let found = self.0.get(text).cloned().unwrap_or_default();
        let mut words: Vec<TextWord> = Vec::new();
        for word in found.iter().flat_map(|(key, _, _)| key.split(' ')) {
            match words.iter_mut().find(|w| w.key == word) {
                Some(w) => w.count += 1,
                None => words.push(TextWord {
                    key: word.to_owned(),
                    label: word.to_owned(),
                    count: 1,
                }),
            }
        }
        Extraction {
            language: "en".to_owned(),
            topics: found
                .into_iter()
                .take(limit)
                .map(|(key, label, relevance)| Topic {
                    key: key.to_owned(),
                    label: label.to_owned(),
                    relevance,
                })
                .collect(),
            words,
        }
    }
}

const RUST_NOTE: &str = "a note on the borrow checker";
const GC_NOTE: &str = "a note on garbage collectors";
const QUERY: &str = "who knows the borrow checker?";

fn extractor() -> FixedTopics {
    FixedTopics(HashMap::from([
        (
            RUST_NOTE,
            vec![
                ("borrow checker", "borrow checker", 1.0),
                ("ownership", "Ownership", 0.5),
            ],
        ),
        (
            GC_NOTE,
            vec![("garbage collector", "garbage collector", 1.0)],
        ),
        (QUERY, vec![("borrow checker", "borrow checker", 1.0)]),
    ]))
}

struct Setup {
    users: UserService,
    expertise: ExpertiseService,
}

fn setup() -> Setup {
    let world = world();
    Setup {
        users: users(&world),
        expertise: expertise(&world, std::sync::Arc::new(extractor())),
    }
}

fn person(users: &UserService, email: &str, first: &str, last: &str) -> UserId {
    users
        .create(NewUserInput {
            email: email.into(),
            firstname: first.into(),
            lastname: last.into(),
            ..NewUserInput::default()
        })
        .unwrap()
        .id()
}

fn upload(email: &str, text: &str, alias: &str) -> UploadInput {
    UploadInput {
        entity_type: Raw::Value("document".into()),
        action_type: Raw::Value("create".into()),
        action_date: Raw::Value("2026-03-01T10:00:00.000Z".into()),
        user_email: Raw::Value(email.into()),
        text: Raw::Value(text.into()),
        action_alias: Raw::Value(alias.into()),
        ..UploadInput::default()
    }
}

fn sorted<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut keys: Vec<&str> = keys.into_iter().collect();
    keys.sort_unstable();
    keys
}

#[test]
fn an_upload_teaches_exactly_the_topics_extracted() {
    let s = setup();
    let ada = person(&s.users, "ada@example.com", "Ada", "Lovelace");
    let accepted = s
        .expertise
        .upload(upload("Ada@Example.com", RUST_NOTE, "doc-1"))
        .unwrap();

    assert_eq!(accepted.user, ada);
    // The phrases, and the content words under keys of their own; the
    // one-word phrase and its word meet under one key.
    let score = |key: &str| {
        accepted
            .topics
            .iter()
            .find(|t| t.key == key)
            .unwrap_or_else(|| panic!("{key} was not learned"))
            .score
    };
    assert_eq!(
        sorted(accepted.topics.iter().map(|t| t.key.as_str())),
        ["borrow", "borrow checker", "checker", "ownership"]
    );
    assert_eq!(score("borrow checker"), 1.0);
    assert_eq!(score("borrow"), score("checker"));
    assert!((score("ownership") - (score("borrow") + 0.5)).abs() < 1e-12);
}

#[test]
fn experts_read_answers_as_experts_and_read_query_do() {
    let s = setup();
    person(&s.users, "ada@example.com", "Ada", "Lovelace");
    person(&s.users, "grace@example.com", "Grace", "Hopper");
    s.expertise
        .upload(upload("ada@example.com", RUST_NOTE, "doc-1"))
        .unwrap();
    s.expertise
        .upload(upload("grace@example.com", GC_NOTE, "doc-2"))
        .unwrap();
    for query in [QUERY, "nothing known"] {
        let (experts, reading) = s
            .expertise
            .experts_read(query, ExpertsLimit::default(), None)
            .unwrap();
        assert_eq!(
            experts,
            s.expertise.experts(query, ExpertsLimit::default()).unwrap(),
            "{query}"
        );
        assert_eq!(reading, s.expertise.read_query(query).unwrap(), "{query}");
    }
}

/// The explained answer lists the people `experts` lists, in its order,
/// those scoring 50 or more as knowing and the others as the nearest, each
/// topic of a card with the actions that taught it.
#[test]
fn the_explained_answer_is_the_experts_split_with_their_evidence() {
    let s = setup();
    let ada = person(&s.users, "ada@example.com", "Ada", "Lovelace");
    person(&s.users, "grace@example.com", "Grace", "Hopper");
    for (email, text, alias) in [
        ("ada@example.com", RUST_NOTE, "doc-1"),
        ("ada@example.com", RUST_NOTE, "doc-2"),
        ("ada@example.com", RUST_NOTE, "doc-3"),
        ("grace@example.com", GC_NOTE, "doc-4"),
    ] {
        s.expertise.upload(upload(email, text, alias)).unwrap();
    }
    let limit = ExpertsLimit::default();
    let answer = s.expertise.explained(QUERY, limit, None).unwrap();
    let experts = s.expertise.experts(QUERY, limit).unwrap();
    let listed: Vec<UserId> = answer.cards().map(|c| c.expert.user).collect();
    assert_eq!(listed, experts.iter().map(|e| e.user).collect::<Vec<_>>());
    assert_eq!(listed, [ada]);
    assert!(answer.knowing.iter().all(|c| c.expert.score >= THE_PERSON));
    assert!(answer.nearest.iter().all(|c| c.expert.score < THE_PERSON));
    assert_eq!(answer.reading, s.expertise.read_query(QUERY).unwrap());
    assert!(!answer.full);
    let card = answer.cards().next().unwrap();
    assert_eq!(card.person.id(), ada);
    assert!(!card.topics.is_empty() && card.topics.len() <= TOPICS_PER_CARD);
    for topic in &card.topics {
        assert_eq!(
            topic.evidence.len(),
            ACTIONS_PER_TOPIC as usize,
            "{topic:?}"
        );
        assert!(topic.evidence.iter().all(|a| a.action_type == "create"));
    }
    let nobody = s.expertise.explained("nothing known", limit, None).unwrap();
    assert_eq!(nobody.cards().count(), 0);
}

#[test]
fn experts_rank_who_taught_a_topic_more_first() {
    let s = setup();
    let ada = person(&s.users, "ada@example.com", "Ada", "Lovelace");
    let grace = person(&s.users, "grace@example.com", "Grace", "Hopper");
    person(&s.users, "alan@example.com", "Alan", "Turing");
    for (email, text, alias) in [
        ("ada@example.com", RUST_NOTE, "doc-1"),
        ("ada@example.com", RUST_NOTE, "doc-2"),
        ("grace@example.com", RUST_NOTE, "doc-3"),
        ("grace@example.com", GC_NOTE, "doc-4"),
    ] {
        s.expertise.upload(upload(email, text, alias)).unwrap();
    }

    let experts = s.expertise.experts(QUERY, ExpertsLimit::default()).unwrap();
    let order: Vec<UserId> = experts.iter().map(|e| e.user).collect();
    assert_eq!(order, [ada, grace]);
    assert!(experts[0].score > experts[1].score);
    // Same texts, same day: twice the actions, twice the standing.
    assert!((experts[0].raw_score - 2.0 * experts[1].raw_score).abs() < 1e-9);
    for expert in &experts {
        assert_eq!(
            sorted(expert.topics.iter().map(|t| t.key.as_str())),
            ["borrow", "borrow checker", "checker"]
        );
    }
    assert!(s
        .expertise
        .experts("nothing known", ExpertsLimit::default())
        .unwrap()
        .is_empty());

    let topics = |user| {
        s.expertise
            .user_topics(user, UserTopicsLimit::default())
            .unwrap()
            .into_iter()
            .map(|t| (t.topic.key, t.actions.len()))
            .collect::<Vec<_>>()
    };
    let of_ada = topics(ada);
    assert_eq!(of_ada[0], ("ownership".to_owned(), 2));
    assert_eq!(
        sorted(of_ada.iter().map(|(key, _)| key.as_str())),
        ["borrow", "borrow checker", "checker", "ownership"]
    );
    assert!(of_ada.iter().all(|(_, actions)| *actions == 2));
    let of_grace = topics(grace);
    assert_eq!(
        sorted(of_grace.iter().map(|(key, _)| key.as_str())),
        [
            "borrow",
            "borrow checker",
            "checker",
            "collector",
            "garbage",
            "garbage collector",
            "ownership"
        ]
    );
    assert!(of_grace.iter().all(|(_, actions)| *actions == 1));
}

#[test]
fn uploads_for_unknown_users_and_repeated_aliases_are_refused() {
    let s = setup();
    let ada = person(&s.users, "ada@example.com", "Ada", "Lovelace");
    assert_eq!(
        s.expertise
            .upload(upload("nobody@example.com", RUST_NOTE, "doc-1")),
        Err(ServiceError::UnknownUser)
    );
    let first = s
        .expertise
        .upload(upload("ada@example.com", RUST_NOTE, "doc-1"))
        .unwrap();
    let again = s
        .expertise
        .upload(upload("ada@example.com", GC_NOTE, "doc-1"));
    let Err(ServiceError::DuplicateAlias {
        action_id,
        accepted,
    }) = again
    else {
        panic!("{again:?}");
    };
    assert_eq!(action_id, first.action_id);
    assert!(again.unwrap_err().to_string().contains(&format!(
        "accepted before, at {}, as action {}",
        accepted.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        first.action_id
    )));
    let learned: Vec<String> = s
        .expertise
        .user_topics(ada, UserTopicsLimit::default())
        .unwrap()
        .into_iter()
        .map(|t| t.topic.key)
        .collect();
    assert!(
        !learned.iter().any(|k| k.contains("garbage")),
        "{learned:?}"
    );
}
