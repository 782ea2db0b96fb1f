//! What every source of `kenning connect` takes: how to send, whom to
//! find, the window of time to read, and how often to run again.

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use clap::Args;

use super::engine::Settings;
use super::people::IdentityFile;
use super::source::Window;
use crate::send::Sending;

/// What every source takes.
#[derive(Debug, Args)]
pub(crate) struct Common {
    #[command(flatten)]
    pub(crate) sending: Sending,
    /// A CSV (`identity,email` header) or JSON file mapping the source's
    /// own names for people (user names, user ids) to their e-mail
    /// address in Kenning, for sources without addresses.
    #[arg(long)]
    pub(crate) identities: Option<PathBuf>,
    /// List the people not found in Kenning, with how many uploads were
    /// not sent for each.
    #[arg(long)]
    pub(crate) report: bool,
    /// Read only what was written on or after this day (yyyy-mm-dd) or
    /// moment (RFC 3339): a backfill, which reads without the cursor and
    /// leaves it as it is.
    #[arg(long, value_parser = parse_moment)]
    pub(crate) since: Option<DateTime<Utc>>,
    /// Read only what was written on or before this day (the whole day)
    /// or moment: a backfill, as with --since.
    #[arg(long, value_parser = parse_end)]
    pub(crate) until: Option<DateTime<Utc>>,
    /// Read and find people, but send nothing and leave the cursor.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Keep syncing: run again this long after each run ends (`15m`,
    /// `1h`, `30s`, `1d`) until stopped (Ctrl-C).
    #[arg(long, value_parser = parse_every)]
    pub(crate) every: Option<Duration>,
    /// No progress on standard error (there is none when it is not a
    /// terminal either, but a line every ten seconds).
    #[arg(long)]
    pub(crate) quiet: bool,
    /// The folder of the cursors (default: $XDG_STATE_HOME/kenning/connect,
    /// else ~/.local/state/kenning/connect).
    #[arg(long)]
    pub(crate) cursor_dir: Option<PathBuf>,
    /// Read at most this many items, then end as a run cut short does
    /// (for the tests that a cut run resumes).
    #[arg(long, hide = true)]
    pub(crate) most: Option<u64>,
}

impl Common {
    pub(crate) fn settings(&self) -> anyhow::Result<Settings> {
        if let (Some(since), Some(until)) = (self.since, self.until) {
            anyhow::ensure!(since <= until, "--since is after --until");
        }
        Ok(Settings {
            sending: self.sending.clone(),
            identities: match &self.identities {
                Some(path) => IdentityFile::read(path)?,
                None => IdentityFile::default(),
            },
            window: Window {
                since: self.since,
                until: self.until,
            },
            dry_run: self.dry_run,
            quiet: self.quiet,
            cursor_dir: self.cursor_dir.clone(),
            most: self.most,
            progress_every: Duration::from_secs(10),
        })
    }
}

/// A day (its start) or an RFC 3339 moment.
pub(crate) fn parse_moment(raw: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(day) = NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d") {
        return day
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc())
            .ok_or_else(|| format!("`{raw}` is no day"));
    }
    DateTime::parse_from_rfc3339(raw.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| format!("`{raw}` is neither a day (yyyy-mm-dd) nor an RFC 3339 moment"))
}

/// A day (its end) or an RFC 3339 moment.
pub(crate) fn parse_end(raw: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(day) = NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d") {
        return day
            .and_hms_milli_opt(23, 59, 59, 999)
            .map(|t| t.and_utc())
            .ok_or_else(|| format!("`{raw}` is no day"));
    }
    parse_moment(raw)
}

/// `30s`, `15m`, `1h`, `1d`: at least a second, at most a week.
pub(crate) fn parse_every(raw: &str) -> Result<Duration, String> {
    let raw = raw.trim();
    let unit_at = raw
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{raw}` needs a unit: s, m, h or d (as in 15m)"))?;
    let (number, unit) = raw.split_at(unit_at);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{raw}` does not start with a whole number"))?;
    let seconds = match unit {
        "s" => number,
        "m" => number.saturating_mul(60),
        "h" => number.saturating_mul(3_600),
        "d" => number.saturating_mul(86_400),
        _ => return Err(format!("`{unit}` is no unit: s, m, h or d (as in 15m)")),
    };
    if !(1..=7 * 86_400).contains(&seconds) {
        return Err("--every must be from 1s to 7d".to_owned());
    }
    Ok(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_days_are_read_as_written() {
        assert_eq!(parse_every("15m"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_every("1d"), Ok(Duration::from_secs(86_400)));
        assert!(parse_every("15").unwrap_err().contains("unit"));
        assert!(parse_every("0s").is_err());
        assert!(parse_every("8d").is_err());
        let since = parse_moment("2024-02-29").unwrap();
        assert_eq!(since.to_rfc3339(), "2024-02-29T00:00:00+00:00");
        let until = parse_end("2024-02-29").unwrap();
        assert_eq!(until.to_rfc3339(), "2024-02-29T23:59:59.999+00:00");
        assert!(parse_moment("yesterday")
            .unwrap_err()
            .contains("yyyy-mm-dd"));
    }
}
