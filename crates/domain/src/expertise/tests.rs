use chrono::{DateTime, Duration, TimeZone, Utc};
use uuid::Uuid;

use std::collections::{HashMap, HashSet};

use super::*;
use crate::topic::{TextWord, Topic};
use crate::upload::{ActionType, Descriptor};
use crate::user::UserId;

fn t(days: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::days(days)
}

fn topic(key: &str, relevance: f64) -> Topic {
    Topic {
        key: key.into(),
        label: key.to_uppercase(),
        relevance,
    }
}

#[test]
fn defaults_follow_the_product_decisions() {
    let s = Scoring::default();
    assert_eq!(s.descriptor_factor(Descriptor::Primary), 1.5);
    assert_eq!(s.descriptor_factor(Descriptor::Default), 1.0);
    assert_eq!(s.descriptor_factor(Descriptor::Secondary), 0.5);
    assert_eq!(s.half_life(), Duration::days(365));
    assert_eq!(s.action_weight(&ActionType::parse("view").unwrap()), 1.0);
}

#[test]
fn configured_weights_apply_and_bad_ones_are_refused() {
    let edit = ActionType::parse("edit").unwrap();
    let s = Scoring::new(
        [(edit.clone(), 3.0)],
        0.5,
        [2.0, 1.0, 0.25],
        Duration::days(30),
    )
    .unwrap();
    assert_eq!(s.action_weight(&edit), 3.0);
    assert_eq!(s.action_weight(&ActionType::parse("view").unwrap()), 0.5);
    let topic = EntityTopic {
        key: "rust".into(),
        label: "Rust".into(),
        by_descriptor: [1.0, 0.0, 2.0],
        shown: true,
    };
    // edit weighs 3; relevance is 2.0 * 1.0 + 0.25 * 2.0.
    assert!((s.contribution("edit", &topic) - 3.0 * 2.5).abs() < 1e-12);
    assert!((s.contribution("unlisted", &topic) - 0.5 * 2.5).abs() < 1e-12);
    assert_eq!(
        Scoring::new([(edit, -1.0)], 1.0, [1.0; 3], Duration::days(30)),
        Err(ScoringError::Weight("edit".into()))
    );
    assert_eq!(
        Scoring::new([], f64::NAN, [1.0; 3], Duration::days(30)).unwrap_err(),
        ScoringError::Weight("unlisted action types".into())
    );
    assert_eq!(
        Scoring::new([], 1.0, [1.0; 3], Duration::hours(23)),
        Err(ScoringError::HalfLife)
    );
    assert_ne!(s.fingerprint(), Scoring::default().fingerprint());
}

#[test]
fn a_contribution_halves_every_half_life() {
    let s = Scoring::default();
    assert!((s.decay(t(0), t(365)) - 0.5).abs() < 1e-12);
    assert!((s.decay(t(0), t(730)) - 0.25).abs() < 1e-12);
    assert_eq!(s.decay(t(3), t(3)), 1.0);
}

#[test]
fn standings_add_up_in_any_order() {
    let s = Scoring::default();
    let empty = Standing {
        score: 0.0,
        as_of: t(0),
    };
    let forward = empty.add(2.0, t(0), &s).add(1.0, t(365), &s);
    let backward = empty.add(1.0, t(365), &s).add(2.0, t(0), &s);
    for standing in [forward, backward] {
        assert_eq!(standing.as_of, t(365));
        assert!((standing.score - 2.0).abs() < 1e-9, "{standing:?}");
        assert!((standing.score_at(t(730), &s) - 1.0).abs() < 1e-9);
    }
}

fn phrases(descriptor: Descriptor, phrases: Vec<Topic>) -> TextTrace {
    TextTrace {
        descriptor,
        phrases,
        words: Vec::new(),
        words_judged: false,
    }
}

fn written(key: &str, label: &str, relevance: f64) -> Topic {
    Topic {
        key: key.into(),
        label: label.into(),
        relevance,
    }
}

fn word(key: &str, label: &str, count: u32) -> TextWord {
    TextWord {
        key: key.into(),
        label: label.into(),
        count,
    }
}

