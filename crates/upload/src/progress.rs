//! What a run shows while it goes: a spinner with its counts on a
//! terminal, a line every ten seconds elsewhere, nothing with `--quiet`.

use std::io::IsTerminal as _;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::tally::Tally;

/// How often a line is written when standard error is no terminal.
const EVERY: Duration = Duration::from_secs(10);

/// A run's progress on standard error.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    /// A dry run: its counts say what would be sent.
    dry_run: bool,
    lines: bool,
    last: Mutex<Instant>,
}

impl Progress {
    /// Progress shown as the terminal allows, or not at all when `quiet`;
    /// of a dry run, when `dry_run`.
    pub fn new(quiet: bool, dry_run: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {msg}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Self {
            bar,
            dry_run,
            lines: !quiet && !terminal,
            last: Mutex::new(Instant::now()),
        }
    }

    /// Shows `tally`.
    pub fn show(&self, tally: &Tally) {
        if let Some(bar) = &self.bar {
            bar.set_message(tally.line(self.dry_run));
            return;
        }
        if !self.lines {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.elapsed() >= EVERY {
            *last = Instant::now();
            eprintln!("{}", tally.line(self.dry_run));
        }
    }

    /// Clears the spinner.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
