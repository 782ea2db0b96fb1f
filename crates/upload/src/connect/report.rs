//! A run as the server keeps it (`POST /connectors/api/v1/runs`): built
//! from the run's tally when it ends, and sent, in one place.

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};

use super::source::cut;
use crate::client::{route, Client};
use crate::tally::Tally;

/// The most characters of a run's error the server keeps (its `error`
/// field's limit): a longer one is cut, so that the failed run is still
/// reported.
pub const MAX_ERROR_CHARS: usize = 2000;

/// One run of one source, as reported.
#[derive(Debug, Clone)]
pub struct RunReport {
    kind: &'static str,
    name: String,
    started: DateTime<Utc>,
    finished: DateTime<Utc>,
    read: u64,
    sent: u64,
    known: u64,
    not_found: u64,
    refused: std::collections::BTreeMap<String, u64>,
    failed: u64,
    dry_run: bool,
    /// What stopped it: one line, cut to [`MAX_ERROR_CHARS`].
    error: Option<String>,
}

impl RunReport {
    /// The run of the source `kind` named `name` that began at `started`
    /// and ends now, having done `tally`, stopped by `error` if it was.
    pub fn of(
        kind: &'static str,
        name: &str,
        started: DateTime<Utc>,
        tally: &Tally,
        dry_run: bool,
        error: Option<&anyhow::Error>,
    ) -> Self {
        Self {
            kind,
            name: name.to_owned(),
            started,
            finished: Utc::now(),
            read: tally.read,
            sent: tally.sent,
            known: tally.known,
            not_found: tally.not_found,
            refused: tally.refused.clone(),
            failed: tally.failed,
            dry_run,
            error: error.map(|e| {
                // One line, and no control character the server refuses
                // (an IMAP server's or git's words may hold any).
                let error: String = format!("{e:#}")
                    .chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect();
                cut(&error, MAX_ERROR_CHARS).to_owned()
            }),
        }
    }

    /// As the server takes it.
    fn body(&self) -> Value {
        let moment = |t: &DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        json!({
            "source": self.kind,
            "name": self.name,
            "started": moment(&self.started),
            "finished": moment(&self.finished),
            "read": self.read,
            "sent": self.sent,
            "known": self.known,
            "not_found": self.not_found,
            "refused": self.refused,
            "failed": self.failed,
            "dry_run": self.dry_run,
            "error": self.error,
        })
    }

    /// Sends it to the server `client` names.
    pub fn send(&self, client: &Client) -> anyhow::Result<()> {
        let answer = client
            .post(route::RUNS, &self.body())
            .context("the server was not reached")?;
        anyhow::ensure!(
            answer.status == 201,
            "HTTP {}: {}",
            answer.status,
            answer.text
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_error_is_cut_at_a_character_boundary_to_what_the_server_keeps() {
        let error = anyhow::anyhow!("{}", "\u{e9}".repeat(MAX_ERROR_CHARS + 10));
        let controls = anyhow::anyhow!("login refused:\u{1b}[31m\0 bad\r\nline");
        let tally = Tally::default();
        let sent = RunReport::of("mail", "x", Utc::now(), &tally, false, Some(&controls)).body();
        assert_eq!(sent["error"], "login refused: [31m  bad  line");
        let sent = RunReport::of("git", "repo", Utc::now(), &tally, false, Some(&error)).body();
        let sent = sent["error"].as_str().unwrap();
        assert_eq!(sent.chars().count(), MAX_ERROR_CHARS);
        assert!(sent.chars().all(|c| c == '\u{e9}'));
    }
}