#[test]
fn entity_topics_weigh_texts_by_descriptor() {
    let s = Scoring::default();
    let topics = entity_topics(
        &[
            phrases(Descriptor::Primary, vec![topic("rust", 1.0)]),
            phrases(
                Descriptor::Secondary,
                vec![topic("rust", 0.5), topic("cargo", 1.0)],
            ),
        ],
        &s,
    );
    assert_eq!(topics.len(), 2);
    assert_eq!(topics[0].key, "rust");
    assert_eq!(topics[0].by_descriptor, [1.0, 0.0, 0.5]);
    assert!((topics[0].relevance(&s) - 1.75).abs() < 1e-12);
    assert_eq!(topics[1].key, "cargo");
    assert!((topics[1].relevance(&s) - 0.5).abs() < 1e-12);
    // Other factors re-weigh the same stored sums.
    let flat = Scoring::new([], 1.0, [1.0, 1.0, 1.0], Duration::days(365)).unwrap();
    assert!((topics[0].relevance(&flat) - 1.5).abs() < 1e-12);
}

#[test]
fn a_text_leaves_its_phrases_and_its_words_with_saturating_weights() {
    let s = Scoring::default();
    let filler: Vec<TextWord> = (0..96).map(|i| word(&format!("w{i}"), "w", 1)).collect();
    let mut words = vec![
        word("kubernet", "Kubernetes", 3),
        word("cluster", "clusters", 1),
    ];
    words.extend(filler);
    let topics = entity_topics(
        &[TextTrace {
            descriptor: Descriptor::Default,
            words_judged: true,
            phrases: vec![
                Topic {
                    key: "kubernet cluster".into(),
                    label: "Kubernetes clusters".into(),
                    relevance: 1.0,
                },
                topic(&"x".repeat(65), 0.9),
                topic("kubernet", 0.5),
            ],
            words,
        }],
        &s,
    );
    let weight = |key: &str| {
        topics
            .iter()
            .find(|t| t.key == key)
            .map(|t| (t.label.clone(), t.relevance(&s)))
    };
    // A typical text (100 words): a word used once weighs one.
    let (label, once) = weight("cluster").unwrap();
    assert_eq!(label, "clusters");
    assert!((once - 1.0).abs() < 1e-9, "{once}");
    // Three uses weigh more than one, less than three; the one-word
    // phrase adds its relevance under the same key.
    let (label, kubernetes) = weight("kubernet").unwrap();
    assert_eq!(label, "Kubernetes", "the largest contribution names it");
    let thrice = kubernetes - 0.5;
    assert!(thrice > 1.5 && thrice < 2.2, "{thrice}");
    assert!(weight("kubernet cluster").is_some());
    assert!(weight(&"x".repeat(65)).is_none(), "no word of 65 letters");
    assert_eq!(topics.len(), 2 + 1 + 96);

    // Beyond the most frequent words of a text, nothing is kept.
    let many: Vec<TextWord> = (0..WORDS_PER_TEXT + 10)
        .map(|i| word(&format!("w{i}"), "w", 1))
        .collect();
    let kept = entity_topics(
        &[TextTrace {
            descriptor: Descriptor::Default,
            phrases: Vec::new(),
            words: many,
            words_judged: true,
        }],
        &s,
    );
    assert_eq!(kept.len(), WORDS_PER_TEXT);
}

#[test]
fn a_query_is_matched_on_every_word_and_the_runs_of_its_phrases() {
    let found = [Topic {
        key: "python panda datafram".into(),
        label: "python pandas dataframe".into(),
        relevance: 1.0,
    }];
    let words = [
        word("python", "python", 1),
        word("panda", "pandas", 1),
        word("datafram", "dataframe", 2),
    ];
    let terms = query_terms(&found, &words);
    let weight = |key: &str| terms.iter().find(|t| t.key == key).map(|t| t.weight);
    assert_eq!(weight("datafram"), Some(2.0), "said twice, weighs twice");
    assert_eq!(weight("python"), Some(1.0));
    assert_eq!(weight("panda datafram"), Some(1.0));
    let keys: Vec<String> = terms.into_iter().map(|t| t.key).collect();
    assert_eq!(
        keys,
        [
            "python",
            "panda",
            "datafram",
            "python panda datafram",
            "python panda",
            "panda datafram"
        ]
    );
}

fn standing(user: UserId, key: &str, score: f64, day: i64) -> TopicStanding {
    TopicStanding {
        user,
        key: key.into(),
        label: key.into(),
        standing: Standing {
            score,
            as_of: t(day),
        },
        shown: true,
    }
}

fn term(key: &str) -> QueryTerm {
    QueryTerm {
        key: key.into(),
        label: key.into(),
        weight: 1.0,
        similarity: None,
    }
}

fn user(n: u128) -> UserId {
    UserId::from_uuid(Uuid::from_u128(n))
}

