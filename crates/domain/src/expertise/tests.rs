use chrono::TimeZone;
use uuid::Uuid;

use super::*;

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

#[test]
fn entity_topics_weigh_texts_by_descriptor() {
    let s = Scoring::default();
    let topics = entity_topics(
        &[
            (Descriptor::Primary, vec![topic("rust", 1.0)]),
            (
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
fn a_phrase_also_teaches_its_boundary_words() {
    let s = Scoring::default();
    let phrase = |key: &str, label: &str, relevance| Topic {
        key: key.into(),
        label: label.into(),
        relevance,
    };
    let topics = entity_topics(
        &[(
            Descriptor::Default,
            vec![
                phrase("kubernet cluster", "Kubernetes clusters", 1.0),
                phrase("philosophi of mind", "philosophy of mind", 0.8),
                phrase("kubernet", "kubernetes", 0.1),
                phrase("state-of-the-art", "state-of-the-art", 0.2),
            ],
        )],
        &s,
    );
    let relevance = |key: &str| {
        topics
            .iter()
            .find(|t| t.key == key)
            .map(|t| (t.label.clone(), t.relevance(&s)))
    };
    let (label, r) = relevance("kubernet").unwrap();
    assert_eq!(label, "Kubernetes", "the largest contribution names it");
    assert!((r - (0.1 + 0.5 * 1.0)).abs() < 1e-12);
    assert!((relevance("cluster").unwrap().1 - 0.5).abs() < 1e-12);
    assert!((relevance("mind").unwrap().1 - 0.4).abs() < 1e-12);
    assert!(relevance("of").is_none(), "inner words teach nothing");
    assert!(relevance("philosophi").is_some());
    assert_eq!(topics.len(), 7);
    assert_eq!(topics[0].key, "kubernet cluster");
}

#[test]
fn a_query_is_matched_on_its_phrases_and_their_boundary_words() {
    let found = [
        Topic {
            key: "tax return".into(),
            label: "tax returns".into(),
            relevance: 1.0,
        },
        Topic {
            key: "tax".into(),
            label: "tax".into(),
            relevance: 0.2,
        },
    ];
    let topics = query_topics(&found);
    let keys: Vec<(&str, f64)> = topics
        .iter()
        .map(|t| (t.key.as_str(), t.relevance))
        .collect();
    assert_eq!(keys, [("tax return", 1.0), ("return", 0.5), ("tax", 0.5)]);
}

#[test]
fn experts_are_ranked_by_their_summed_scores() {
    let s = Scoring::default();
    let ada = UserId::from_uuid(Uuid::from_u128(1));
    let bob = UserId::from_uuid(Uuid::from_u128(2));
    let standing = |user, key: &str, score, day| TopicStanding {
        user,
        key: key.into(),
        label: key.into(),
        standing: Standing {
            score,
            as_of: t(day),
        },
    };
    let rows = vec![
        standing(ada, "rust", 1.0, 0),
        standing(ada, "cargo", 1.0, 0),
        standing(bob, "rust", 3.0, -730),
        standing(bob, "python", 9.0, 0),
    ];
    let ranked = rank_experts(
        &[topic("rust", 1.0), topic("cargo", 0.5)],
        rows,
        t(0),
        &s,
        10,
    );
    assert_eq!(ranked.len(), 2);
    assert_eq!(ranked[0].user, ada);
    assert!((ranked[0].score - 1.5).abs() < 1e-9);
    assert_eq!(ranked[0].topics.len(), 2);
    assert_eq!(ranked[1].user, bob);
    assert!((ranked[1].score - 0.75).abs() < 1e-9);
    assert_eq!(ranked[1].topics.len(), 1, "python is not part of the query");
    assert_eq!(
        rank_experts(
            &[topic("rust", 1.0)],
            vec![standing(ada, "rust", 1.0, 0)],
            t(0),
            &s,
            0
        ),
        vec![]
    );
}
