//! The vectors of the latest texts queries asked that the index does not
//! hold, so that a question asked again does not run the model again.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use kenning_ports::Embedder;

/// How many texts of queries that nobody learned keep their vectors.
pub(super) const ASKED_REMEMBERED: usize = 4096;

/// The vectors of the latest texts queries asked that the index does not
/// hold, the oldest forgotten first.
#[derive(Debug, Default)]
pub(super) struct Asked {
    pub(super) vectors: HashMap<String, Option<Vec<f32>>>,
    order: VecDeque<String>,
}

impl Asked {
    pub(super) fn remember(&mut self, text: &str, vector: Option<Vec<f32>>) {
        if self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= ASKED_REMEMBERED {
            if let Some(oldest) = self.order.pop_front() {
                self.vectors.remove(&oldest);
            }
        }
        self.order.push_back(text.to_owned());
        self.vectors.insert(text.to_owned(), vector);
    }
}

/// The vectors of `texts` by `embedder`, each embedded once while
/// `asked` remembers it ([`ASKED_REMEMBERED`]).
pub(super) fn embed_remembered(
    asked: &Mutex<Asked>,
    embedder: &dyn Embedder,
    texts: &[&str],
) -> Vec<Option<Vec<f32>>> {
    let lock = || match asked.lock() {
        Ok(asked) => asked,
        Err(poisoned) => poisoned.into_inner(),
    };
    let mut vectors: Vec<Option<Option<Vec<f32>>>> = {
        let asked = lock();
        texts
            .iter()
            .map(|t| asked.vectors.get(*t).cloned())
            .collect()
    };
    let missing: Vec<&str> = texts
        .iter()
        .zip(&vectors)
        .filter(|(_, v)| v.is_none())
        .map(|(t, _)| *t)
        .collect();
    if !missing.is_empty() {
        let embedded = embedder.embed_all(&missing);
        let mut asked = lock();
        let mut embedded = missing.iter().zip(embedded);
        for vector in vectors.iter_mut().filter(|v| v.is_none()) {
            if let Some((text, fresh)) = embedded.next() {
                asked.remember(text, fresh.clone());
                *vector = Some(fresh);
            }
        }
    }
    vectors.into_iter().map(Option::flatten).collect()
}
