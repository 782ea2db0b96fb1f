//! What connectors report besides their uploads: their runs, recorded as
//! the API key that reports them sends them, and read by whoever looks
//! after the sources.

use std::sync::Arc;

use kenning_domain::{
    CredentialKind, RunInput, RunReport, SourceKind, SourceName, ValidationErrors,
};
use kenning_ports::{Clock, ConnectorRunStore, CredentialStore, SourcesPage, StoredRun};
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::error::ServiceError;
use crate::machine::Machine;

/// The most sources one API key reports runs of: with
/// [`RunReport::KEPT`] runs each, what one key makes the server keep is
/// bounded. An estate of more sources runs with several keys.
pub const MAX_SOURCES_PER_KEY: u64 = 1000;

/// Records connectors' runs and lists them.
#[derive(Clone)]
pub struct ConnectorService {
    runs: Arc<dyn ConnectorRunStore>,
    /// Whether the key that reports a source is still live.
    credentials: Arc<dyn CredentialStore>,
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
    /// The service over `runs`, whose reporters are keys of
    /// `credentials`; `clock` says when a run was received. It serves the
    /// operator until [`Gate::called_by`](crate::Gate::called_by) names
    /// the caller.
    pub fn new(
        runs: Arc<dyn ConnectorRunStore>,
        credentials: Arc<dyn CredentialStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            runs,
            credentials,
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
    /// as reported now by the API key of the connector calling, keeping the newest
    /// [`RunReport::KEPT`] runs of its source; the run's id.
    ///
    /// A source is the key's that reported its newest run: another key
    /// may report it only once that key is revoked or expired (so one key
    /// cannot bury another's failed runs), `Forbidden` before. A key
    /// reports at most [`MAX_SOURCES_PER_KEY`] sources (`Forbidden` for
    /// one more), so what one key makes the server keep is bounded.
    ///
    /// Like an upload, this is the connector door's
    /// ([`crate::Gate::connector`]): `Forbidden` to any other caller, the
    /// operator too, as a run is reported as an API key's.
    pub fn record_run(&self, input: RunInput) -> Result<Uuid, ServiceError> {
        self.caller.require(Operation::ReportRun)?;
        let reporter = self.caller.connector_key().ok_or_else(|| {
            ServiceError::Forbidden("a run is reported with a connector's API key".to_owned())
        })?;
        let received = self.clock.now();
        let report = RunReport::parse(input, received)?;
        self.may_report(&report, reporter, received)?;
        let run = StoredRun {
            id: Uuid::new_v4(),
            report,
            credential_id: reporter.credential_id(),
            credential_name: reporter.name().to_owned(),
            received,
        };
        self.runs.record_run(&run, RunReport::KEPT)?;
        Ok(run.id)
    }

    /// `Forbidden` unless `reporter` may report a run of `report`'s source
    /// at `now` ([`record_run`](Self::record_run)).
    fn may_report(
        &self,
        report: &RunReport,
        reporter: &Machine,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), ServiceError> {
        let (source, name) = (&report.source, &report.name);
        let owner = self.runs.reporter_of(source, name)?;
        if owner == Some(reporter.credential_id()) {
            return Ok(());
        }
        if let Some(owner) = owner {
            let live = self
                .credentials
                .find(CredentialKind::ApiKey, owner)?
                .filter(|key| key.revoked.is_none() && key.expires.is_none_or(|end| end > now));
            if let Some(key) = live {
                return Err(ServiceError::Forbidden(format!(
                    "the source {} {} is reported by the API key \u{201c}{}\u{201d}; \
                     revoke that key to report it with another",
                    source.as_str(),
                    name.as_str(),
                    key.name
                )));
            }
        }
        if self.runs.sources_reported_by(reporter.credential_id())? >= MAX_SOURCES_PER_KEY {
            return Err(ServiceError::Forbidden(format!(
                "this API key reports runs of {MAX_SOURCES_PER_KEY} sources already, the most \
                 one key may; report further sources with another key"
            )));
        }
        Ok(())
    }

    /// The sources with runs, the one heard from last first, each with
    /// its last run and its kept runs added up: the first `skip` left
    /// out, at most `count`, with how many there are in all.
    pub fn sources(&self, skip: u64, count: u32) -> Result<SourcesPage, ServiceError> {
        self.caller.require(Operation::ReadConnectorRuns)?;
        Ok(self.runs.sources(skip, count)?)
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
