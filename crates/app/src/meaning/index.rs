//! The learned topics' vectors in memory, and the rows nearest to a few
//! vectors sought at once.

use std::collections::{HashMap, HashSet};

use kenning_ports::Scale;

use super::quantized::{similarity, Quantized};

/// The learned topics' vectors, quantized, one row of `dimensions` per
/// key.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    pub(super) keys: Vec<String>,
    pub(super) labels: Vec<String>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    pub(super) at: HashMap<String, usize>,
    /// Learned keys the embedder found no meaning in (no label, or no
    /// token it knows): not asked of the store again while learned.
    pub(super) meaningless: HashSet<String>,
}

/// A vector to find the nearest rows of: at most `limit`, above its
/// `scale`'s noise, for a query topic of `weight` (one for the whole
/// query).
#[derive(Debug)]
pub(super) struct Sought {
    pub(super) vector: Quantized,
    pub(super) limit: usize,
    pub(super) scale: Scale,
    pub(super) weight: f64,
}

impl Index {
    /// Adds the row of `key`, labelled `label`, of `vector`.
    pub(super) fn push(&mut self, key: String, label: String, vector: &Quantized) {
        self.push_codes(key, label, &vector.codes, vector.scale);
    }

    fn push_codes(&mut self, key: String, label: String, codes: &[i8], scale: f32) {
        self.at.insert(key.clone(), self.keys.len());
        self.keys.push(key);
        self.labels.push(label);
        self.codes.extend_from_slice(codes);
        self.scales.push(scale);
    }

    /// Adds `row` of `old` (of `dimensions`) under `key`, as it was.
    pub(super) fn push_from(&mut self, old: &Index, row: usize, key: String, dimensions: usize) {
        let codes = &old.codes[row * dimensions..(row + 1) * dimensions];
        self.push_codes(key, old.labels[row].clone(), codes, old.scales[row]);
    }

    /// The vector of `row`, read back from its eight bits.
    pub(super) fn vector(&self, row: usize, dimensions: usize) -> Vec<f32> {
        let scale = self.scales[row];
        self.codes[row * dimensions..(row + 1) * dimensions]
            .iter()
            .map(|c| f32::from(*c) / scale)
            .collect()
    }

    /// The rows nearest to each of `sought`, best first, in one pass over
    /// the index; rows in `skip` are passed over.
    pub(super) fn nearest(
        &self,
        sought: &[Sought],
        skip: &HashSet<usize>,
        dimensions: usize,
    ) -> Vec<Vec<(usize, f32)>> {
        let mut found: Vec<Vec<(usize, f32)>> = vec![Vec::new(); sought.len()];
        let rows = self.codes.chunks_exact(dimensions.max(1)).zip(&self.scales);
        for (row, (codes, scale)) in rows.enumerate() {
            for (s, best) in sought.iter().zip(found.iter_mut()) {
                let near = similarity(&s.vector.codes, s.vector.scale, codes, *scale);
                if near <= s.scale.noise
                    || (best.len() == s.limit && best.last().is_some_and(|(_, b)| *b >= near))
                    || skip.contains(&row)
                {
                    continue;
                }
                let at = best.partition_point(|(_, b)| *b >= near);
                best.insert(at, (row, near));
                best.truncate(s.limit);
            }
        }
        found
    }
}
