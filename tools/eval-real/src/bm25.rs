//! The lexical baseline: Okapi BM25 over one document per person, the
//! texts of all their uploads as the sources give them.
//!
//! score(d, q) = Σ over the query's terms t of
//! idf(t) × tf(t, d) × (k1 + 1) / (tf(t, d) + k1 × (1 − b + b × |d| / avgdl)),
//! idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)), k1 = 1.2, b = 0.75.

use std::collections::{HashMap, HashSet};

use rust_stemmers::{Algorithm, Stemmer};

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lower-cased words (runs of letters and digits) of two characters or
/// more, NLTK's English stop words left out, Snowball-stemmed.
pub struct Analyzer {
    stemmer: Stemmer,
    stop_words: HashSet<String>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer").finish_non_exhaustive()
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

/// An index of one document per person.
#[derive(Debug)]
pub struct Bm25 {
    analyzer: Analyzer,
    people: Vec<String>,
    postings: HashMap<String, Vec<(usize, u32)>>,
    lengths: Vec<f64>,
    average: f64,
}

impl Bm25 {
    /// The index of `documents`: each person's e-mail address and texts.
    pub fn new<'a>(documents: impl Iterator<Item = (&'a String, &'a Vec<String>)>) -> Self {
        let analyzer = Analyzer::english();
        let mut people = Vec::new();
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (d, (person, texts)) in documents.enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut length = 0usize;
            for text in texts {
                for term in analyzer.terms(text) {
                    length += 1;
                    *counts.entry(term).or_default() += 1;
                }
            }
            for (term, count) in counts {
                postings.entry(term).or_default().push((d, count));
            }
            people.push(person.clone());
            lengths.push(length as f64);
        }
        let average = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Self {
            analyzer,
            people,
            postings,
            lengths,
            average,
        }
    }

    /// The people whose documents match `query`, best first (ties by
    /// address).
    pub fn rank(&self, query: &str) -> Vec<String> {
        let n = self.people.len() as f64;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for term in self.analyzer.terms(query) {
            let Some(postings) = self.postings.get(&term) else {
                continue;
            };
            let df = postings.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(d, tf) in postings {
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * self.lengths[d] / self.average.max(1.0));
                *scores.entry(d).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.people[a.0].cmp(&self.people[b.0]))
        });
        ranked
            .into_iter()
            .map(|(d, _)| self.people[d].clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_person_who_wrote_a_rare_word_comes_first() {
        let docs = [
            ("a".to_owned(), vec!["hops and malt, hops".to_owned()]),
            ("b".to_owned(), vec!["malt and barley".to_owned()]),
        ];
        let index = Bm25::new(docs.iter().map(|(p, t)| (p, t)));
        assert_eq!(index.rank("hops"), vec!["a"]);
        assert_eq!(index.rank("malt")[..].len(), 2);
        assert!(index.rank("nothing").is_empty());
    }
}