/// The evidence of `rows`, each topic known by as many as have a row.
fn evidence(
    rows: &[TopicStanding],
    activity: HashMap<UserId, u64>,
    population: Population,
) -> Evidence {
    let mut knowing = HashMap::new();
    for row in rows {
        *knowing.entry(row.key.clone()).or_default() += 1;
    }
    Evidence {
        standings: rows.to_vec(),
        knowing,
        activity,
        population,
        actions: Vec::new(),
        hidden: HashSet::new(),
    }
}

/// Everyone in `standings` with `actions` actions each.
fn activity(standings: &[TopicStanding], actions: u64) -> HashMap<UserId, u64> {
    standings.iter().map(|s| (s.user, actions)).collect()
}

#[test]
fn a_specific_phrase_outweighs_a_pile_of_generic_words() {
    let s = Scoring::default();
    let (generalist, specialist) = (user(1), user(2));
    let mut rows = vec![
        standing(generalist, "quantum", 10.0, 0),
        standing(generalist, "error", 2.0, 0),
        standing(specialist, "quantum", 1.5, 0),
        standing(specialist, "error", 1.5, 0),
        standing(specialist, "correct", 1.5, 0),
        standing(specialist, "quantum error correct", 1.5, 0),
    ];
    // Many others know "error" and "quantum": they say little.
    for n in 10..40 {
        rows.push(standing(user(n), "error", 1.0, 0));
        rows.push(standing(user(n), "quantum", 1.0, 0));
    }
    for n in 40..43 {
        rows.push(standing(user(n), "correct", 1.0, 0));
    }
    let query: Vec<QueryTerm> = ["quantum", "error", "correct", "quantum error correct"]
        .into_iter()
        .map(term)
        .collect();
    let population = Population {
        people: 100,
        actions: 1000,
    };
    let ranked = rank_experts(
        &query,
        evidence(&rows, activity(&rows, 10), population),
        t(0),
        &s,
        10,
    );
    assert_eq!(ranked[0].user, specialist, "{ranked:?}");
    assert_eq!(
        ranked[0].topics[0].key, "quantum error correct",
        "the rarest explains most"
    );
    assert!(
        ranked[0].raw_score < ranked[1].raw_score,
        "the raw sum favours volume"
    );
    assert!(ranked.iter().all(|e| e.score > 0.0 && e.score <= 100.0));
}

#[test]
fn activity_does_not_win_by_volume() {
    let s = Scoring::default();
    let (busy, focused) = (user(1), user(2));
    let rows = vec![
        standing(busy, "rust", 3.0, 0),
        standing(focused, "rust", 2.5, 0),
    ];
    let activity = HashMap::from([(busy, 2000), (focused, 20)]);
    let population = Population {
        people: 50,
        actions: 50 * 50,
    };
    let ranked = rank_experts(
        &[term("rust")],
        evidence(&rows, activity, population),
        t(0),
        &s,
        10,
    );
    assert_eq!(ranked[0].user, focused, "{ranked:?}");
}

#[test]
fn a_hidden_topic_does_not_rank_its_person() {
    let s = Scoring::default();
    let (ada, bob) = (user(1), user(2));
    let rows = vec![
        standing(ada, "helm", 5.0, 0),
        standing(ada, "rust", 1.0, 0),
        standing(bob, "helm", 1.0, 0),
    ];
    let population = Population {
        people: 20,
        actions: 200,
    };
    let mut known = evidence(&rows, activity(&rows, 10), population);
    known.hidden.insert((ada, "helm".to_owned()));
    let ranked = rank_experts(&[term("helm")], known.clone(), t(0), &s, 10);
    let users: Vec<UserId> = ranked.iter().map(|e| e.user).collect();
    assert_eq!(users, [bob], "{ranked:?}");
    // Her other topics still rank her.
    let ranked = rank_experts(&[term("helm"), term("rust")], known, t(0), &s, 10);
    assert!(ranked.iter().any(|e| e.user == ada), "{ranked:?}");
}

