//! What `score` promises a reader (docs/expertise.md, "What a score
//! means"), checked on every store: the uploads go through the store, the
//! evidence is read back from it and ranked by the domain's rule, as
//! `experts` does.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{rank_experts, Expert, QueryTerm, Scoring, UserId};
use kenning_ports::{ExpertiseStore, UserStore};
use kenning_test_macros::contract_check;

use super::{action, adapters, by, new_user, now, Store};

const QUERY: [&str; 3] = ["helm", "chart", "helm chart"];

fn query() -> Vec<QueryTerm> {
    QUERY
        .iter()
        .map(|key| QueryTerm {
            key: (*key).into(),
            label: (*key).into(),
            weight: 1.0,
            similarity: None,
            reread: false,
        })
        .collect()
}

/// `experts` for [`QUERY`] a day after the first uploads.
fn experts(store: &dyn ExpertiseStore) -> Vec<Expert> {
    let scoring = Scoring::default();
    let keys: Vec<String> = QUERY.iter().map(|k| (*k).to_owned()).collect();
    let evidence = store.evidence(&keys, 300, 100, &scoring).unwrap();
    rank_experts(
        &query(),
        evidence,
        now() + Duration::days(30),
        &scoring,
        100,
    )
}

fn score(store: &dyn ExpertiseStore, user: UserId) -> f64 {
    experts(store)
        .into_iter()
        .find(|e| e.user == user)
        .map_or(0.0, |e| e.score)
}

/// Registers a person; returns the id and the e-mail they upload under.
fn person(store: &dyn UserStore, name: &str) -> (UserId, String) {
    let email = format!("{name}@example.com");
    let user = new_user(&email, name, "Tester", None);
    store.insert(&user, &by()).unwrap();
    (user.id(), email)
}

/// Records one upload of `email` on `day` teaching `topics`.
fn upload(store: &dyn ExpertiseStore, email: &str, day: i64, topics: &[(&str, f64)]) {
    store
        .record(&action(email, None, day, topics), &Scoring::default())
        .unwrap();
}

/// An upload about Helm charts, each topic as relevant as `relevance`.
fn helm(relevance: f64) -> Vec<(&'static str, f64)> {
    QUERY.iter().map(|k| (*k, relevance)).collect()
}

/// A sole, undisputed expert who covers every topic of the query strongly
/// (several uploads about them) scores at least 80; somebody who once
/// touched one of its words scores far less.
#[contract_check]
fn a_strong_cover_of_every_topic_scores_at_least_80(store: Arc<impl Store>) {
    let (kai, kai_mail) = person(&*store, "kai");
    let (bob, bob_mail) = person(&*store, "bob");
    let (_, cy_mail) = person(&*store, "cy");
    for day in 0..8 {
        upload(&*store, &kai_mail, day, &helm(1.0));
    }
    upload(&*store, &bob_mail, 0, &[("chart", 0.4), ("sales", 1.0)]);
    for day in 0..3 {
        upload(&*store, &cy_mail, day, &[("sourdough", 1.0)]);
    }
    let ranked = experts(&*store);
    assert_eq!(ranked[0].user, kai, "{ranked:?}");
    assert!(ranked[0].score >= 80.0, "{ranked:?}");
    let bob_score = score(&*store, bob);
    assert!(bob_score > 0.0 && bob_score < 30.0, "{ranked:?}");
}

/// More evidence on the query's topics, strong or weak, never lowers a
/// person's score.
#[contract_check]
fn more_evidence_on_the_query_never_lowers_a_score(store: Arc<impl Store>) {
    let (kai, kai_mail) = person(&*store, "kai");
    let (_, ann_mail) = person(&*store, "ann");
    upload(&*store, &ann_mail, 0, &helm(1.0));
    upload(&*store, &ann_mail, 1, &[("helm", 0.6), ("kubernetes", 1.0)]);
    upload(&*store, &kai_mail, 0, &[("kubernetes", 1.0), ("pods", 0.5)]);
    let mut before = score(&*store, kai);
    let relevances = [1.0, 0.3, 1.0, 0.5, 0.2, 0.9, 1.0, 0.4];
    for (day, relevance) in relevances.into_iter().enumerate() {
        let day = i64::try_from(day).unwrap() + 1;
        upload(&*store, &kai_mail, day, &helm(relevance));
        let after = score(&*store, kai);
        assert!(
            after >= before - 1e-9,
            "upload {day} ({relevance}) lowered {before} to {after}"
        );
        before = after;
    }
    assert!(before > 50.0, "{before}");
}

