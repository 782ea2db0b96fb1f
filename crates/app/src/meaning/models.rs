//! Which embedder reads a query's meaning.

use std::sync::Arc;

use super::meanings::Meanings;

/// English, as a query's language is named (ISO 639-1): the language
/// whose queries the first embedder reads when another reads the rest.
pub(crate) const ENGLISH: &str = "en";

/// The embedders a query's meaning is read with.
#[derive(Debug, Clone, Default)]
pub(crate) struct MeaningModels {
    /// Reads every query, or those read in English first when `others` is
    /// given.
    pub(crate) first: Option<Arc<Meanings>>,
    /// Reads the queries read in another language first.
    pub(crate) others: Option<Arc<Meanings>>,
}

impl MeaningModels {
    /// Each embedder, once.
    pub(crate) fn each(&self) -> impl Iterator<Item = &Arc<Meanings>> {
        self.first.iter().chain(&self.others)
    }

    /// The embedders for a query whose question's words were read in
    /// `frame`, if any: the English one for a question asked in English,
    /// the one for other languages for a question asked in another. A
    /// query without such words ("Datenschutz", "data protection") is too
    /// short to tell its language by: the model whose vocabulary spells
    /// its `words` with fewer tokens reads it, for the other spells them
    /// from pieces it reads apart ("dat", "ens": "date"); both read it
    /// when both spell them alike (each holds each word whole, or both
    /// split "k8s" in three).
    pub(crate) fn for_query(&self, frame: Option<&str>, words: &[&str]) -> Vec<&Arc<Meanings>> {
        match (&self.first, &self.others, frame) {
            (Some(first), Some(_), Some(ENGLISH)) => vec![first],
            (_, Some(others), Some(_)) => vec![others],
            (Some(first), Some(others), None) => {
                match first.pieces(words).cmp(&others.pieces(words)) {
                    std::cmp::Ordering::Less => vec![first],
                    std::cmp::Ordering::Greater => vec![others],
                    // No word, or spelled alike.
                    std::cmp::Ordering::Equal => vec![first, others],
                }
            }
            _ => self.each().collect(),
        }
    }
}