#[test]
fn old_material_keeps_its_order_and_its_score_fades() {
    let s = Scoring::default();
    let (ada, bob) = (user(1), user(2));
    // Ten half-lives ago: the raw sums are a thousandth of what they were.
    let rows = vec![
        standing(ada, "rust", 30.0, -3650),
        standing(bob, "rust", 10.0, -3650),
        standing(bob, "cargo", 1.0, -3650),
    ];
    let population = Population {
        people: 20,
        actions: 200,
    };
    let ranked = rank_experts(
        &[term("rust")],
        evidence(&rows, activity(&rows, 10), population),
        t(0),
        &s,
        10,
    );
    assert_eq!(ranked[0].user, ada);
    assert!(ranked[0].raw_score < 0.05, "{}", ranked[0].raw_score);
    assert!(ranked[0].score > 0.0 && ranked[0].score < 5.0, "{ranked:?}");
    assert!(ranked[0].score > ranked[1].score);
    let fresh: Vec<TopicStanding> = rows
        .iter()
        .map(|r| standing(r.user, &r.key, r.standing.score, 0))
        .collect();
    let today = rank_experts(
        &[term("rust")],
        evidence(&fresh, activity(&fresh, 10), population),
        t(0),
        &s,
        10,
    );
    assert_eq!(today[0].user, ada);
    assert!(today[0].score > 30.0, "{today:?}");
    assert_eq!(
        rank_experts(
            &[term("rust")],
            evidence(&rows, HashMap::new(), population),
            t(0),
            &s,
            0
        ),
        vec![]
    );
}

#[test]
fn related_topics_leave_out_the_topic_and_its_own_words() {
    let found = vec![
        ("kubernet".to_owned(), "Kubernetes".to_owned(), 9),
        (
            "contain orchestr".to_owned(),
            "container orchestration".to_owned(),
            6,
        ),
        ("year".to_owned(), "year".to_owned(), 8),
        ("helm".to_owned(), "Helm".to_owned(), 3),
    ];
    let knowing = HashMap::from([
        ("kubernet".to_owned(), 20),
        ("contain orchestr".to_owned(), 5),
        ("year".to_owned(), 95),
        ("helm".to_owned(), 3),
    ]);
    let population = Population {
        people: 100,
        actions: 1000,
    };
    let related = related_topics("kubernet cluster", &found, 10, &knowing, population, 10);
    let keys: Vec<&str> = related.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["contain orchestr", "helm", "year"]);
    assert_eq!(related[0].together, 6);
    assert!(related_topics("kubernet", &[], 0, &knowing, population, 10).is_empty());
}

#[test]
fn rank_keys_order_standings_as_their_scores_do_at_any_moment() {
    let s = Scoring::default();
    let standings = [
        Standing {
            score: 3.0,
            as_of: t(-400),
        },
        Standing {
            score: 1.0,
            as_of: t(0),
        },
        Standing {
            score: 0.5,
            as_of: t(300),
        },
        Standing {
            score: 2.0,
            as_of: t(-30),
        },
        Standing {
            score: 0.0,
            as_of: t(0),
        },
    ];
    for now in [t(300), t(1000), t(10_000)] {
        let mut by_score: Vec<usize> = (0..standings.len()).collect();
        by_score.sort_by(|a, b| {
            standings[*b]
                .score_at(now, &s)
                .total_cmp(&standings[*a].score_at(now, &s))
        });
        let mut by_key: Vec<usize> = (0..standings.len()).collect();
        by_key.sort_by(|a, b| {
            standings[*b]
                .rank_key(&s)
                .total_cmp(&standings[*a].rank_key(&s))
        });
        assert_eq!(by_score, by_key);
    }
    assert!(standings[4].rank_key(&s) < -1e299);
}

fn action_topic(action: u128, user: UserId, key: &str, relevance: f64) -> ActionTopic {
    ActionTopic {
        action: Uuid::from_u128(action),
        user,
        key: key.into(),
        relevance,
    }
}

#[test]
fn the_documents_evidence_separates_people_of_equal_standings() {
    let s = Scoring::default();
    let (whole, parts, other) = (user(1), user(2), user(3));
    // Both stand equally on both words (the standings given), but one
    // person's actions match the query better.
    let rows = vec![
        standing(whole, "quantum", 1.0, 0),
        standing(whole, "error", 1.0, 0),
        standing(parts, "quantum", 1.0, 0),
        standing(parts, "error", 1.0, 0),
        standing(other, "cook", 1.0, 0),
    ];
    let population = Population {
        people: 10,
        actions: 30,
    };
    let query = [term("quantum"), term("error")];
    let alike = rank_experts(
        &query,
        evidence(&rows, activity(&rows, 3), population),
        t(0),
        &s,
        10,
    );
    assert_eq!(alike.len(), 2);
    assert!((alike[0].score - alike[1].score).abs() < 1e-9, "{alike:?}");

    let mut with_actions = evidence(&rows, activity(&rows, 3), population);
    with_actions.actions = vec![
        action_topic(1, whole, "quantum", 1.0),
        action_topic(1, whole, "error", 1.0),
        action_topic(2, parts, "quantum", 0.5),
        action_topic(3, parts, "error", 0.5),
        action_topic(4, other, "cook", 1.0),
    ];
    let ranked = rank_experts(&query, with_actions, t(0), &s, 10);
    assert_eq!(ranked.len(), 2, "only people who know a query topic");
    assert_eq!(ranked[0].user, whole, "{ranked:?}");
    assert!(ranked[0].score > ranked[1].score);
    // The documents' evidence is the person's own: it only adds.
    assert!(ranked[0].score > alike[0].score);
    assert!(ranked[1].score > alike[1].score);
}

