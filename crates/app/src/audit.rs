//! The audit trail's use cases: reading it, newest first, a page at a
//! time, and pruning what is older than the retention.

use std::sync::Arc;

use chrono::TimeDelta;
use kenning_domain::{AuditEntry, AuditLimit};
use kenning_ports::{AuditQuery, AuditTrail, Clock};

use crate::access::{Caller, Operation};
use crate::error::ServiceError;

/// How many entries one step of [`AuditService::prune`] deletes: one
/// short transaction, so writers never wait long behind it.
pub const PRUNE_BATCH: u32 = 1_000;

/// How long entries are kept when nothing else is configured.
pub const DEFAULT_RETENTION_DAYS: u32 = 400;

/// A page of the audit trail, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditPage {
    /// The entries.
    pub entries: Vec<AuditEntry>,
    /// The position to read the next page before, when more entries
    /// match.
    pub next: Option<u64>,
}

/// Reads and prunes the audit trail.
#[derive(Clone)]
pub struct AuditService {
    trail: Arc<dyn AuditTrail>,
    clock: Arc<dyn Clock>,
    /// Who calls: reading the trail asks whether they may.
    caller: Caller,
}

impl std::fmt::Debug for AuditService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditService").finish_non_exhaustive()
    }
}

impl AuditService {
    /// The service over `trail`; `clock` says what is old. It serves the
    /// operator until [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(trail: Arc<dyn AuditTrail>, clock: Arc<dyn Clock>) -> Self {
        Self {
            trail,
            clock,
            caller: Caller::operator(),
        }
    }

    /// The same service for `caller`, who reads the trail only with
    /// `audit:read`.
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// The entries `query` asks for, newest first, at most `limit`, with
    /// the cursor of the next page when more match.
    pub fn entries(&self, query: AuditQuery, limit: AuditLimit) -> Result<AuditPage, ServiceError> {
        self.caller.require(Operation::ReadAudit)?;
        let wanted = limit.get();
        let mut entries = self.trail.audit_entries(&query, wanted + 1)?;
        let more = entries.len() > usize::try_from(wanted).unwrap_or(usize::MAX);
        entries.truncate(usize::try_from(wanted).unwrap_or(usize::MAX));
        let next = more.then(|| entries.last().map(|e| e.position)).flatten();
        Ok(AuditPage { entries, next })
    }

    /// Deletes the entries older than `retention_days` days, in steps of
    /// [`PRUNE_BATCH`]; how many it deleted.
    pub fn prune(&self, retention_days: u32) -> Result<u64, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        let before = self.clock.now() - TimeDelta::days(i64::from(retention_days));
        let mut pruned = 0;
        loop {
            let step = self.trail.prune_audit(before, PRUNE_BATCH)?;
            pruned += u64::from(step);
            if step < PRUNE_BATCH {
                return Ok(pruned);
            }
        }
    }
}