/// Uploads by others on other topics move a person's score by less than a
/// point (only through how specific the query's topics are).
#[contract_check]
fn others_uploads_on_other_topics_barely_move_a_score(store: Arc<impl Store>) {
    let (kai, kai_mail) = person(&*store, "kai");
    let (_, ann_mail) = person(&*store, "ann");
    for day in 0..3 {
        upload(&*store, &kai_mail, day, &helm(0.8));
    }
    upload(&*store, &ann_mail, 0, &[("helm", 0.5), ("go", 1.0)]);
    let before = score(&*store, kai);
    for (name, topic) in [("ben", "sourdough"), ("tia", "vat"), ("uma", "payments")] {
        let (_, mail) = person(&*store, name);
        for day in 0..12 {
            upload(&*store, &mail, day, &[(topic, 1.0), ("bakery", 0.5)]);
        }
    }
    let after = score(&*store, kai);
    assert!((after - before).abs() < 1.0, "{before} became {after}");
}

/// A person's own uploads on other subjects neither raise nor lower her
/// score: an area's maintainer, whose work on it is a small part of all
/// she uploads, stays above someone who touched it less.
#[contract_check]
fn ones_own_uploads_on_other_subjects_do_not_move_ones_score(store: Arc<impl Store>) {
    let (kai, kai_mail) = person(&*store, "kai");
    let (ann, ann_mail) = person(&*store, "ann");
    for day in 0..3 {
        upload(&*store, &kai_mail, day, &helm(0.8));
    }
    for day in 0..2 {
        upload(&*store, &ann_mail, day, &helm(0.8));
    }
    let before = score(&*store, kai);
    for day in 0..60 {
        upload(
            &*store,
            &kai_mail,
            day % 20,
            &[("kernel", 1.0), ("drivers", 0.5)],
        );
    }
    let after = score(&*store, kai);
    assert!((after - before).abs() < 1e-9, "{before} became {after}");
    let ranked: Vec<UserId> = experts(&*store).into_iter().map(|e| e.user).collect();
    assert_eq!(ranked, [kai, ann]);
}

/// A list is ordered by the score it shows, and every score is on the
/// 0 to 100 scale.
#[contract_check]
fn a_list_is_ordered_by_its_score(store: Arc<impl Store>) {
    for (n, relevance) in [0.2, 1.0, 0.5, 0.8, 0.3].into_iter().enumerate() {
        let (_, mail) = person(&*store, &format!("p{n}"));
        for day in 0..=i64::try_from(n).unwrap() {
            upload(&*store, &mail, day, &helm(relevance));
            upload(&*store, &mail, day, &[("other", 1.0)]);
        }
    }
    let ranked = experts(&*store);
    assert_eq!(ranked.len(), 5);
    assert!(
        ranked.windows(2).all(|w| w[0].score >= w[1].score),
        "{ranked:?}"
    );
    assert!(ranked.iter().all(|e| e.score > 0.0 && e.score <= 100.0));
}

/// Time takes at most four half-lives off a standing: a subject's early
/// author who wrote twenty times as much as anyone since keeps a sixteenth
/// of her standing on each topic and stays first, and one who wrote as
/// little as the newcomer comes after her.
#[contract_check]
fn a_subjects_early_authors_are_lowered_not_erased(store: Arc<impl Store>) {
    let (ida, ida_mail) = person(&*store, "ida");
    let (cy, cy_mail) = person(&*store, "cy");
    let (new, new_mail) = person(&*store, "new");
    for day in -3660..-3640 {
        upload(&*store, &ida_mail, day, &helm(1.0));
    }
    upload(&*store, &cy_mail, -3650, &helm(1.0));
    upload(&*store, &new_mail, 0, &helm(1.0));
    let ranked = experts(&*store);
    let users: Vec<UserId> = ranked.iter().map(|e| e.user).collect();
    assert_eq!(users, [ida, new, cy]);
    // Her standing on each of the three topics, as of her last upload,
    // is the sum of her twenty uploads' decayed to it.
    let standing: f64 = (0..20).map(|k| 0.5_f64.powf(f64::from(k) / 365.0)).sum();
    let expected = 3.0 * standing / 16.0;
    assert!(
        (ranked[0].raw_score - expected).abs() < expected * 1e-6,
        "{} against {expected}",
        ranked[0].raw_score
    );
}