#[test]
fn only_the_best_actions_earn_document_evidence() {
    let s = Scoring::default();
    let (prolific, precise) = (user(1), user(2));
    let rows = vec![
        standing(prolific, "rust", 1.0, 0),
        standing(precise, "rust", 1.0, 0),
    ];
    let population = Population {
        people: 10,
        actions: 500,
    };
    let without = rank_experts(
        &[term("rust")],
        evidence(&rows, activity(&rows, 1), population),
        t(0),
        &s,
        10,
    );
    let mut evidence = evidence(&rows, activity(&rows, 1), population);
    let counted = usize::try_from(ACTIONS_COUNTED).unwrap();
    // The precise person's actions are the best `ACTIONS_COUNTED`; the
    // prolific person's many weak ones come after them and count for
    // nothing.
    evidence.actions = (0..counted as u128)
        .map(|a| action_topic(a, precise, "rust", 1.0))
        .chain((0..400).map(|a| action_topic(1000 + a, prolific, "rust", 0.5)))
        .collect();
    let ranked = rank_experts(&[term("rust")], evidence, t(0), &s, 10);
    assert_eq!(ranked[0].user, precise, "{ranked:?}");
    assert!(
        (ranked[1].score - without[0].score).abs() < 1e-9,
        "the weak actions add nothing: {ranked:?}"
    );
}

#[test]
fn a_query_reading_shares_the_score_among_the_written_topics() {
    let query = [term("k8s"), term("quantum"), term("error")];
    let knowing = HashMap::from([("quantum".to_owned(), 2), ("error".to_owned(), 40)]);
    let population = Population {
        people: 50,
        actions: 500,
    };
    let read = read_query(&query, &knowing, population);
    let keys: Vec<&str> = read.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(
        keys,
        ["quantum", "error", "k8s"],
        "rarer first, unknown last"
    );
    let shares: f64 = read.iter().map(|t| t.share).sum();
    assert!((shares - 1.0).abs() < 1e-12, "{read:?}");
    // A word nobody learned weighs as much as one a single person did,
    // more than one two people did: the share nobody covers.
    assert_eq!(read[2].people, 0);
    assert!(read[2].share > read[0].share, "{read:?}");
    assert!(read[0].share > 5.0 * read[1].share, "{read:?}");
    let nobody = read_query(&[term("k8s")], &HashMap::new(), Population::default());
    assert_eq!(nobody[0].share, 1.0, "{nobody:?}");
    let phrase = read_query(
        &[term("quantum"), term("quantum chromodynam")],
        &knowing,
        population,
    );
    assert_eq!(
        phrase[0].share, 1.0,
        "a phrase nobody learned adds no weight"
    );
    assert_eq!(phrase[1].share, 0.0);
}

#[test]
fn unjudged_words_rank_alone_key_phrases_and_names_are_shown() {
    let s = Scoring::default();
    let judged = |words_judged| TextTrace {
        descriptor: Descriptor::Default,
        words_judged,
        phrases: vec![
            written("helm chart", "helm charts", 1.0),
            written("pod", "pods", 0.5),
            written("kubernet", "Kubernetes", 0.4),
        ],
        words: vec![
            word("helm", "Helm", 3),
            word("run", "running", 2),
            word("pod", "pods", 2),
            word("chart", "charts", 1),
        ],
    };
    let judged_later: Vec<bool> = entity_topics(&[judged(true)], &s)
        .into_iter()
        .map(|t| t.shown)
        .collect();
    assert!(judged_later.iter().all(|shown| *shown), "judged when read");
    let shown: HashMap<String, bool> = entity_topics(&[judged(false)], &s)
        .into_iter()
        .map(|t| (t.key, t.shown))
        .collect();
    assert!(shown["helm chart"], "a key phrase");
    assert!(!shown["pod"], "a one-word key phrase, not a name");
    assert!(shown["kubernet"], "a one-word key phrase written as a name");
    assert!(shown["helm"], "a name");
    assert!(!shown["run"]);
    assert!(!shown["chart"], "inside a phrase, not one itself");
}

