//! Bringing an index up to the store's learned topics.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use kenning_ports::{Embedder, ExpertiseStore, StoreError};

use super::index::Index;
use super::meanings::Meanings;
use super::quantized::Quantized;

/// How many labels are asked of the store, and embedded, at once while
/// indexing.
const LABELS_PER_READ: usize = 256;
/// How often a refresh that embeds many topics lets queries see those it
/// has embedded so far.
const PUBLISHED_EVERY: Duration = Duration::from_secs(1);

impl Meanings {
    /// Brings the index up to the store's learned topics: embeds those it
    /// lacks (a topic without meaning to the embedder is remembered as
    /// such, not read again), drops those nobody knows any more. Returns
    /// how many topics it holds. Queries meanwhile use the index as it
    /// was, and see the topics embedded so far at least every
    /// [`PUBLISHED_EVERY`]: a refresh with thousands of new topics to run
    /// through the model makes them reachable as it goes, not all at its
    /// end.
    pub(crate) fn refresh(&self, store: &dyn ExpertiseStore) -> Result<usize, StoreError> {
        let old = self.index();
        let keys = store.learned_keys()?;
        let missing: Vec<String> = keys
            .iter()
            .filter(|k| !old.at.contains_key(*k) && !old.meaningless.contains(*k))
            .cloned()
            .collect();
        if missing.is_empty() && keys.len() == old.keys.len() + old.meaningless.len() {
            return Ok(old.keys.len());
        }
        let mut index = still_learned(&old, keys, self.embedder.dimensions());
        let mut published = Instant::now();
        for chunk in missing.chunks(LABELS_PER_READ) {
            embed_into(&mut index, chunk, store, self.embedder.as_ref())?;
            if published.elapsed() >= PUBLISHED_EVERY {
                self.publish(index.clone());
                published = Instant::now();
            }
        }
        let held = index.keys.len();
        self.publish(index);
        Ok(held)
    }
}

/// The rows and the meaningless keys of `old` (of `dimensions`) still in
/// `keys`: what is still learned keeps its vector.
fn still_learned(old: &Index, keys: Vec<String>, dimensions: usize) -> Index {
    let mut index = Index::default();
    for key in keys {
        if let Some(&row) = old.at.get(&key) {
            index.push_from(old, row, key, dimensions);
        } else if old.meaningless.contains(&key) {
            index.meaningless.insert(key);
        }
    }
    index
}

/// Adds `keys` to `index`, each with the vector by `embedder` of its label
/// in `store`, or as meaningless.
fn embed_into(
    index: &mut Index,
    keys: &[String],
    store: &dyn ExpertiseStore,
    embedder: &dyn Embedder,
) -> Result<(), StoreError> {
    let labels = store.labels_of(keys)?;
    let texts: Vec<&str> = keys
        .iter()
        .filter_map(|k| labels.get(k).map(String::as_str))
        .collect();
    let vectors: HashMap<&str, Vec<f32>> = texts
        .iter()
        .zip(embedder.embed_all(&texts))
        .filter_map(|(label, vector)| Some((*label, vector?)))
        .collect();
    for key in keys {
        match labels
            .get(key)
            .and_then(|label| Some((label, vectors.get(label.as_str())?)))
        {
            Some((label, vector)) => {
                index.push(key.clone(), label.clone(), &Quantized::new(vector));
            }
            None => {
                index.meaningless.insert(key.clone());
            }
        }
    }
    Ok(())
}
