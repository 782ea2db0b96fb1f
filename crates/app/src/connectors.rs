//! What connectors report besides their uploads: their runs, recorded as
//! the API key that reports them sends them, and read by whoever looks
//! after the sources.

use std::sync::Arc;

use kenning_domain::{RunInput, RunReport, SourceKind, SourceName, ValidationErrors};
use kenning_ports::{Clock, ConnectorRunStore, SourceRuns, StoredRun};
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::credentials::Machine;
use crate::error::ServiceError;

/// Records connectors' runs and lists them.
#[derive(Clone)]
pub struct ConnectorService {
    runs: Arc<dyn ConnectorRunStore>,
    clock: Arc<dyn Clock>,
    /// Who calls: each use case that reads asks whether they may.
    caller: Caller,
}

impl std::fmt::Debug for ConnectorService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectorService")
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl ConnectorService {
    /// The service over `runs`; `clock` says when a run was received. It
    /// serves the operator until
    /// [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(runs: Arc<dyn ConnectorRunStore>, clock: Arc<dyn Clock>) -> Self {
        Self {
            runs,
            clock,
            caller: Caller::operator(),
        }
    }

    /// The same service for `caller`: reading runs needs `users:read` (an
    /// administrator may; a person may not).
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// Checks the report of a run (every bad field at once) and records it
    /// as reported now by the API key `reporter`, keeping the newest
    /// [`RunReport::KEPT`] runs of its source; the run's id.
    ///
    /// Like an upload, this is the connector door's: the API key is its
    /// whole permission, so it asks nobody (no door narrowed to a token or
    /// a person calls it).
    pub fn record_run(&self, input: RunInput, reporter: &Machine) -> Result<Uuid, ServiceError> {
        let received = self.clock.now();
        let report = RunReport::parse(input, received)?;
        let run = StoredRun {
            id: Uuid::new_v4(),
            report,
            credential_id: reporter.credential_id,
            credential_name: reporter.name.clone(),
            received,
        };
        self.runs.record_run(&run, RunReport::KEPT)?;
        Ok(run.id)
    }

    /// Every source with runs, the one heard from last first, each with its
    /// last run and its kept runs added up.
    pub fn sources(&self) -> Result<Vec<SourceRuns>, ServiceError> {
        self.caller.require(Operation::ReadConnectorRuns)?;
        Ok(self.runs.sources()?)
    }

    /// The newest `count` runs of the source of kind `source` named `name`,
    /// newest first; none when it has none. `ValidationError` when
    /// `source` or `name` can be no source's.
    pub fn runs_of(
        &self,
        source: &str,
        name: &str,
        count: usize,
    ) -> Result<Vec<StoredRun>, ServiceError> {
        self.caller.require(Operation::ReadConnectorRuns)?;
        let (source, name) = match (SourceKind::parse(source), SourceName::parse(name)) {
            (Ok(source), Ok(name)) => (source, name),
            (Err(e), Ok(_)) | (Ok(_), Err(e)) => return Err(e.into()),
            (Err(kind), Err(name)) => {
                return Err(ValidationErrors::from(kind)
                    .and(ValidationErrors::from(name))
                    .into())
            }
        };
        Ok(self.runs.runs_of(&source, &name, count)?)
    }
}
