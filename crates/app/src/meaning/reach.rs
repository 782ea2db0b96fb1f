//! The learned topics a query reaches through its meaning.

use std::collections::HashSet;

use kenning_domain::QueryTerm;

use super::asked::embed_remembered;
use super::index::{Index, Sought};
use super::meanings::Meanings;
use super::merge::keep_greater;
use super::quantized::{dot, Quantized};

/// How many learned topics one topic of a query reaches at most.
const REACHED_PER_TOPIC: usize = 3;
/// How many of a query's topics nobody learned are sought by their
/// meaning, the first in the query's order (its words before its
/// phrases): each costs a pass over the index.
const UNKNOWN_SOUGHT: usize = 2;
/// How many learned topics the query as a whole (the mean of its topics'
/// vectors) reaches at most.
const REACHED_PER_QUERY: usize = 5;

impl Meanings {
    /// The learned topics `query` reaches through its meaning: for each of
    /// its first [`UNKNOWN_SOUGHT`] topics nobody learned (a word, or a
    /// phrase with such a word) the nearest few, and for the query as a
    /// whole (the mean of its topics' vectors) the nearest few, each above
    /// the noise of the text that sought it. A topic the query writes is
    /// not reached; one reached twice keeps its greater weight
    /// ([`keep_greater`]), which is the weight of the query topic that
    /// reached it (one for the whole query) times its nearness on the
    /// embedder's scale ([`Scale::nearness`](kenning_ports::Scale::nearness)):
    /// the same subject in other words counts as if written, the barely
    /// related hardly at all.
    pub(crate) fn reach(&self, query: &[QueryTerm]) -> Vec<QueryTerm> {
        let index = self.index();
        if index.keys.is_empty() {
            return Vec::new();
        }
        let written = self.written_vectors(&index, query);
        let sought = self.sought(&index, &written);
        let skip: HashSet<usize> = query
            .iter()
            .filter_map(|t| index.at.get(&t.key).copied())
            .collect();
        let found = index.nearest(&sought, &skip, self.embedder.dimensions());
        let mut reached: Vec<QueryTerm> = Vec::new();
        for (near, sought) in found.into_iter().zip(&sought) {
            for (row, similarity) in near {
                let nearness = f64::from(sought.scale.nearness(similarity));
                let term = QueryTerm {
                    key: index.keys[row].clone(),
                    label: index.labels[row].clone(),
                    weight: sought.weight * nearness,
                    similarity: Some(f64::from(similarity)),
                    reread: false,
                };
                keep_greater(&mut reached, term);
            }
        }
        reached
    }

    /// The written topics of `query` whose meaning is sought, with their
    /// vectors (those the embedder finds no meaning in left out). A topic
    /// somebody learned is in the index already, and a phrase of learned
    /// words means what they mean together: only a topic with a word
    /// nobody learned is embedded (the model runs for those alone).
    fn written_vectors<'q>(
        &self,
        index: &Index,
        query: &'q [QueryTerm],
    ) -> Vec<(&'q QueryTerm, Vec<f32>)> {
        let unknown = |key: &str| !index.at.contains_key(key);
        let written: Vec<&QueryTerm> = query
            .iter()
            .filter(|t| t.written() && (!unknown(&t.key) || t.key.split(' ').any(unknown)))
            .collect();
        let fresh: Vec<&str> = written
            .iter()
            .filter(|t| unknown(&t.key))
            .map(|t| t.label.as_str())
            .collect();
        let mut embedded_fresh =
            embed_remembered(&self.asked, self.embedder.as_ref(), &fresh).into_iter();
        let dimensions = self.embedder.dimensions();
        written
            .into_iter()
            .filter_map(|t| {
                let vector = match index.at.get(&t.key) {
                    Some(&row) => Some(index.vector(row, dimensions)),
                    None => embedded_fresh.next().flatten(),
                };
                Some((t, vector?))
            })
            .collect()
    }

    /// What `written` seeks: a topic somebody learned is matched as
    /// written, each of the first [`UNKNOWN_SOUGHT`] nobody learned by its
    /// meaning; and, of more than one topic, the query as a whole.
    fn sought(&self, index: &Index, written: &[(&QueryTerm, Vec<f32>)]) -> Vec<Sought> {
        let mut sought: Vec<Sought> = Vec::new();
        let mut whole = vec![0.0f32; self.embedder.dimensions()];
        for (term, vector) in written {
            for (sum, x) in whole.iter_mut().zip(vector) {
                *sum += x * term.weight as f32;
            }
            if !index.at.contains_key(&term.key) && sought.len() < UNKNOWN_SOUGHT {
                sought.push(Sought {
                    scale: self.embedder.scale(vector),
                    vector: Quantized::new(vector),
                    limit: REACHED_PER_TOPIC,
                    weight: term.weight,
                });
            }
        }
        let norm = dot(&whole, &whole).sqrt();
        if written.len() > 1 && norm > 0.0 {
            whole.iter_mut().for_each(|x| *x /= norm);
            sought.push(Sought {
                scale: self.embedder.scale(&whole),
                vector: Quantized::new(&whole),
                limit: REACHED_PER_QUERY,
                weight: 1.0,
            });
        }
        sought
    }
}