#[test]
fn a_label_keeps_its_place_until_another_has_outweighed_it() {
    let upload = |label: &str, shown| EntityTopic {
        key: "helm".into(),
        label: label.into(),
        by_descriptor: [0.0, 1.0, 0.0],
        shown,
    };
    let mut held = TopicLabel::first(&upload("Helm", false), 2.0);
    let mut lead = |label, weight, shown| {
        held.learn(&upload(label, shown), weight);
        (held.label.clone(), held.votes, held.shown)
    };
    assert_eq!(
        lead("helm", 1.0, false),
        ("Helm".into(), 1.0, false),
        "a form used less"
    );
    assert_eq!(
        lead("Helm", 0.5, true),
        ("Helm".into(), 1.5, true),
        "shown once, shown"
    );
    assert_eq!(
        lead("helm", 2.0, false),
        ("helm".into(), 0.5, true),
        "outweighed"
    );
    assert_eq!(lead("Helm", 0.5, false).0, "helm", "a tie keeps the place");
}

#[test]
fn a_related_topic_shows_the_label_written_most() {
    let mut found = commonest_labels([
        ("bake".to_owned(), "bakes".to_owned(), 1),
        ("bake".to_owned(), "baking".to_owned(), 3),
        ("helm".to_owned(), "helm".to_owned(), 2),
        ("helm".to_owned(), "Helm".to_owned(), 2),
    ]);
    found.sort();
    assert_eq!(
        found,
        [
            ("bake".to_owned(), "baking".to_owned(), 4),
            ("helm".to_owned(), "Helm".to_owned(), 4),
        ]
    );
}

fn taught(key: &str, label: &str, primary: f64, shown: bool) -> EntityTopic {
    EntityTopic {
        key: key.into(),
        label: label.into(),
        by_descriptor: [primary, 0.0, 0.0],
        shown,
    }
}

#[test]
fn a_first_holding_is_the_contribution_as_of_the_action() {
    let s = Scoring::default();
    let helm = taught("helm", "Helm", 2.0, true);
    let held = Holding::learn(None, &helm, "view", t(3), &s);
    assert_eq!(held.standing.score, s.contribution("view", &helm));
    assert_eq!(held.standing.as_of, t(3));
    assert_eq!(held.label, TopicLabel::first(&helm, held.standing.score));
}

#[test]
fn a_later_action_adds_its_contribution_and_votes_for_its_label() {
    let s = Scoring::default();
    let helm = taught("helm", "Helm", 2.0, false);
    let lower = taught("helm", "helm", 1.0, true);
    let first = Holding::learn(None, &helm, "view", t(0), &s);
    let after = Holding::learn(Some(first.clone()), &lower, "view", t(365), &s);
    let contribution = s.contribution("view", &lower);
    assert_eq!(
        after.standing,
        first.standing.add(contribution, t(365), &s),
        "the standing adds the contribution after decaying to the action"
    );
    let mut label = first.label;
    label.learn(&lower, contribution);
    assert_eq!(after.label, label);
    assert!(after.label.shown, "shown by one upload, shown");
}

#[test]
fn a_lesson_learns_each_topic_and_names_those_new_to_the_person() {
    let s = Scoring::default();
    let helm = taught("helm", "Helm", 2.0, true);
    let chart = taught("chart", "chart", 1.0, true);
    let before = HashMap::from([(
        "helm".to_owned(),
        Holding::learn(None, &helm, "view", t(0), &s),
    )]);
    let lesson = Lesson::of(
        "edit",
        t(1),
        &[helm.clone(), chart.clone()],
        before.clone(),
        &s,
    );
    assert_eq!(lesson.first_known, vec!["chart".to_owned()]);
    assert_eq!(
        lesson.holdings,
        vec![
            (
                "helm".to_owned(),
                Holding::learn(before.get("helm").cloned(), &helm, "edit", t(1), &s)
            ),
            (
                "chart".to_owned(),
                Holding::learn(None, &chart, "edit", t(1), &s)
            ),
        ]
    );
}

#[test]
fn a_key_taught_twice_by_one_action_is_one_holding_learned_twice() {
    let s = Scoring::default();
    let helm = taught("helm", "Helm", 2.0, true);
    let lesson = Lesson::of(
        "view",
        t(0),
        &[helm.clone(), helm.clone()],
        HashMap::new(),
        &s,
    );
    let once = Holding::learn(None, &helm, "view", t(0), &s);
    assert_eq!(lesson.first_known, vec!["helm".to_owned()]);
    assert_eq!(
        lesson.holdings,
        vec![(
            "helm".to_owned(),
            Holding::learn(Some(once), &helm, "view", t(0), &s)
        )]
    );
}

