//! Finding topics by their meaning: the embedders the service reads
//! meanings with (one for every language, or one for English and one for
//! the other languages), the learned topics each keeps embedded, and the
//! topics a query reaches through them.

use std::sync::Arc;

use kenning_domain::QueryTerm;
use kenning_ports::Embedder;

use super::service::{internal, ExpertiseService};
use crate::access::Operation;
use crate::error::ServiceError;
use crate::meaning::{keep_greater, Meanings};

impl ExpertiseService {
    /// The service finding topics by their meaning too, with `embedder`:
    /// a query reaches the learned topics nearest to its own (see
    /// [`refresh_meanings`](Self::refresh_meanings)). With
    /// [`with_other_languages_embedder`](Self::with_other_languages_embedder)
    /// too, `embedder` reads the queries read in English alone.
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        self.meanings.first = Some(Arc::new(Meanings::new(embedder)));
        self
    }

    /// The service reading the meaning of a question asked in another
    /// language than English with `embedder` (a model made for many
    /// languages, beside an English one that reads English better), and
    /// of a query too short to tell its language by with the model whose
    /// vocabulary spells its words with fewer pieces, or both.
    pub fn with_other_languages_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        self.meanings.others = Some(Arc::new(Meanings::new(embedder)));
        self
    }

    /// The names of the models topics are found by meaning with, if any:
    /// one, or the English one and the one for other languages, joined by
    /// " + ".
    pub fn meaning_model(&self) -> Option<String> {
        let names: Vec<&str> = self.meanings.each().map(|m| m.model()).collect();
        (!names.is_empty()).then(|| names.join(" + "))
    }

    /// How many learned topics a query reaches by meaning now (the fewest
    /// of the models, while one is still indexing), `None` without an
    /// embedder.
    pub fn meaning_topics(&self) -> Option<usize> {
        self.meanings.each().map(|m| m.topics()).min()
    }

    /// Embeds the topics learned since the last call (and forgets those
    /// nobody knows any more), so that queries reach them by meaning;
    /// returns how many topics are reachable, `None` without an embedder.
    /// Until the first call a query reaches no topic by meaning; a server
    /// calls it at start and then every few seconds.
    pub fn refresh_meanings(&self) -> Result<Option<usize>, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        let mut reachable = None;
        for meanings in self.meanings.each() {
            let topics = meanings.refresh(self.store.as_ref()).map_err(internal)?;
            reachable = Some(reachable.map_or(topics, |r: usize| r.min(topics)));
        }
        Ok(reachable)
    }

    /// `terms` of a query whose question's words were read in `frame`
    /// and the learned topics they reach through their meaning, with the
    /// names of the models that read it, if any (chosen by the frame or by
    /// the words of the terms, see
    /// [`MeaningModels::for_query`](crate::meaning::MeaningModels::for_query)). A topic
    /// two models reach keeps its greater weight ([`keep_greater`]).
    pub(super) fn with_reached(
        &self,
        mut terms: Vec<QueryTerm>,
        frame: Option<&str>,
    ) -> (Vec<QueryTerm>, Option<String>) {
        let mut words: Vec<&str> = terms
            .iter()
            .flat_map(|t| t.label.split_whitespace())
            .collect();
        words.sort_unstable();
        words.dedup();
        let models = self.meanings.for_query(frame, &words);
        let reached: Vec<Vec<QueryTerm>> = match models.as_slice() {
            [] => return (terms, None),
            [one] => vec![one.reach(&terms)],
            // Each model runs on its own thread: the query waits for the
            // slower alone.
            several => std::thread::scope(|scope| {
                let running: Vec<_> = several
                    .iter()
                    .map(|m| scope.spawn(|| m.reach(&terms)))
                    .collect();
                running
                    .into_iter()
                    .map(|r| r.join().unwrap_or_default())
                    .collect()
            }),
        };
        let mut merged: Vec<QueryTerm> = Vec::new();
        for term in reached.into_iter().flatten() {
            keep_greater(&mut merged, term);
        }
        terms.extend(merged);
        let names: Vec<&str> = models.iter().map(|m| m.model()).collect();
        (terms, Some(names.join(" + ")))
    }
}
