//! Okapi BM25, the lexical baseline of the evaluations, written out so
//! that its exact formula is on the page.
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
    /// The index of `documents`, each its terms; document `i` (in the
    /// order given) is answered as `i`. A document is read once and not
    /// kept.
    pub fn new<D, T>(documents: impl IntoIterator<Item = D>, parameters: Parameters) -> Self
    where
        D: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (doc, terms) in documents.into_iter().enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut length = 0u64;
            for term in terms {
                length += 1;
                let term = term.as_ref();
                match counts.get_mut(term) {
                    Some(count) => *count += 1,
                    None => {
                        counts.insert(term.to_owned(), 1);
                    }
                }
            }
            for (term, count) in counts {
                postings.entry(term).or_default().push((doc, count));
            }
            lengths.push(length as f64);
        }
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
        Bm25::new(
            texts.iter().map(|t| analyzer.terms(t)),
            Parameters::default(),
        )
    }

    fn order(ranked: &[(usize, f64)]) -> Vec<usize> {
        ranked.iter().map(|r| r.0).collect()
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
        assert_eq!(order(&bm25.search(&a.terms("espresso crema"))), [0]);
        // Both terms in doc 1, only the common one in doc 2.
        assert_eq!(order(&bm25.search(&a.terms("cold water"))), [1, 2]);
        assert!(bm25.search(&a.terms("saxophone")).is_empty());
    }

    #[test]
    fn rare_terms_weigh_more_and_long_documents_are_normalized() {
        let a = Analyzer::english();
        let bm25 = index(&a, &["coffee coffee", "grinder", "coffee", "coffee"]);
        // "grinder" (one document) outweighs twice "coffee" (three), and
        // twice "coffee" beats it once.
        assert_eq!(
            order(&bm25.search(&a.terms("coffee grinder"))),
            [1, 0, 2, 3]
        );
        // One occurrence in a short document beats one in a long one.
        let bm25 = index(&a, &["crema", "crema espresso espresso espresso", "tea"]);
        let ranked = bm25.search(&a.terms("crema"));
        assert_eq!(order(&ranked), [0, 1]);
        assert!(ranked[0].1 > ranked[1].1);
    }

    #[test]
    fn equal_scores_come_in_document_order() {
        let a = Analyzer::english();
        let bm25 = index(&a, &["tea", "hops malt", "malt hops", "hops"]);
        assert_eq!(order(&bm25.search(&a.terms("hops malt"))), [1, 2, 3]);
        let bm25 = index(&a, &["hops", "malt", "hops"]);
        assert_eq!(order(&bm25.search(&a.terms("hops"))), [0, 2]);
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