/// A learned topic a query reached through its meaning.
fn reached(key: &str, weight: f64, similarity: f64) -> QueryTerm {
    QueryTerm {
        key: key.into(),
        label: key.into(),
        weight,
        similarity: Some(similarity),
    }
}

#[test]
fn a_topic_reached_by_meaning_finds_its_people_when_the_query_writes_none_learned() {
    let s = Scoring::default();
    let (mechanic, baker) = (user(1), user(2));
    let rows = vec![
        standing(mechanic, "car", 5.0, 0),
        standing(baker, "bread", 5.0, 0),
    ];
    let population = Population {
        people: 2,
        actions: 20,
    };
    let query = vec![term("automobil"), reached("car", 0.4, 0.86)];
    let ranked = rank_experts(
        &query,
        evidence(&rows, activity(&rows, 10), population),
        t(0),
        &s,
        10,
    );
    assert_eq!(ranked.len(), 1, "{ranked:?}");
    assert_eq!(ranked[0].user, mechanic);
    assert_eq!(ranked[0].topics[0].key, "car", "the reached topic says why");
    assert!(ranked[0].score > 0.0);
}

#[test]
fn a_reached_topic_only_adds_to_the_topics_the_query_writes() {
    let s = Scoring::default();
    let (exact, near, both) = (user(1), user(2), user(3));
    let mut rows = vec![
        standing(exact, "helm", 8.0, 0),
        standing(near, "kubernet", 8.0, 0),
        standing(both, "helm", 8.0, 0),
        standing(both, "kubernet", 8.0, 0),
    ];
    for n in 10..20 {
        rows.push(standing(user(n), "python", 1.0, 0));
    }
    let population = Population {
        people: 13,
        actions: 130,
    };
    let query = vec![term("helm"), reached("kubernet", 0.4, 0.8)];
    let ranked = rank_experts(
        &query,
        evidence(&rows, activity(&rows, 10), population),
        t(0),
        &s,
        10,
    );
    let score = |u: UserId| ranked.iter().find(|e| e.user == u).map(|e| e.score);
    let (exact, near, both) = (score(exact), score(near), score(both));
    assert!(exact > near, "exact matches count most: {ranked:?}");
    assert!(both >= exact, "what is near adds: {ranked:?}");
    assert!(
        near.is_some_and(|s| s > 0.0),
        "what is near is found: {ranked:?}"
    );
    assert!(ranked.iter().all(|e| e.score <= 100.0));
}

#[test]
fn a_reading_shows_reached_topics_beside_the_written_shares() {
    let query = vec![term("helm"), term("chart"), reached("kubernet", 0.3, 0.7)];
    let knowing = HashMap::from([
        ("helm".to_owned(), 2),
        ("chart".to_owned(), 2),
        ("kubernet".to_owned(), 2),
    ]);
    let population = Population {
        people: 10,
        actions: 100,
    };
    let read = read_query(&query, &knowing, population);
    let written: f64 = read
        .iter()
        .filter(|t| t.similarity.is_none())
        .map(|t| t.share)
        .sum();
    assert!((written - 1.0).abs() < 1e-9, "{read:?}");
    let kubernetes = read.iter().find(|t| t.key == "kubernet").unwrap();
    assert_eq!(kubernetes.similarity, Some(0.7));
    assert!((kubernetes.share - 0.3 / 2.0).abs() < 1e-9, "{read:?}");

    let only_reached = read_query(&query[2..], &knowing, population);
    assert!(
        (only_reached[0].share - 1.0).abs() < 1e-9,
        "{only_reached:?}"
    );
    // The subject is held through a written topic somebody learned, never
    // through meaning alone, nor through written topics nobody learned.
    assert!(subject_known(&read));
    assert!(!subject_known(&only_reached));
    let unlearned = read_query(
        &[term("quantum"), term("chromodynam")],
        &knowing,
        population,
    );
    assert!(!subject_known(&unlearned));
}

/// The people of `rows` with `per_topic` actions each on every topic
/// they stand on, at relevance 1.
fn actions_of(rows: &[TopicStanding], per_topic: u128) -> Vec<ActionTopic> {
    let mut actions = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for a in 0..per_topic {
            actions.push(action_topic(i as u128 * 1000 + a, row.user, &row.key, 1.0));
        }
    }
    actions
}

