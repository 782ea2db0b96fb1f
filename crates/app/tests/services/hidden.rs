//! What a person hides, and the people `experts` does not rank, show
//! nowhere: not beside a person's best topic, not in the topics that go
//! with one, not in the count of people a reading gives, not in a profile.

use std::collections::HashMap;
use std::sync::Arc;

use kenning_app::{ExpertiseService, UserService};
use kenning_domain::{
    ExpertsLimit, Raw, RelatedTopicsLimit, TextFormat, TextWord, Topic, UploadInput, UserId,
    UserTopicsLimit,
};
use kenning_ports::{Extraction, TopicExtractor};

use super::{expertise, person, users, world};

/// Reads each note it knows as the topics given for it; any other text
/// (a query, a topic asked about) as one topic, itself in lower case.
struct Notes(HashMap<&'static str, Vec<(&'static str, f64)>>);

impl TopicExtractor for Notes {
    fn extract(&self, text: &str, _: TextFormat, _: Option<&str>, _: usize) -> Extraction {
        let found = self
            .0
            .get(text)
            .cloned()
            .unwrap_or_else(|| vec![(text, 1.0)]);
        let topic = |(key, relevance): &(&str, f64)| Topic {
            key: key.to_lowercase(),
            label: key.to_lowercase(),
            relevance: *relevance,
        };
        Extraction {
            language: "en".to_owned(),
            topics: found.iter().map(topic).collect(),
            words: found
                .iter()
                .map(|(key, _)| TextWord {
                    key: key.to_lowercase(),
                    label: key.to_lowercase(),
                    count: 1,
                })
                .collect(),
        }
    }
}

const NICHE_NOTE: &str = "operators for the payment clusters";
const HELM_NOTE: &str = "charts for the clusters";
const COBOL_NOTE: &str = "the ledger in COBOL";
const DIVORCE_NOTE: &str = "notes from the hearings";

struct Setup {
    users: UserService,
    expertise: ExpertiseService,
    ada: UserId,
    grace: UserId,
}

fn setup() -> Setup {
    let world = world();
    let notes = Notes(HashMap::from([
        (NICHE_NOTE, vec![("kubernetes", 1.0), ("niche", 0.8)]),
        (HELM_NOTE, vec![("kubernetes", 1.0), ("helm", 0.8)]),
        (COBOL_NOTE, vec![("cobol", 1.0)]),
        (
            DIVORCE_NOTE,
            vec![
                ("divorce", 1.0),
                ("divorce proceedings", 0.9),
                ("handled divorce proceedings", 0.8),
                ("divorcee", 0.7),
                ("custody hearings", 0.6),
            ],
        ),
    ]));
    let users = users(&world);
    let ada = person(&users, "ada@example.com").id();
    let grace = person(&users, "grace@example.com").id();
    Setup {
        expertise: expertise(&world, Arc::new(notes)).with_privacy(world.0.clone()),
        users,
        ada,
        grace,
    }
}

impl Setup {
    fn teach(&self, email: &str, text: &str, alias: &str) {
        self.expertise
            .upload(UploadInput {
                entity_type: Raw::Value("document".into()),
                action_type: Raw::Value("create".into()),
                action_date: Raw::Value("2026-03-01T10:00:00.000Z".into()),
                user_email: Raw::Value(email.into()),
                text: Raw::Value(text.into()),
                action_alias: Raw::Value(alias.into()),
                ..UploadInput::default()
            })
            .unwrap();
    }

    fn related_of(&self, user: UserId, topic: &str) -> Vec<String> {
        let limit = RelatedTopicsLimit::default();
        let related = self.expertise.related_topics_of(user, topic, limit);
        related.unwrap().into_iter().map(|t| t.key).collect()
    }

    fn related(&self, topic: &str) -> Vec<String> {
        let limit = RelatedTopicsLimit::default();
        let related = self.expertise.related_topics(topic, limit).unwrap();
        related.into_iter().map(|t| t.key).collect()
    }

    fn topics_of(&self, user: UserId) -> Vec<String> {
        let topics = self.expertise.user_topics(user, UserTopicsLimit::default());
        topics.unwrap().into_iter().map(|t| t.topic.key).collect()
    }

    /// How many people the reading of `query` says hold each topic.
    fn holders(&self, query: &str) -> Vec<(String, u64)> {
        let reading = self.expertise.read_query(query).unwrap();
        reading
            .topics
            .into_iter()
            .map(|t| (t.key, t.people))
            .collect()
    }
}

