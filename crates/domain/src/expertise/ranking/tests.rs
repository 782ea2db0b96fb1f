use super::*;
use crate::expertise::fixtures::{t, word};
use crate::expertise::Standing;

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

fn standing(user: UserId, key: &str, score: f64, day: i64) -> StoredStanding {
    StoredStanding {
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
        reread: false,
    }
}

fn user(n: u128) -> UserId {
    UserId::from_uuid(Uuid::from_u128(n))
}

/// The evidence of `rows`, each topic known by as many as have a row.
fn evidence(rows: &[StoredStanding], population: Population) -> Evidence {
    let mut knowing = HashMap::new();
    for row in rows {
        *knowing.entry(row.key.clone()).or_default() += 1;
    }
    Evidence {
        standings: rows.to_vec(),
        knowing,
        population,
        actions: Vec::new(),
        hidden: HashSet::new(),
        declared: HashSet::new(),
    }
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
    let ranked = rank_experts(&query, evidence(&rows, population), t(0), &s, 10);
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
fn the_one_who_wrote_most_on_a_subject_comes_first() {
    // An area's maintainer, whose work on it is one part of much else,
    // and a contributor who touched it a few times: what else the
    // maintainer wrote does not sink her below the contributor.
    let s = Scoring::default();
    let (maintainer, contributor) = (user(1), user(2));
    let mut rows = vec![
        standing(maintainer, "input", 21.8, 0),
        standing(contributor, "input", 3.55, 0),
    ];
    for n in 3..12 {
        rows.push(standing(user(n), "input", 1.0, 0));
    }
    let population = Population {
        people: 600,
        actions: 6000,
    };
    let ranked = rank_experts(&[term("input")], evidence(&rows, population), t(0), &s, 10);
    assert_eq!(ranked[0].user, maintainer, "{ranked:?}");
    assert_eq!(ranked[1].user, contributor, "{ranked:?}");
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
    let mut known = evidence(&rows, population);
    known.hidden.insert((ada, "helm".to_owned()));
    let ranked = rank_experts(&[term("helm")], known.clone(), t(0), &s, 10);
    let users: Vec<UserId> = ranked.iter().map(|e| e.user).collect();
    assert_eq!(users, [bob], "{ranked:?}");
    // Her other topics still rank her.
    let ranked = rank_experts(&[term("helm"), term("rust")], known, t(0), &s, 10);
    assert!(ranked.iter().any(|e| e.user == ada), "{ranked:?}");
}

#[test]
fn a_subject_nobody_wrote_about_since_keeps_its_last_authors_whole() {
    let s = Scoring::default();
    let (ada, bob) = (user(1), user(2));
    // Ten half-lives ago, and nobody wrote about Rust since.
    let rows = vec![
        standing(ada, "rust", 30.0, -3650),
        standing(bob, "rust", 10.0, -3650),
        standing(bob, "cargo", 1.0, -3650),
    ];
    let population = Population {
        people: 20,
        actions: 200,
    };
    let rank = |rows: &[StoredStanding]| {
        rank_experts(&[term("rust")], evidence(rows, population), t(0), &s, 10)
    };
    let old = rank(&rows);
    let fresh: Vec<StoredStanding> = rows
        .iter()
        .map(|r| standing(r.user, &r.key, r.standing.score, 0))
        .collect();
    let today = rank(&fresh);
    assert_eq!(old[0].user, ada);
    assert!(today[0].score > 30.0, "{today:?}");
    assert_eq!(old, today, "what nobody wrote about since has not aged");
    assert_eq!(
        rank_experts(&[term("rust")], evidence(&rows, population), t(0), &s, 0),
        vec![]
    );
}

#[test]
fn recency_decides_between_people_active_on_a_subject() {
    let s = Scoring::default();
    let (ada, bob) = (user(1), user(2));
    // Ada wrote three times as much, ten half-lives before Bob's last.
    let rows = vec![
        standing(ada, "rust", 30.0, -3650),
        standing(bob, "rust", 10.0, -1),
    ];
    let population = Population {
        people: 20,
        actions: 200,
    };
    let ranked = rank_experts(&[term("rust")], evidence(&rows, population), t(0), &s, 10);
    let users: Vec<UserId> = ranked.iter().map(|e| e.user).collect();
    assert_eq!(users, [bob, ada], "{ranked:?}");
}

#[test]
fn a_subjects_earlier_authors_keep_a_sixteenth_of_their_standing() {
    let s = Scoring::default();
    let (ada, bob, cy) = (user(1), user(2), user(3));
    // Ada wrote twenty times as much as Bob, ten half-lives before his
    // last; Cy as much as Bob, five half-lives before him.
    let rows = |ada_day: i64| {
        vec![
            standing(ada, "rust", 200.0, ada_day),
            standing(bob, "rust", 10.0, -1),
            standing(cy, "rust", 10.0, -1826),
        ]
    };
    let population = Population {
        people: 20,
        actions: 200,
    };
    let rank = |rows: Vec<StoredStanding>| {
        rank_experts(&[term("rust")], evidence(&rows, population), t(0), &s, 10)
    };
    let ranked = rank(rows(-3650));
    let users: Vec<UserId> = ranked.iter().map(|e| e.user).collect();
    assert_eq!(users, [ada, bob, cy], "{ranked:?}");
    // Time took four half-lives off her standing, not ten.
    assert_eq!(ranked, rank(rows(-1 - 4 * 365)));
    assert_ne!(ranked, rank(rows(-1 - 3 * 365)));
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
    let alike = rank_experts(&query, evidence(&rows, population), t(0), &s, 10);
    assert_eq!(alike.len(), 2);
    assert!((alike[0].score - alike[1].score).abs() < 1e-9, "{alike:?}");

    let mut with_actions = evidence(&rows, population);
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
    let without = rank_experts(&[term("rust")], evidence(&rows, population), t(0), &s, 10);
    let mut evidence = evidence(&rows, population);
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
fn a_word_read_in_several_languages_is_one_word_of_the_query() {
    // "quantum field" read as English and again as German: the German
    // stems, which nobody learned, are other readings of the same words.
    let knowing = HashMap::from([("quantum".to_owned(), 2), ("feld".to_owned(), 3)]);
    let population = Population {
        people: 50,
        actions: 500,
    };
    let read_as = |key: &str, label: &str| QueryTerm {
        label: label.into(),
        reread: true,
        ..term(key)
    };
    let query = [
        term("quantum"),
        term("field"),
        read_as("quantu", "quantum"),
        read_as("feld", "field"),
        // A word only the second reading keeps ("the" is no German
        // function word).
        read_as("the", "the"),
    ];
    let read = read_query(&query, &knowing, population);
    let keys: Vec<&str> = read.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(keys.len(), 2, "the other readings are left out: {read:?}");
    assert!(
        keys.contains(&"quantum") && keys.contains(&"feld"),
        "{read:?}"
    );
    assert!(
        (read[0].share + read[1].share - 1.0).abs() < 1e-12,
        "{read:?}"
    );
    // A word no reading of which was learned weighs once.
    let chromodynamics = QueryTerm {
        label: "chromodynamics".into(),
        ..term("chromodynam")
    };
    let twice = read_query(
        &[
            term("quantum"),
            chromodynamics.clone(),
            read_as("chromodynamik", "chromodynamics"),
        ],
        &knowing,
        population,
    );
    let once = read_query(&[term("quantum"), chromodynamics], &knowing, population);
    assert_eq!(twice, once, "read once, as if written once");

    let s = Scoring::default();
    let physicist = user(1);
    let rows = vec![standing(physicist, "quantum", 20.0, 0)];
    let mut evidence = evidence(&rows, population);
    evidence.actions = actions_of(&rows, 20);
    let alone = rank_experts(&[term("quantum")], evidence.clone(), t(0), &s, 10);
    let again = rank_experts(
        &[
            term("quantum"),
            read_as("quantu", "quantum"),
            read_as("the", "the"),
        ],
        evidence.clone(),
        t(0),
        &s,
        10,
    );
    assert_eq!(alone, again);
    // Another word nobody learned is half of the query.
    let half = rank_experts(&[term("quantum"), term("quantu")], evidence, t(0), &s, 10);
    assert!(half[0].score < alone[0].score, "{half:?} {alone:?}");
}

/// The people of `rows` with `per_topic` actions each on every topic
/// they stand on, at relevance 1.
fn actions_of(rows: &[StoredStanding], per_topic: u128) -> Vec<ActionTopic> {
    let mut actions = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for a in 0..per_topic {
            actions.push(action_topic(i as u128 * 1000 + a, row.user, &row.key, 1.0));
        }
    }
    actions
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
    let mut evidence = evidence(&rows, population);
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
    let mut evidence = evidence(&rows, population);
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
        declared: false,
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

#[test]
fn what_most_of_a_small_company_holds_comes_after_every_subject() {
    let population = Population {
        people: 4,
        actions: 30,
    };
    let knowing: HashMap<String, u64> = [("team", 4), ("number", 3), ("payrol", 1), ("hr", 2)]
        .into_iter()
        .map(|(k, n)| (k.to_owned(), n))
        .collect();
    // Written far more often than the person's HR, but by three of four.
    let mut topics = vec![
        scored("team", 9.0),
        scored("number", 8.0),
        scored("payrol", 7.0),
        scored("hr", 1.0),
    ];
    profile_order(&mut topics, &knowing, population);
    let keys: Vec<&str> = topics.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(keys, ["payrol", "hr", "number", "team"]);

    // Two people cannot tell a common word from a shared subject.
    let pair = Population {
        people: 2,
        actions: 30,
    };
    let knowing: HashMap<String, u64> = [("team", 2), ("hr", 1)]
        .into_iter()
        .map(|(k, n)| (k.to_owned(), n))
        .collect();
    let mut topics = vec![scored("team", 9.0), scored("hr", 1.0)];
    profile_order(&mut topics, &knowing, pair);
    assert_eq!(topics[0].key, "team");
}

mod meaning;