#[test]
fn a_subject_reached_only_through_meaning_scores_below_50() {
    let s = Scoring::default();
    let (mechanic, baker) = (user(1), user(2));
    let rows = vec![
        standing(mechanic, "car", 20.0, 0),
        standing(baker, "bread", 20.0, 0),
    ];
    let population = Population {
        people: 2,
        actions: 200,
    };
    // However near and however much the evidence, a person found through
    // meaning alone is the nearest there is, not someone who knows.
    for similarity in [0.75, 0.9, 0.99] {
        let mut evidence = evidence(&rows, activity(&rows, 100), population);
        evidence.actions = actions_of(&rows, 100);
        let query = vec![term("automobil"), reached("car", 0.5, similarity)];
        let ranked = rank_experts(&query, evidence, t(0), &s, 10);
        assert_eq!(ranked[0].user, mechanic, "{ranked:?}");
        assert!(ranked[0].score < 50.0, "{similarity}: {ranked:?}");
    }
}

#[test]
fn one_word_of_a_longer_query_is_a_weak_answer() {
    let s = Scoring::default();
    let physicist = user(1);
    let mut rows = vec![standing(physicist, "quantum", 20.0, 0)];
    for n in 10..20 {
        rows.push(standing(user(n), "tax", 5.0, 0));
    }
    let population = Population {
        people: 11,
        actions: 200,
    };
    let mut evidence = evidence(&rows, activity(&rows, 20), population);
    evidence.actions = actions_of(&rows, 20);
    // Nobody learned "chromodynamics", nor the phrase.
    let query = vec![
        term("quantum"),
        term("chromodynam"),
        term("quantum chromodynam"),
    ];
    let ranked = rank_experts(&query, evidence.clone(), t(0), &s, 10);
    assert_eq!(ranked.len(), 1, "{ranked:?}");
    assert!(ranked[0].score < 50.0, "{ranked:?}");
    let alone = rank_experts(&[term("quantum")], evidence, t(0), &s, 10);
    assert!(
        alone[0].score >= 80.0,
        "the word alone is covered: {alone:?}"
    );
}

#[test]
fn a_sole_expert_on_both_words_of_a_subject_scores_at_least_80() {
    let s = Scoring::default();
    let librarian = user(1);
    // Five uploads' worth about the knowledge base: the phrase and both
    // of its words.
    let mut rows = vec![
        standing(librarian, "knowledg base", 5.0, 0),
        standing(librarian, "knowledg", 5.0, 0),
        standing(librarian, "base", 5.0, 0),
    ];
    // "base" is a common word: many others hold it a little.
    for n in 10..40 {
        rows.push(standing(user(n), "base", 1.0, 0));
        rows.push(standing(user(n), "support", 4.0, 0));
    }
    let population = Population {
        people: 31,
        actions: 600,
    };
    let mut evidence = evidence(&rows, activity(&rows, 20), population);
    evidence.actions = actions_of(&rows[..3], 5);
    let query = vec![term("knowledg"), term("base"), term("knowledg base")];
    let ranked = rank_experts(&query, evidence, t(0), &s, 10);
    assert_eq!(ranked[0].user, librarian, "{ranked:?}");
    assert!(ranked[0].score >= 80.0, "{ranked:?}");
    assert!(
        ranked.iter().skip(1).all(|e| e.score < 50.0),
        "holding the common word alone is a weak answer: {ranked:?}"
    );
}

fn scored(key: &str, score: f64) -> ScoredTopic {
    ScoredTopic {
        key: key.into(),
        label: key.into(),
        score,
        shown: true,
    }
}

#[test]
fn a_profile_puts_what_sets_a_person_apart_before_what_everybody_holds() {
    let population = Population {
        people: 40,
        actions: 4000,
    };
    let knowing: HashMap<String, u64> = [("team", 38), ("kubernet", 3), ("helm chart", 1)]
        .into_iter()
        .map(|(k, n)| (k.to_owned(), n))
        .collect();
    let mut topics = vec![
        scored("team", 9.0),
        scored("kubernet", 6.0),
        scored("helm chart", 2.0),
    ];
    profile_order(&mut topics, &knowing, population);
    let keys: Vec<&str> = topics.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(keys, ["kubernet", "helm chart", "team"]);
    assert_eq!(topics[2].score, 9.0, "the scores stay the standings");

    // Alone in the organisation, a person's profile is their standings.
    let alone = Population {
        people: 1,
        actions: 10,
    };
    let knowing: HashMap<String, u64> = ["team", "kubernet", "helm chart"]
        .into_iter()
        .map(|k| (k.to_owned(), 1))
        .collect();
    profile_order(&mut topics, &knowing, alone);
    let keys: Vec<&str> = topics.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(keys, ["team", "kubernet", "helm chart"]);
}
