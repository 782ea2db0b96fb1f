//! Where "now" comes from.

use chrono::{DateTime, Utc};

/// The source of the current moment.
pub trait Clock: Send + Sync {
    /// The current moment. Stores keep moments to the microsecond, so an
    /// implementation that answers finer loses the rest on the way back.
    fn now(&self) -> DateTime<Utc>;
}
