//! How a store fails: the error every storage port answers with.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// A storage failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule refused the write; `field` is the public field name
    /// (`email` or `externalId`).
    #[error("{field} is already used by another user")]
    Conflict {
        /// The field's public name: `email` or `externalId`.
        field: &'static str,
    },
    /// The store could not do the work (unreachable, corrupt, ...); the
    /// source says why, in the store's or the database's own words.
    #[error("storage failure")]
    Backend(#[source] Failure),
}

impl StoreError {
    /// A [`StoreError::Backend`] caused by `error`, such as a database
    /// driver's.
    pub fn backend(error: impl Error + Send + Sync + 'static) -> Self {
        StoreError::Backend(Failure(Arc::new(error)))
    }

    /// A [`StoreError::Backend`] the store found itself (a stored row that
    /// does not read back, a write that kept losing a race), described by
    /// `message`.
    pub fn backend_message(message: impl Into<String>) -> Self {
        Self::backend(Message(message.into()))
    }
}

/// What made a store fail, kept whole: its message, and every cause
/// beneath it through [`Error::source`], so a log can print them all.
///
/// Clones share the failure. Two failures are equal only when one is a
/// clone of the other, never because their messages match.
#[derive(Debug, Clone)]
pub struct Failure(Arc<dyn Error + Send + Sync>);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Error for Failure {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Failure {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Failure {}

/// A failure described by the store alone.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Message(String);
