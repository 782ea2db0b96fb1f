//! What topics reached through meaning may do in an answer: find the
//! nearest people when nobody holds the subject as the query writes it,
//! and otherwise weigh strictly below the written subject. Whoever is
//! found through meaning alone is listed after everyone who holds a
//! written topic, and never scores 50 ("this is the person").

use super::term::{learned_weight, QueryTerm};

/// How much the topics a query reaches through meaning weigh together, at
/// most, against the learned topics it writes: a half. The same subject
/// in other words still helps (a person who wrote "kubernetes" beside
/// "helm" for a question about "helm" and "k8s"), but however many topics
/// meaning reaches, they never outweigh what the question says.
pub(super) const REACHED_BESIDE: f64 = 0.5;

/// What a score found through meaning alone is multiplied by when
/// somebody holds the subject as the query writes it: the neighbours in
/// meaning are listed after them, as the nearest Kenning has.
pub(super) const MEANING_ALONE: f64 = 0.49;

/// The most a score found through meaning alone reaches when nobody holds
/// the subject as written: under 50 however near the meaning and however
/// much the evidence, so that the nearest in meaning (the same subject
/// asked in another language, say) never reads as someone who knows,
/// while their order and their distance from the floor of a lead stay.
pub(super) const MEANING_ALONE_CEILING: f64 = 49.0;

/// `query` with the weights of its reached topics scaled down together,
/// when they carry more than [`REACHED_BESIDE`] of the weight of the
/// learned topics it writes (weight times `idf_of`, `None` when nobody
/// learned the topic). A query that writes no learned topic keeps its
/// reached topics' weights: meaning is all there is to go on.
pub(super) fn weigh_reached(
    query: &[QueryTerm],
    idf_of: impl Fn(&str) -> Option<f64>,
) -> Vec<QueryTerm> {
    let (written, reached) = (
        learned_weight(query, &idf_of, true),
        learned_weight(query, &idf_of, false),
    );
    let most = REACHED_BESIDE * written;
    let factor = if written > 0.0 && reached > most {
        most / reached
    } else {
        1.0
    };
    query
        .iter()
        .map(|t| QueryTerm {
            weight: if t.written() {
                t.weight
            } else {
                t.weight * factor
            },
            ..t.clone()
        })
        .collect()
}

/// How an answer's people are scored once each is scored on its own and
/// ordered (those who hold a topic the query writes first): when
/// somebody holds the subject as written (`subject_held`), whoever was
/// found through meaning alone scores [`MEANING_ALONE`] of their score
/// and never above the lowest score of someone who holds a written topic;
/// when nobody does, at most [`MEANING_ALONE_CEILING`]. `scores` holds
/// each person's score and whether they were found through meaning alone.
pub(super) fn meaning_after_written(scores: &mut [(f64, bool)], subject_held: bool) {
    let lowest_written = scores
        .iter()
        .filter(|(_, meaning)| !meaning)
        .map(|(score, _)| *score)
        .fold(f64::INFINITY, f64::min);
    for (score, _) in scores.iter_mut().filter(|(_, meaning)| *meaning) {
        *score = if subject_held {
            (*score * MEANING_ALONE).min(lowest_written)
        } else {
            score.min(MEANING_ALONE_CEILING)
        };
    }
}
