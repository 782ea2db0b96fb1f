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

/// What a score found through meaning alone is multiplied by: under 50
/// however near the meaning and however much the evidence, so that the
/// nearest in meaning never reads as someone who knows.
pub(super) const MEANING_ALONE: f64 = 0.49;

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

/// How an answer's people are ordered and scored once each is scored on
/// its own: those who hold a topic the query writes first, then those
/// found through meaning alone, their scores times [`MEANING_ALONE`] and
/// never above the lowest score of someone who holds a written topic.
/// `through_meaning` says of each whether it was found through meaning
/// alone; the order within each part is the one given.
pub(super) fn meaning_after_written(scores: &mut [(f64, bool)]) {
    let lowest_written = scores
        .iter()
        .filter(|(_, meaning)| !meaning)
        .map(|(score, _)| *score)
        .fold(f64::INFINITY, f64::min);
    for (score, meaning) in scores.iter_mut() {
        if *meaning {
            *score = (*score * MEANING_ALONE).min(lowest_written);
        }
    }
}
