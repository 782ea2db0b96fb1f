//! What a run did, counted as it goes, in the one vocabulary of every
//! connector: read, sent, already known, not found, refused, failed.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::send::Outcome;

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
    /// The names the source shows for the people not found, by key.
    pub names_not_found: BTreeMap<String, String>,
    /// The date of the earliest item whose uploads were not sent because
    /// their people were not found: where a run with `--since` starts to
    /// send them once those people are in Kenning.
    pub held_back_since: Option<chrono::DateTime<chrono::Utc>>,
    /// One line for each item refused, unreadable or failed: where, what.
    pub problems: Vec<String>,
}

/// Why an item `kenning upload`'s checkpoint names is not sent again.
pub const ACKNOWLEDGED_BEFORE: &str = "acknowledged before";

/// Items read past which a run that taught nobody is warned of.
pub const NOBODY_TAUGHT_AFTER: u64 = 1000;

impl Tally {
    /// Uploads and items refused, whatever the code.
    pub fn refused_total(&self) -> u64 {
        self.refused.values().sum()
    }

    /// A warning when the run read at least `NOBODY_TAUGHT_AFTER` items
    /// and sent nothing (nor found anything sent before), naming the most
    /// common reason: a run that silently teaches nobody is a setting
    /// gone wrong far more often than a source with nothing in it.
    pub fn taught_nobody(&self) -> Option<String> {
        if self.read < NOBODY_TAUGHT_AFTER || self.sent + self.known > 0 {
            return None;
        }
        let mut reasons: Vec<(String, u64)> = self
            .skipped
            .iter()
            .map(|(reason, n)| (format!("skipped ({reason})"), *n))
            .collect();
        reasons.push((
            "their people are not found in Kenning (--report lists them)".to_owned(),
            self.not_found,
        ));
        reasons.extend(
            self.refused
                .iter()
                .map(|(code, n)| (format!("refused {code}"), *n)),
        );
        let (why, n) = reasons
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
        Some(format!(
            "read {} items and taught nobody; the most common reason: {why} ({n})",
            self.read
        ))
    }

    /// Whether anything was refused, unreadable or failed.
    pub fn has_problems(&self) -> bool {
        self.failed > 0 || self.refused.values().any(|n| *n > 0)
    }
}

impl Tally {
    /// Counts `outcome`, what the server made of an upload.
    pub fn count(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Sent => self.sent += 1,
            Outcome::Known => self.known += 1,
            Outcome::NotFound { .. } => self.not_found += 1,
            Outcome::Refused { code, .. } => *self.refused.entry(code.clone()).or_default() += 1,
            Outcome::Failed { .. } => self.failed += 1,
        }
    }

    /// Items read this run and not acknowledged before, a second, since
    /// `started`.
    pub fn rate(&self, started: Instant) -> f64 {
        self.read.saturating_sub(self.before()) as f64 / started.elapsed().as_secs_f64().max(1e-3)
    }

    /// Items acknowledged by an earlier run and not sent again
    /// (`kenning upload`'s checkpoint).
    pub fn before(&self) -> u64 {
        self.skipped.get(ACKNOWLEDGED_BEFORE).copied().unwrap_or(0)
    }

    /// The counts in one line; on a dry run, what would be sent.
    pub fn line(&self, dry_run: bool) -> String {
        self.counts(dry_run, "")
    }

    /// [`line`](Self::line), with how many people the uploads not found
    /// were for.
    pub fn line_with_people(&self, dry_run: bool) -> String {
        self.counts(
            dry_run,
            &format!(" ({} people)", self.people_not_found.len()),
        )
    }

    fn counts(&self, dry_run: bool, people: &str) -> String {
        let refused = self.refused_total();
        format!(
            "read {}, {} {}, already known {}, not found {}{people}, refused {refused}, failed {}",
            self.read,
            if dry_run { "would send" } else { "sent" },
            self.sent,
            self.known,
            self.not_found,
            self.failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_reads_thousands_and_teaches_nobody_says_why() {
        let mut tally = Tally {
            read: NOBODY_TAUGHT_AFTER,
            ..Tally::default()
        };
        tally.skipped.insert("automatic (Precedence)", 990);
        tally.skipped.insert("received", 10);
        assert_eq!(
            tally.taught_nobody().as_deref(),
            Some("read 1000 items and taught nobody; the most common reason: skipped (automatic (Precedence)) (990)")
        );
        tally.known = 1;
        assert_eq!(tally.taught_nobody(), None);
        let few = Tally {
            read: 10,
            ..Tally::default()
        };
        assert_eq!(few.taught_nobody(), None);
    }

    #[test]
    fn a_dry_runs_progress_says_what_it_would_send() {
        let tally = Tally {
            read: 3,
            sent: 2,
            ..Tally::default()
        };
        assert!(tally.line(true).starts_with("read 3, would send 2,"));
        assert!(tally.line(false).starts_with("read 3, sent 2,"));
    }
}
