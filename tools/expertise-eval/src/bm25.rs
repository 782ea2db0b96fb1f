//! Okapi BM25, the lexical baseline of the evaluation, written out so that
//! its exact formula is on the page.
//!
//! score(d, q) = Σ over the query's terms t (repeats counted) of
//! idf(t) × tf(t, d) × (k1 + 1) / (tf(t, d) + k1 × (1 − b + b × |d| / avgdl)),
//! with idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)) (the form Lucene
//! uses, never negative), N the number of documents and |d| the number of
//! terms of d.

use std::collections::{HashMap, HashSet};

use rust_stemmers::{Algorithm, Stemmer};

/// Turns English text into index terms: lower-cased words (runs of letters
/// and digits) of at least two characters, NLTK stop words removed, the
/// rest Snowball-stemmed.
pub struct Analyzer {
    stemmer: Stemmer,
    stop_words: HashSet<String>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("stop_words", &self.stop_words.len())
            .finish_non_exhaustive()
    }
}

impl Analyzer {
    pub fn english() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            stop_words: stop_words::get("en")
                .into_iter()
                .map(|w| w.trim().to_lowercase())
                .collect(),
        }
    }

    pub fn terms(&self, text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().nth(1).is_some())
            .map(str::to_lowercase)
            .filter(|w| !self.stop_words.contains(w))
            .map(|w| self.stemmer.stem(&w).into_owned())
            .collect()
    }
}

/// The free parameters of BM25.
#[derive(Debug, Clone, Copy)]
pub struct Parameters {
    /// How fast repeated occurrences of a term saturate.
    pub k1: f64,
    /// How much a document's length normalizes its term counts (0 to 1).
    pub b: f64,
}

impl Default for Parameters {
    /// The usual k1 = 1.2, b = 0.75.
    fn default() -> Self {
        Self { k1: 1.2, b: 0.75 }
    }
}

/// An inverted index over analyzed documents.
#[derive(Debug)]
pub struct Bm25 {
    parameters: Parameters,
    /// Per term, the documents holding it with the term's count there.
    postings: HashMap<String, Vec<(usize, u32)>>,
    lengths: Vec<f64>,
    average_length: f64,
}

impl Bm25 {
    /// The index of `documents`, each a list of terms; document `i` is
    /// answered as `i`.
    pub fn new(documents: &[Vec<String>], parameters: Parameters) -> Self {
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        for (doc, terms) in documents.iter().enumerate() {
            let mut counts: HashMap<&str, u32> = HashMap::new();
            for term in terms {
                *counts.entry(term).or_default() += 1;
            }
            for (term, count) in counts {
                postings
                    .entry(term.to_owned())
                    .or_default()
                    .push((doc, count));
            }
        }
        let lengths: Vec<f64> = documents.iter().map(|d| d.len() as f64).collect();
        let average_length = if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<f64>() / lengths.len() as f64
        };
        Self {
            parameters,
            postings,
            lengths,
            average_length,
        }
    }

    fn idf(&self, document_frequency: usize) -> f64 {
        let n = self.lengths.len() as f64;
        let df = document_frequency as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Every document that holds at least one of `query`'s terms, with its
    /// score, best first; equal scores in document order.
    pub fn search(&self, query: &[String]) -> Vec<(usize, f64)> {
        let Parameters { k1, b } = self.parameters;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for term in query {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let idf = self.idf(postings.len());
            for &(doc, count) in postings {
                let tf = f64::from(count);
                let norm = if self.average_length > 0.0 {
                    1.0 - b + b * self.lengths[doc] / self.average_length
                } else {
                    1.0
                };
                *scores.entry(doc).or_default() += idf * tf * (k1 + 1.0) / (tf + k1 * norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(analyzer: &Analyzer, texts: &[&str]) -> Bm25 {
        let docs: Vec<Vec<String>> = texts.iter().map(|t| analyzer.terms(t)).collect();
        Bm25::new(&docs, Parameters::default())
    }

    #[test]
    fn terms_are_folded_stemmed_and_free_of_stop_words() {
        let a = Analyzer::english();
        assert_eq!(
            a.terms("The Grinders are grinding beans, a V60 and x"),
            ["grinder", "grind", "bean", "v60"]
        );
    }

    #[test]
    fn the_document_about_the_query_comes_first() {
        let a = Analyzer::english();
        let bm25 = index(
            &a,
            &[
                "Espresso machines need descaling; espresso tastes of the crema.",
                "Cold brew steeps coarse grounds in cold water overnight.",
                "Tea is brewed with hot water.",
            ],
        );
        let ranked = bm25.search(&a.terms("espresso crema"));
        assert_eq!(ranked.len(), 1);
        assert_eq!(ranked[0].0, 0);
        let ranked = bm25.search(&a.terms("cold water"));
        // Both terms in doc 1, only the common one in doc 2.
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2]);
        assert!(bm25.search(&a.terms("saxophone")).is_empty());
    }

    #[test]
    fn rare_terms_weigh_more_and_long_documents_are_normalized() {
        let a = Analyzer::english();
        let bm25 = index(&a, &["coffee coffee", "grinder", "coffee", "coffee"]);
        let ranked = bm25.search(&a.terms("coffee grinder"));
        // "grinder" (one document) outweighs twice "coffee" (three).
        assert_eq!(ranked[0].0, 1);
        assert_eq!(ranked[1].0, 0);
        // One occurrence in a short document beats one in a long one.
        let bm25 = index(&a, &["crema", "crema espresso espresso espresso", "tea"]);
        let ranked = bm25.search(&a.terms("crema"));
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1]);
        assert!(ranked[0].1 > ranked[1].1);
    }

    #[test]
    fn scores_follow_the_formula() {
        let a = Analyzer::english();
        let bm25 = index(&a, &["crema crema", "tea tea"]);
        let ranked = bm25.search(&a.terms("crema"));
        let idf = (1.0_f64 + (2.0 - 1.0 + 0.5) / (1.0 + 0.5)).ln();
        let expected = idf * 2.0 * 2.2 / (2.0 + 1.2);
        assert_eq!(ranked.len(), 1);
        assert!((ranked[0].1 - expected).abs() < 1e-12);
    }
}
