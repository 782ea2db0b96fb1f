//! What people ask that nobody knows: each question's subject counted per
//! day when at most one person holds it ([`AskedSubject`]), kept as topics
//! and counts alone. The counts gather in memory and are written at most
//! every [`FLUSH_SECONDS`], so that a question costs no write of its own;
//! a crash loses those seconds' counts, which are analytics, not records.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use kenning_domain::{Answer, AskedSubject, Expert, ExpertsLimit, QueryTerm};
use kenning_ports::{Clock, PrivacyStore};

/// The longest the counts wait in memory before they are written.
pub const FLUSH_SECONDS: i64 = 10;

/// Counts not yet written, and when they last were.
#[derive(Debug)]
struct Pending {
    counts: HashMap<(NaiveDate, String, u8), (String, u64)>,
    flushed: DateTime<Utc>,
}

/// The ledger of subjects asked.
pub(crate) struct AskedLedger {
    store: Arc<dyn PrivacyStore>,
    clock: Arc<dyn Clock>,
    pending: Mutex<Pending>,
}

impl std::fmt::Debug for AskedLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskedLedger").finish_non_exhaustive()
    }
}

impl AskedLedger {
    pub(crate) fn new(store: Arc<dyn PrivacyStore>, clock: Arc<dyn Clock>) -> Self {
        let flushed = clock.now();
        Self {
            store,
            clock,
            pending: Mutex::new(Pending {
                counts: HashMap::new(),
                flushed,
            }),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        // A panic under the lock leaves whole counts behind.
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts the question of `terms` answered by `experts`: once per
    /// question, when its first page is asked (a longer list of the same
    /// question is no new question), of the whole organisation (a group
    /// nobody in it knows is no gap of the organisation's).
    pub(crate) fn note(&self, terms: &[QueryTerm], experts: &[Expert], limit: ExpertsLimit) {
        if limit.get() > ExpertsLimit::DEFAULT.get() {
            return;
        }
        let written: Vec<(String, String)> = terms
            .iter()
            .filter(|t| t.written())
            .map(|t| (t.key.clone(), t.label.clone()))
            .collect();
        let holders = Answer::of(experts.iter().map(|e| e.score)).knowing;
        let Some(subject) = AskedSubject::of(&written, holders) else {
            return;
        };
        let now = self.clock.now();
        let due = {
            let mut pending = self.pending();
            let count = pending
                .counts
                .entry((now.date_naive(), subject.key, subject.holders))
                .or_insert_with(|| (subject.label.clone(), 0));
            count.0 = subject.label;
            count.1 += 1;
            now - pending.flushed >= Duration::seconds(FLUSH_SECONDS)
        };
        if due {
            self.flush();
        }
    }

    /// Writes the counts gathered; a failure is logged and the counts are
    /// kept for the next try.
    pub(crate) fn flush(&self) {
        let counts = {
            let mut pending = self.pending();
            pending.flushed = self.clock.now();
            std::mem::take(&mut pending.counts)
        };
        let mut failed = HashMap::new();
        for ((day, key, holders), (label, asks)) in counts {
            let subject = AskedSubject {
                key: key.clone(),
                label: label.clone(),
                holders,
            };
            if let Err(e) = self.store.count_asked(day, &subject, asks) {
                log::warn!("the count of a subject asked was not written: {e}");
                failed.insert((day, key, holders), (label, asks));
            }
        }
        if !failed.is_empty() {
            let mut pending = self.pending();
            for (place, (label, asks)) in failed {
                pending.counts.entry(place).or_insert((label, 0)).1 += asks;
            }
        }
    }
}
