//! Credentials verified lately, so that most requests are authenticated
//! from memory instead of a read of the store.
//!
//! An entry is the answer of one successful verification against the
//! store: the credential's id and kind, the hash of the secret that was
//! presented (never the secret) and who it names. It is trusted for less
//! than [`REVOCATION_DELAY`] of the clock after the moment taken before that read,
//! then the store is asked again, so a revocation written by any process
//! is honoured at most that long after it was committed. Only successful
//! verifications are kept, so unknown secrets cannot fill the memory, and
//! the entries are bounded by a capacity besides.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};
use kenning_domain::CredentialKind;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::machine::Machine;

/// How long a verification is trusted without asking the store again: the
/// longest a revocation made elsewhere (another instance, the command line)
/// may go unnoticed.
pub const REVOCATION_DELAY: TimeDelta = TimeDelta::seconds(1);

/// How many verified credentials are remembered at most, unless the service
/// is built with another capacity.
pub const DEFAULT_CAPACITY: usize = 10_000;

struct Entry {
    secret_hash: String,
    machine: Machine,
    checked: DateTime<Utc>,
}

impl Entry {
    /// Whether the entry may still answer at `now`; never when the clock
    /// went back past the check, so a clock step cannot extend its life.
    fn fresh_at(&self, now: DateTime<Utc>) -> bool {
        self.checked <= now && now - self.checked < REVOCATION_DELAY
    }
}

#[derive(Default)]
struct Entries {
    by_credential: HashMap<(CredentialKind, Uuid), Entry>,
    /// Counts the revocations made through this service; a verification
    /// that began before one is not remembered, as it may have read the
    /// credential before it was revoked.
    revocations: u64,
}

/// The verifications one service (and its clones) made lately.
pub struct Verified {
    capacity: usize,
    entries: Mutex<Entries>,
}

/// What a verification must hand back to be remembered: taken before the
/// store is read.
#[derive(Debug, Clone, Copy)]
pub struct Ticket {
    checked: DateTime<Utc>,
    revocations: u64,
}

impl Verified {
    /// An empty memory of at most `capacity` credentials (0: remember none).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(Entries::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Entries> {
        // An entry is replaced whole under the lock, so a panic elsewhere
        // cannot leave one half written.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Who the credential names, if it was verified with a secret of this
    /// `secret_hash` less than [`REVOCATION_DELAY`] before `now`.
    pub fn recall(
        &self,
        kind: CredentialKind,
        id: Uuid,
        secret_hash: &str,
        now: DateTime<Utc>,
    ) -> Option<Machine> {
        let entries = self.lock();
        let entry = entries.by_credential.get(&(kind, id))?;
        let matches: bool = secret_hash
            .as_bytes()
            .ct_eq(entry.secret_hash.as_bytes())
            .into();
        (matches && entry.fresh_at(now)).then(|| entry.machine.clone())
    }

    /// Taken at `now`, before the store is read for a verification.
    pub fn ticket(&self, now: DateTime<Utc>) -> Ticket {
        Ticket {
            checked: now,
            revocations: self.lock().revocations,
        }
    }

    /// Remembers a verification that succeeded, unless a revocation came
    /// through this service since its `ticket` was taken. When full, the
    /// entries past their freshness go first, then the oldest.
    pub fn remember(
        &self,
        kind: CredentialKind,
        id: Uuid,
        secret_hash: String,
        machine: Machine,
        ticket: Ticket,
    ) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.lock();
        if entries.revocations != ticket.revocations {
            return;
        }
        let key = (kind, id);
        let map = &mut entries.by_credential;
        if !map.contains_key(&key) && map.len() >= self.capacity {
            map.retain(|_, e| e.fresh_at(ticket.checked));
            if map.len() >= self.capacity {
                let oldest = map.iter().min_by_key(|(_, e)| e.checked).map(|(k, _)| *k);
                if let Some(oldest) = oldest {
                    map.remove(&oldest);
                }
            }
        }
        map.insert(
            key,
            Entry {
                secret_hash,
                machine,
                checked: ticket.checked,
            },
        );
    }

    /// Forgets the credential, revoked through this service just now, and
    /// keeps verifications already under way from remembering anything.
    pub fn forget(&self, kind: CredentialKind, id: Uuid) {
        let mut entries = self.lock();
        entries.revocations += 1;
        entries.by_credential.remove(&(kind, id));
    }
}
