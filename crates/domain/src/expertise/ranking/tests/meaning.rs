//! What topics reached through meaning may do in an answer.

use super::*;

/// A learned topic a query reached through its meaning.
fn reached(key: &str, weight: f64, similarity: f64) -> QueryTerm {
    QueryTerm {
        key: key.into(),
        label: key.into(),
        weight,
        similarity: Some(similarity),
        reread: false,
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
    let ranked = rank_experts(&query, evidence(&rows, population), t(0), &s, 10);
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
    let ranked = rank_experts(&query, evidence(&rows, population), t(0), &s, 10);
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
        let mut evidence = evidence(&rows, population);
        evidence.actions = actions_of(&rows, 100);
        let query = vec![term("automobil"), reached("car", 0.5, similarity)];
        let ranked = rank_experts(&query, evidence, t(0), &s, 10);
        assert_eq!(ranked[0].user, mechanic, "{ranked:?}");
        assert!(ranked[0].score < 50.0, "{similarity}: {ranked:?}");
    }
}

/// The evidence of [`plutus_and_the_kernel`], each with `actions`
/// actions on every topic they stand on, and the people.
fn plutus_evidence(actions: u128) -> (Evidence, [UserId; 5]) {
    let (rows, people) = plutus_and_the_kernel();
    let population = Population {
        people: 35,
        actions: 700,
    };
    let mut evidence = evidence(&rows, population);
    evidence.actions = actions_of(&rows, actions);
    (evidence, people)
}

/// Three people who wrote about PlutusTx a little, and two who wrote a
/// great deal about CLOEXEC, which the question reaches by meaning.
fn plutus_and_the_kernel() -> (Vec<StoredStanding>, [UserId; 5]) {
    let people = [user(1), user(2), user(3), user(4), user(5)];
    let mut rows = vec![
        standing(people[0], "plutustx", 2.0, 0),
        standing(people[1], "plutustx", 1.5, 0),
        standing(people[2], "plutustx", 1.0, 0),
        standing(people[3], "cloexec", 40.0, 0),
        standing(people[4], "cloexec", 30.0, 0),
    ];
    for n in 10..40 {
        rows.push(standing(user(n), "rust", 3.0, 0));
    }
    (rows, people)
}

#[test]
fn whoever_wrote_the_subject_comes_before_anyone_reached_through_meaning() {
    let s = Scoring::default();
    let (evidence, people) = plutus_evidence(20);
    // The meaning layer reached CLOEXEC as the same subject: weight 1.
    let query = vec![term("plutustx"), reached("cloexec", 1.0, 0.53)];
    let ranked = rank_experts(&query, evidence, t(0), &s, 10);
    let order: Vec<UserId> = ranked.iter().map(|e| e.user).collect();
    assert_eq!(order, people, "{ranked:?}");
    let lowest_writer = ranked[2].score;
    for neighbour in &ranked[3..] {
        assert!(neighbour.through_meaning, "{ranked:?}");
        assert!(neighbour.score < 50.0, "{ranked:?}");
        assert!(neighbour.score <= lowest_writer, "{ranked:?}");
    }
    assert!(ranked[..3].iter().all(|e| !e.through_meaning));
}

#[test]
fn meaning_alone_never_makes_50_however_near_and_however_much_the_evidence() {
    let s = Scoring::default();
    let (evidence, people) = plutus_evidence(200);
    // Nobody wrote "blockfrost"; meaning reaches CLOEXEC at full weight.
    let query = vec![term("blockfrost"), reached("cloexec", 1.0, 0.99)];
    let ranked = rank_experts(&query, evidence, t(0), &s, 10);
    assert_eq!(ranked[0].user, people[3], "{ranked:?}");
    assert!(ranked.iter().all(|e| e.through_meaning && e.score < 50.0));
}

#[test]
fn the_topics_reached_by_meaning_weigh_at_most_half_the_written_subject() {
    let mut query = vec![term("tablet"), term("support")];
    let mut knowing = HashMap::from([("tablet".to_owned(), 3), ("support".to_owned(), 20)]);
    for n in 0..11 {
        let key = format!("near{n}");
        query.push(reached(&key, 1.0, 0.6));
        knowing.insert(key, 1);
    }
    let population = Population {
        people: 40,
        actions: 400,
    };
    let read = read_query(&query, &knowing, population);
    let sum = |written: bool| -> f64 {
        read.iter()
            .filter(|t| t.similarity.is_none() == written)
            .map(|t| t.share)
            .sum()
    };
    assert!((sum(true) - 1.0).abs() < 1e-9, "{read:?}");
    assert!(sum(false) <= 0.5 + 1e-9, "{read:?}");
    assert!(sum(false) > 0.4, "meaning still helps: {read:?}");
}
