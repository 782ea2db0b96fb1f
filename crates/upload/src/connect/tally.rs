//! What a run did, counted as it goes.

use std::collections::BTreeMap;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Items read, skipped and unreadable ones included.
    pub read: u64,
    /// Read, teaching nobody by the source's rules, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// Uploads the server learned from (on a dry run: would have been sent).
    pub sent: u64,
    /// Uploads the server knew already (their alias was used).
    pub known: u64,
    /// Uploads not sent: their person is not found in Kenning.
    pub not_found: u64,
    /// Uploads or items refused, by the server's code (`Unreadable` for
    /// items the source could not read).
    pub refused: BTreeMap<String, u64>,
    /// Uploads whose every try failed.
    pub failed: u64,
    /// The people not found, by the source's key, with how many uploads
    /// were not sent for each.
    pub people_not_found: BTreeMap<String, u64>,
    /// One line for each item refused, unreadable or failed: where, what.
    pub problems: Vec<String>,
}

impl Tally {
    /// Whether anything was refused, unreadable or failed.
    pub fn has_problems(&self) -> bool {
        self.failed > 0 || self.refused.values().any(|n| *n > 0)
    }
}

impl Tally {
    /// The counts in one line.
    pub fn line(&self) -> String {
        let refused: u64 = self.refused.values().sum();
        format!(
            "read {}, sent {}, already known {}, not found {}, refused {refused}, failed {}",
            self.read, self.sent, self.known, self.not_found, self.failed
        )
    }
}
