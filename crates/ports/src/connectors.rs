//! Where the runs connectors report are kept: each run of a source (its
//! kind and name), the newest [`RunReport::KEPT`] of each.

use chrono::{DateTime, Utc};
use kenning_domain::{RunCounts, RunReport, SourceKind, SourceName};
use uuid::Uuid;

use crate::errors::StoreError;

/// A run as stored: the report, who reported it and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRun {
    /// Its id.
    pub id: Uuid,
    /// What the connector reported.
    pub report: RunReport,
    /// The API key that reported it.
    pub credential_id: Uuid,
    /// That key's name, as it was then.
    pub credential_name: String,
    /// When the server received it.
    pub received: DateTime<Utc>,
}

/// One source and its runs kept: the last, how many, since when, and
/// their counts added up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRuns {
    /// The source's last run.
    pub last: StoredRun,
    /// How many of its runs are kept.
    pub runs: u64,
    /// The earliest moment one of them was received.
    pub since: DateTime<Utc>,
    /// Their counts, added up.
    pub totals: RunCounts,
}

/// One page of sources ([`ConnectorRunStore::sources`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourcesPage {
    /// The sources of the page, the one heard from last first.
    pub sources: Vec<SourceRuns>,
    /// How many sources there are in all.
    pub total: u64,
}

/// Where connectors' runs are kept.
///
/// Contract (checked by the contract suite): runs come back as recorded,
/// refusals and error included; "last" and "newest first" mean in the
/// order the runs were recorded, whatever their moments say; recording a
/// run leaves at most `keep` runs of its source, the newest, and touches
/// no other source's.
pub trait ConnectorRunStore: Send + Sync {
    /// Stores `run`, then forgets the runs of its source (its kind and
    /// name) beyond the newest `keep`.
    fn record_run(&self, run: &StoredRun, keep: usize) -> Result<(), StoreError>;

    /// The sources with runs, the one whose last run was recorded last
    /// first, the first `skip` left out, at most `count`; with how many
    /// there are in all.
    fn sources(&self, skip: u64, count: u32) -> Result<SourcesPage, StoreError>;

    /// The API key that reported the newest run of the source `source`,
    /// `name`; `None` when it has no run.
    fn reporter_of(
        &self,
        source: &SourceKind,
        name: &SourceName,
    ) -> Result<Option<Uuid>, StoreError>;

    /// How many sources have a run reported by the API key `credential`.
    fn sources_reported_by(&self, credential: Uuid) -> Result<u64, StoreError>;

    /// The newest `count` runs of the source `source`, `name`, newest
    /// first.
    fn runs_of(
        &self,
        source: &SourceKind,
        name: &SourceName,
        count: usize,
    ) -> Result<Vec<StoredRun>, StoreError>;
}
