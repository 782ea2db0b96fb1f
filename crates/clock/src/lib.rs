//! The adapters behind the [`Clock`] port: the system's wall clock, which
//! the server runs on, and a manual clock that moves only when told to, which
//! tests and simulations run on.

#![warn(missing_docs)]

use std::sync::Mutex;

use chrono::{DateTime, Duration, Timelike, Utc};
use kenning_ports::Clock;

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    /// Now, to the microsecond: the finest moment every store keeps, so a
    /// value answered right after a write reads back the same later.
    fn now(&self) -> DateTime<Utc> {
        let now = Utc::now();
        now.with_nanosecond(now.timestamp_subsec_micros() * 1_000)
            .unwrap_or(now)
    }
}

/// A clock that moves only when told to, for tests and simulations.
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    /// A clock that stands at `start` until it is moved.
    pub fn new(start: DateTime<Utc>) -> Self {
        Self(Mutex::new(start))
    }

    /// Moves the clock forward (or back, for a negative duration).
    pub fn advance(&self, by: Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_clock_keeps_microseconds() {
        assert_eq!(SystemClock.now().timestamp_subsec_nanos() % 1_000, 0);
    }
}