/// A niche topic taught mostly by one person's uploads goes with her best
/// topic on her own page, until she hides it: then it shows there no more,
/// nor beside that topic for anyone.
#[test]
fn a_topic_a_person_hides_shows_nowhere_beside_her_best_one() {
    let s = setup();
    for n in 0..3 {
        s.teach("ada@example.com", NICHE_NOTE, &format!("niche-{n}"));
    }
    s.teach("ada@example.com", HELM_NOTE, "helm-ada");
    s.teach("grace@example.com", HELM_NOTE, "helm-grace");
    // What sets her apart comes first; the niche goes with kubernetes.
    assert_eq!(s.topics_of(s.ada)[..2], ["niche", "kubernetes"]);
    assert_eq!(s.related_of(s.ada, "kubernetes"), ["niche", "helm"]);

    s.expertise.set_topic_hidden(s.ada, "niche", true).unwrap();
    // Her best topic now is kubernetes, shown with what goes with it.
    assert_eq!(s.topics_of(s.ada)[0], "kubernetes");
    assert!(!s.topics_of(s.ada).contains(&"niche".to_owned()));
    assert_eq!(s.related_of(s.ada, "kubernetes"), ["helm"]);
    assert_eq!(s.related("kubernetes"), ["helm"]);
    assert!(s.related_of(s.ada, "niche").is_empty());
    // Grace's page is not Ada's: her topics, as others learned them.
    assert_eq!(s.related_of(s.grace, "kubernetes"), ["helm"]);
}

/// The people a reading counts on a topic are those `experts` would rank
/// on it: nobody who hid it, nobody deactivated; so "nobody is known"
/// above is never "1 person" below. A deactivated person's profile shows
/// no topics, and what she taught goes with no topic.
#[test]
fn a_reading_counts_only_whom_experts_would_rank() {
    let s = setup();
    s.teach("ada@example.com", NICHE_NOTE, "niche");
    s.teach("grace@example.com", COBOL_NOTE, "cobol");
    s.teach("grace@example.com", HELM_NOTE, "helm");
    assert_eq!(s.holders("niche"), [("niche".to_owned(), 1)]);
    assert_eq!(s.holders("cobol"), [("cobol".to_owned(), 1)]);

    s.expertise.set_topic_hidden(s.ada, "niche", true).unwrap();
    assert_eq!(s.holders("niche"), [("niche".to_owned(), 0)]);
    let (experts, reading) = s
        .expertise
        .experts_read("niche", ExpertsLimit::default(), None)
        .unwrap();
    assert!(experts.is_empty());
    assert!(!reading.subject_known);
    assert_eq!(reading.topics[0].people, 0);
    // Kubernetes is held by both, and both are counted.
    assert_eq!(s.holders("kubernetes"), [("kubernetes".to_owned(), 2)]);

    s.users.deactivate(s.grace).unwrap();
    assert_eq!(s.holders("cobol"), [("cobol".to_owned(), 0)]);
    assert_eq!(s.holders("kubernetes"), [("kubernetes".to_owned(), 1)]);
    assert!(s.topics_of(s.grace).is_empty());
    assert!(s.related("helm").is_empty(), "{:?}", s.related("helm"));
    assert!(s.related_of(s.grace, "cobol").is_empty());
}

/// Hiding a subject hides every topic of the person that holds it, and
/// says which; showing it again shows them again.
#[test]
fn hiding_a_subject_hides_every_topic_of_the_person_that_holds_it() {
    let s = setup();
    s.teach("ada@example.com", DIVORCE_NOTE, "divorce-1");
    s.teach("grace@example.com", DIVORCE_NOTE, "divorce-2");
    let done = s
        .expertise
        .set_topic_hidden(s.ada, "divorce", true)
        .unwrap();
    assert_eq!(
        done.changed,
        [
            "divorce",
            "divorce proceedings",
            "handled divorce proceedings"
        ]
    );
    let shown = s.topics_of(s.ada);
    assert!(
        !shown
            .iter()
            .any(|t| t.contains("divorce ") || t == "divorce"),
        "{shown:?}"
    );
    assert!(shown.contains(&"divorcee".to_owned()), "{shown:?}");
    assert!(shown.contains(&"custody hearings".to_owned()), "{shown:?}");
    // Grace's are hers.
    assert!(s
        .topics_of(s.grace)
        .contains(&"divorce proceedings".to_owned()));

    let done = s
        .expertise
        .set_topic_hidden(s.ada, "divorce", false)
        .unwrap();
    assert_eq!(done.changed.len(), 3, "{done:?}");
    assert!(done.now.is_empty());
    assert!(s
        .topics_of(s.ada)
        .contains(&"handled divorce proceedings".to_owned()));
}
