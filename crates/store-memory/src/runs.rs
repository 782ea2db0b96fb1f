//! Connectors' runs, in the order recorded.

use kenning_domain::{RunCounts, SourceKind, SourceName};
use kenning_ports::{ConnectorRunStore, SourceRuns, StoreError, StoredRun};

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

    fn sources(&self) -> Result<Vec<SourceRuns>, StoreError> {
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
        Ok(sources)
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
