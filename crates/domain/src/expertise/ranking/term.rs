//! A topic of a query, and the weight of those a query writes or
//! reaches.

/// A topic of a query, with its weight in the query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    /// The topic's key.
    pub key: String,
    /// The topic as people read it.
    pub label: String,
    /// How much the topic counts in the query; greater counts more.
    pub weight: f64,
    /// `None` for a topic the query writes; for a learned topic the query
    /// reached through its meaning, the cosine similarity of the two.
    pub similarity: Option<f64>,
}

impl QueryTerm {
    /// Whether the query writes this topic (rather than reaching it
    /// through its meaning).
    pub fn written(&self) -> bool {
        self.similarity.is_none()
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
