//! Finding topics by their meaning: the embedder the service reads
//! meanings with, the learned topics it keeps embedded, and the topics a
//! query reaches through them.

use std::sync::Arc;

use kenning_domain::QueryTerm;
use kenning_ports::Embedder;

use super::service::{internal, ExpertiseService};
use crate::error::ServiceError;
use crate::meaning::Meanings;

impl ExpertiseService {
    /// The service finding topics by their meaning too, with `embedder`:
    /// a query reaches the learned topics nearest to its own (see
    /// [`refresh_meanings`](Self::refresh_meanings)).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.meanings = Some(Arc::new(Meanings::new(embedder)));
        self
    }

    /// The name of the model topics are found by meaning with, if any.
    pub fn meaning_model(&self) -> Option<&str> {
        self.meanings.as_deref().map(Meanings::model)
    }

    /// How many learned topics a query reaches by meaning now, `None`
    /// without an embedder.
    pub fn meaning_topics(&self) -> Option<usize> {
        self.meanings.as_deref().map(Meanings::topics)
    }

    /// Embeds the topics learned since the last call (and forgets those
    /// nobody knows any more), so that queries reach them by meaning;
    /// returns how many topics are reachable, `None` without an embedder.
    /// Until the first call a query reaches no topic by meaning; a server
    /// calls it at start and then every few seconds.
    pub fn refresh_meanings(&self) -> Result<Option<usize>, ServiceError> {
        self.meanings
            .as_ref()
            .map(|m| m.refresh(self.store.as_ref()))
            .transpose()
            .map_err(internal)
    }

    /// `terms` and the learned topics they reach through their meaning.
    pub(super) fn with_reached(&self, mut terms: Vec<QueryTerm>) -> Vec<QueryTerm> {
        if let Some(meanings) = &self.meanings {
            let reached = meanings.reach(&terms);
            terms.extend(reached);
        }
        terms
    }
}
