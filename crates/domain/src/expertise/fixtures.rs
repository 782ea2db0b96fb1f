//! What the tests of several expertise modules build their cases from.

use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::topic::TextWord;

/// The moment `days` days after the first of January 2026.
pub(super) fn t(days: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::days(days)
}

/// A word of a text, written `count` times.
pub(super) fn word(key: &str, label: &str, count: u32) -> TextWord {
    TextWord {
        key: key.into(),
        label: label.into(),
        count,
    }
}
