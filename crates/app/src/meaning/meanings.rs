//! The learned topics by meaning for one embedder: its index, and the
//! vectors of the texts queries asked.

use std::sync::{Arc, Mutex, RwLock};

use kenning_ports::Embedder;

use super::asked::Asked;
use super::index::Index;

/// Learned topics by meaning, for one embedder.
pub(crate) struct Meanings {
    pub(super) embedder: Arc<dyn Embedder>,
    index: RwLock<Arc<Index>>,
    pub(super) asked: Mutex<Asked>,
}

impl std::fmt::Debug for Meanings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meanings")
            .field("model", &self.embedder.model())
            .field("topics", &self.index().keys.len())
            .finish()
    }
}

impl Meanings {
    pub(crate) fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self {
            embedder,
            index: RwLock::new(Arc::new(Index::default())),
            asked: Mutex::new(Asked::default()),
        }
    }

    pub(crate) fn model(&self) -> &str {
        self.embedder.model()
    }

    /// How many tokens of the model's vocabulary spell `words`, in all.
    pub(super) fn pieces(&self, words: &[&str]) -> usize {
        words.iter().map(|w| self.embedder.pieces(w)).sum()
    }

    /// How many topics the index holds.
    pub(crate) fn topics(&self) -> usize {
        self.index().keys.len()
    }

    /// The index queries use now.
    pub(super) fn index(&self) -> Arc<Index> {
        match self.index.read() {
            Ok(index) => index.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Makes `index` the one queries use.
    pub(super) fn publish(&self, index: Index) {
        match self.index.write() {
            Ok(mut slot) => *slot = Arc::new(index),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(index),
        }
    }
}
