//! Connectors' runs, in the order recorded.

use kenning_domain::{RunCounts, SourceKind, SourceName};
use kenning_ports::{ConnectorRunStore, SourceRuns, SourcesPage, StoreError, StoredRun};
use uuid::Uuid;

use crate::state::MemoryStore;

/// Whether `run` is of the source `source`, `name`.
fn of(run: &StoredRun, source: &SourceKind, name: &SourceName) -> bool {
    run.report.source == *source && run.report.name == *name
}

impl ConnectorRunStore for MemoryStore {
    fn record_run(&self, run: &StoredRun, keep: usize) -> Result<(), StoreError> {
        let mut state = self.lock();
        state.runs.push(run.clone());
        let (source, name) = (&run.report.source, &run.report.name);
        let mut newer = state.runs.iter().filter(|r| of(r, source, name)).count();
        state.runs.retain(|r| {
            if !of(r, source, name) {
                return true;
            }
            newer -= 1;
            newer < keep
        });
        Ok(())
    }

    fn sources(&self, skip: u64, count: u32) -> Result<SourcesPage, StoreError> {
        let state = self.lock();
        let mut sources: Vec<SourceRuns> = Vec::new();
        for run in state.runs.iter().rev() {
            let (source, name) = (&run.report.source, &run.report.name);
            match sources.iter_mut().find(|s| of(&s.last, source, name)) {
                Some(kept) => {
                    kept.runs += 1;
                    kept.since = kept.since.min(run.received);
                    kept.totals = kept.totals.plus(run.report.counts);
                }
                None => sources.push(SourceRuns {
                    last: run.clone(),
                    runs: 1,
                    since: run.received,
                    totals: RunCounts::default().plus(run.report.counts),
                }),
            }
        }
        let total = sources.len() as u64;
        let skip = usize::try_from(skip).unwrap_or(usize::MAX);
        Ok(SourcesPage {
            sources: sources
                .into_iter()
                .skip(skip)
                .take(count as usize)
                .collect(),
            total,
        })
    }

    fn reporter_of(
        &self,
        source: &SourceKind,
        name: &SourceName,
    ) -> Result<Option<Uuid>, StoreError> {
        Ok(self
            .lock()
            .runs
            .iter()
            .rev()
            .find(|r| of(r, source, name))
            .map(|r| r.credential_id))
    }

    fn sources_reported_by(&self, credential: Uuid) -> Result<u64, StoreError> {
        let state = self.lock();
        let mut sources: Vec<(&SourceKind, &SourceName)> = state
            .runs
            .iter()
            .filter(|r| r.credential_id == credential)
            .map(|r| (&r.report.source, &r.report.name))
            .collect();
        sources.sort_by(|a, b| (a.0.as_str(), a.1.as_str()).cmp(&(b.0.as_str(), b.1.as_str())));
        sources.dedup();
        Ok(sources.len() as u64)
    }

    fn runs_of(
        &self,
        source: &SourceKind,
        name: &SourceName,
        count: usize,
    ) -> Result<Vec<StoredRun>, StoreError> {
        Ok(self
            .lock()
            .runs
            .iter()
            .rev()
            .filter(|r| of(r, source, name))
            .take(count)
            .cloned()
            .collect())
    }
}
