//! Where a user is in its lifecycle, the grace period before a deleted
//! user is anonymized, and why a change to a user is refused.

use chrono::{DateTime, Duration, Utc};

use crate::validation::ValidationErrors;

/// The time between a delete request and the user's anonymization.
#[derive(Debug, Clone, Copy)]
pub struct GracePeriod;

impl GracePeriod {
    /// The length of the grace period in days.
    pub const DAYS: i64 = 14;

    /// The moment a user deleted at `requested` is anonymized.
    pub fn ends(requested: DateTime<Utc>) -> DateTime<Utc> {
        requested + Duration::days(Self::DAYS)
    }
}

/// Where a user is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// In use: counted among the experts unless hidden.
    Active,
    /// Kept, and its uploads still accepted, but not counted among the experts;
    /// can be reactivated.
    Deactivated,
    /// Deactivated, and anonymized once `scheduled_for` has passed.
    PendingDeletion {
        /// When the user will be anonymized.
        scheduled_for: DateTime<Utc>,
    },
    /// Anonymized at `at`; nothing can change the user any more.
    Deleted {
        /// When the user was anonymized.
        at: DateTime<Utc>,
    },
}

impl Status {
    /// The stable name of [`Status::Active`], as the API shows it and a
    /// store keeps it.
    pub const ACTIVE: &'static str = "ACTIVE";
    /// The stable name of [`Status::Deactivated`].
    pub const DEACTIVATED: &'static str = "DEACTIVATED";
    /// The stable name of [`Status::PendingDeletion`].
    pub const PENDING_DELETION: &'static str = "PENDING_DELETION";
    /// The stable name of [`Status::Deleted`].
    pub const DELETED: &'static str = "DELETED";

    /// The stable names of the statuses whose users learn from uploads
    /// ([`Status::learns`], which a test holds to this list), for a store
    /// that selects them by name.
    pub const LEARNING: [&'static str; 2] = [Self::ACTIVE, Self::DEACTIVATED];

    /// Whether a user in this status learns from the uploads that name
    /// her: ACTIVE or DEACTIVATED (a deactivated person's history still
    /// arrives); a user pending deletion or deleted learns nothing.
    pub fn learns(&self) -> bool {
        // Every status named: a new one is decided here, not left out.
        match self {
            Status::Active | Status::Deactivated => true,
            Status::PendingDeletion { .. } | Status::Deleted { .. } => false,
        }
    }

    /// Whether the user is deleted (anonymized): the one status that is
    /// not a live user's.
    pub fn is_deleted(&self) -> bool {
        matches!(self, Status::Deleted { .. })
    }

    /// [`Status::LEARNING`] as a list of SQL string literals
    /// (`'ACTIVE', 'DEACTIVATED'`), for a store's `status IN (...)`.
    pub fn learning_sql() -> String {
        Self::LEARNING
            .iter()
            .map(|name| format!("'{name}'"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The stable name ([`Status::ACTIVE`], [`Status::DEACTIVATED`],
    /// [`Status::PENDING_DELETION`], [`Status::DELETED`]).
    pub fn name(&self) -> &'static str {
        match self {
            Status::Active => Self::ACTIVE,
            Status::Deactivated => Self::DEACTIVATED,
            Status::PendingDeletion { .. } => Self::PENDING_DELETION,
            Status::Deleted { .. } => Self::DELETED,
        }
    }
}

/// A change of a user's status: what an administrator may do to a user,
/// when [`User::status_changes`](crate::User::status_changes) offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusChange {
    /// ACTIVE -> DEACTIVATED.
    Deactivate,
    /// DEACTIVATED -> ACTIVE.
    Reactivate,
    /// ACTIVE or DEACTIVATED -> PENDING_DELETION.
    Delete,
    /// PENDING_DELETION -> DEACTIVATED, within the grace period.
    CancelDeletion,
}

impl StatusChange {
    /// Every change, in the order they are offered.
    pub const ALL: [StatusChange; 4] = [
        StatusChange::Deactivate,
        StatusChange::Reactivate,
        StatusChange::Delete,
        StatusChange::CancelDeletion,
    ];
}

/// Why a change to a user was refused.
///
/// New refusals come with new lifecycle rules, so the enum is
/// non-exhaustive: a match outside this crate needs an arm for the
/// refusals it does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UserError {
    /// The input broke field rules; every problem is listed.
    #[error("{0}")]
    Validation(ValidationErrors),
    /// The user's status does not allow the action.
    #[error("cannot {action} a user whose status is {status}")]
    InvalidTransition {
        /// What was asked, such as `deactivate`.
        action: &'static str,
        /// The status the user is in.
        status: &'static str,
    },
    /// The user may not be changed this way at all; the text says why.
    #[error("{0}")]
    Forbidden(&'static str),
    /// A cancellation came after the grace period ended.
    #[error("the grace period ended at {scheduled_for}; the deletion can no longer be cancelled")]
    GracePeriodExpired {
        /// When the grace period ended.
        scheduled_for: DateTime<Utc>,
    },
    /// The change was asked for a version of the user that is no longer
    /// the current one: someone changed the user since.
    #[error("the user is at version {current}, not {expected}: it changed since it was read")]
    StaleVersion {
        /// The version the change was asked for.
        expected: u64,
        /// The user's version.
        current: u64,
    },
}

impl From<ValidationErrors> for UserError {
    fn from(errors: ValidationErrors) -> Self {
        UserError::Validation(errors)
    }
}
