//! What a run shows while it goes, `kenning upload`'s and `kenning
//! connect`'s alike: on a terminal a bar (when the total is known) or a
//! spinner with the counts, elsewhere a line every few seconds, nothing
//! when quiet.

use std::io::IsTerminal as _;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::tally::Tally;

/// How a run's progress is shown.
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    /// Nothing at all.
    pub quiet: bool,
    /// A dry run: its counts say what would be sent.
    pub dry_run: bool,
    /// How many items there are, when known before reading.
    pub total: Option<u64>,
    /// How often a line is written when standard error is no terminal.
    pub every: Duration,
}

/// A run's progress on standard error.
#[derive(Debug)]
pub struct Progress {
    shown: Shown,
    bar: Option<ProgressBar>,
    lines: bool,
    started: Instant,
    last: Mutex<Instant>,
}

impl Progress {
    /// Progress shown as `shown` says and the terminal allows.
    pub fn new(shown: Shown) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!shown.quiet && terminal).then(|| match shown.total {
            Some(total) => {
                let bar = ProgressBar::new(total);
                if let Ok(style) = ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} uploads, {per_sec}, ETA {eta} ({msg})",
                ) {
                    bar.set_style(style);
                }
                bar
            }
            None => {
                let bar = ProgressBar::new_spinner();
                if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {msg}") {
                    bar.set_style(style);
                }
                bar.enable_steady_tick(Duration::from_millis(200));
                bar
            }
        });
        Self {
            shown,
            bar,
            lines: !shown.quiet && !terminal,
            started: Instant::now(),
            last: Mutex::new(Instant::now()),
        }
    }

    /// Shows `tally`.
    pub fn show(&self, tally: &Tally) {
        let line = tally.line(self.shown.dry_run);
        if let Some(bar) = &self.bar {
            bar.set_position(tally.read);
            bar.set_message(line);
            return;
        }
        if !self.lines {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.elapsed() < self.shown.every.max(Duration::from_secs(1)) {
            return;
        }
        *last = Instant::now();
        match self.shown.total {
            Some(total) => eprintln!(
                "{}/{total} ({:.0}/s); {line}",
                tally.read,
                tally.rate(self.started)
            ),
            None => eprintln!("{line}"),
        }
    }

    /// Ends the bar or the spinner.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            match self.shown.total {
                Some(_) => bar.finish(),
                None => bar.finish_and_clear(),
            }
        }
    }
}
