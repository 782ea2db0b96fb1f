//! A topic of a query, and the weight of those a query writes or
//! reaches.

use std::collections::HashSet;

/// A topic of a query, with its weight in the query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    /// The topic's key.
    pub key: String,
    /// The topic as people read it. A word the query writes is known by
    /// its label, in lower case, across the query's readings in several
    /// languages: each reading's term of one word carries the word as
    /// written, and a word nobody learned does not weigh when another
    /// reading of it was learned.
    pub label: String,
    /// How much the topic counts in the query; greater counts more.
    pub weight: f64,
    /// `None` for a topic the query writes; for a learned topic the query
    /// reached through its meaning, the cosine similarity of the two.
    pub similarity: Option<f64>,
    /// Whether only a second reading of the query, in another language,
    /// writes the topic (an English subject read again as German, since
    /// the question around it is German). Nobody holding such a topic
    /// says the reading was not the query's, not that part of the query
    /// is unknown: it weighs only when learned.
    pub reread: bool,
}

impl QueryTerm {
    /// Whether the query writes this topic (rather than reaching it
    /// through its meaning).
    pub fn written(&self) -> bool {
        self.similarity.is_none()
    }

    /// Whether the query writes this topic as one word (not a phrase).
    pub fn written_word(&self) -> bool {
        self.written() && !self.key.contains(' ')
    }
}

/// The weight times idf (`idf_of`; `None` when nobody learned the topic)
/// of the learned topics `query` writes (`written`), or of those it
/// reached through their meaning.
pub(super) fn learned_weight(
    query: &[QueryTerm],
    idf_of: &impl Fn(&str) -> Option<f64>,
    written: bool,
) -> f64 {
    query
        .iter()
        .filter(|t| t.written() == written)
        .filter_map(|t| idf_of(&t.key).map(|idf| t.weight * idf))
        .sum()
}

/// For each of `query`'s topics, whether it weighs in the query though
/// nobody learned it (`idf_of` gives `None`): a word the query writes in
/// its first reading, unless another reading of the same word was learned
/// (a word is known by its label: "payroll" read as English and as German
/// is one word). A word only a second reading gives
/// ([`reread`](QueryTerm::reread)) does not weigh unlearned, nor does a
/// phrase nobody learned (its words count already, and a phrase is often
/// learned as its words), nor a topic reached through meaning (only
/// learned topics are reached). A reading that labels a word otherwise is
/// another word here: a German compound's parts, or an elided "l'analyse"
/// that one language's rules split and another's keep whole.
pub(super) fn weighing_unknown(
    query: &[QueryTerm],
    idf_of: &impl Fn(&str) -> Option<f64>,
) -> Vec<bool> {
    let learned: HashSet<String> = query
        .iter()
        .filter(|t| t.written_word() && idf_of(&t.key).is_some())
        .map(|t| t.label.to_lowercase())
        .collect();
    query
        .iter()
        .map(|t| {
            t.written_word()
                && !t.reread
                && idf_of(&t.key).is_none()
                && !learned.contains(&t.label.to_lowercase())
        })
        .collect()
}
