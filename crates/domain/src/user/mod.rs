//! A user, its profile and its lifecycle.
//!
//! ```text
//!   createUser ──> ACTIVE ──deactivateUser──> DEACTIVATED
//!                    ^  <──reactivateUser───     │
//!                    │                          │ cancelDelete (before the moment)
//!                    └── deleteUser ──> PENDING_DELETION ──(moment passes, purge)──> DELETED
//! ```
//!
//! `deleteUser` works from ACTIVE and DEACTIVATED; `cancelDelete` returns to
//! DEACTIVATED. Repeating a move that is already done succeeds and changes
//! nothing, so connector and sync scripts may repeat themselves.
//!
//! The aggregate and its moves are here; where a user is in its lifecycle
//! and why a move is refused in `status`, the personal data in `profile`,
//! and a client's raw attributes parsed into checked ones in `input`.

mod erasure;
mod input;
mod profile;
mod status;

use std::fmt;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::profile::Email;

pub use erasure::Erasure;
pub use input::{NewUser, NewUserInput, Patch, UserPatch, UserPatchInput};
pub use profile::Profile;
pub use status::{GracePeriod, Status, StatusChange, UserError};

/// The identifier of a user (`globalUserId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(Uuid);

impl UserId {
    /// The id of this UUID.
    pub fn from_uuid(id: Uuid) -> Self {
        Self(id)
    }

    /// The UUID the id is written as.
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A user.
///
/// The profile exists exactly while the user is not deleted: anonymization
/// drops it, and nothing can bring it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    id: UserId,
    created: DateTime<Utc>,
    modified: DateTime<Utc>,
    version: u64,
    is_system: bool,
    is_hidden: bool,
    is_federated: bool,
    status: Status,
    profile: Option<Profile>,
}

/// Every part of a stored user, for storage adapters to rebuild one.
#[derive(Debug, Clone)]
pub struct UserParts {
    /// The user's id.
    pub id: UserId,
    /// When the user was registered.
    pub created: DateTime<Utc>,
    /// When the user last changed ([`User::modified`]).
    pub modified: DateTime<Utc>,
    /// How many times the stored user was written ([`User::version`]).
    pub version: u64,
    /// Whether it is a system user, which can be neither deactivated nor
    /// deleted.
    pub is_system: bool,
    /// Whether it is hidden from expertise answers.
    pub is_hidden: bool,
    /// Whether the user signs in through an external identity provider.
    pub is_federated: bool,
    /// Where it is in its lifecycle.
    pub status: Status,
    /// Its profile; `None` once anonymized.
    pub profile: Option<Profile>,
}

/// A stored record whose profile does not fit its status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("user {0}: a profile must exist exactly while the user is not deleted")]
pub struct InconsistentUser(pub UserId);

impl User {
    /// A new user, ACTIVE from `now` on.
    pub fn register(id: UserId, new: NewUser, now: DateTime<Utc>) -> Self {
        Self {
            id,
            created: now,
            modified: now,
            version: 1,
            is_system: false,
            is_hidden: false,
            is_federated: false,
            status: Status::Active,
            profile: Some(new.0),
        }
    }

    /// Rebuilds a stored user.
    pub fn from_parts(parts: UserParts) -> Result<Self, InconsistentUser> {
        let deleted = parts.status.is_deleted();
        if deleted == parts.profile.is_some() {
            return Err(InconsistentUser(parts.id));
        }
        Ok(Self {
            id: parts.id,
            created: parts.created,
            modified: parts.modified,
            version: parts.version,
            is_system: parts.is_system,
            is_hidden: parts.is_hidden,
            is_federated: parts.is_federated,
            status: parts.status,
            profile: parts.profile,
        })
    }

    /// The same user marked as a system user: from then on [`User::deactivate`]
    /// and [`User::delete`] refuse it with [`UserError::Forbidden`]; nothing
    /// else about the user changes. No use case calls it, so the API cannot
    /// make a system user; a stored user is one when its
    /// [`UserParts::is_system`] says so.
    pub fn into_system(mut self) -> Self {
        self.is_system = true;
        self
    }

    /// The user's id, which never changes.
    pub fn id(&self) -> UserId {
        self.id
    }
    /// Whether the user is ACTIVE or DEACTIVATED: one a directory that
    /// provisions users (SCIM) sees, and the statuses that learn from
    /// uploads ([`Status::learns`]); a user pending deletion or deleted is
    /// gone for it.
    pub fn is_provisioned(&self) -> bool {
        self.status.learns()
    }

    /// When the user last changed: registered, updated, moved in its
    /// lifecycle or anonymized ([`User::touch`]).
    pub fn modified(&self) -> DateTime<Utc> {
        self.modified
    }

    /// The version of the stored user: 1 when registered, one more on each
    /// write. Clients compare it to detect that someone else changed the
    /// user since they read it (optimistic concurrency, SCIM's ETags).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether `expected` is still the user's version; refused with
    /// [`UserError::StaleVersion`] when someone changed the user since.
    pub fn expect_version(&self, expected: u64) -> Result<(), UserError> {
        if self.version == expected {
            Ok(())
        } else {
            Err(UserError::StaleVersion {
                expected,
                current: self.version,
            })
        }
    }

    /// Records that the user changed at `now`; the use cases call it on
    /// every change they make.
    pub fn touch(&mut self, now: DateTime<Utc>) {
        self.modified = now;
    }

    /// The same user as its store holds it at `version`; storage adapters
    /// call it on every write.
    pub fn stored_at(mut self, version: u64) -> Self {
        self.version = version;
        self
    }

    /// When the user was registered.
    pub fn created(&self) -> DateTime<Utc> {
        self.created
    }
    /// Whether it is a system user, which can be neither deactivated nor
    /// deleted.
    pub fn is_system(&self) -> bool {
        self.is_system
    }
    /// Whether it is hidden from expertise answers.
    pub fn is_hidden(&self) -> bool {
        self.is_hidden
    }
    /// Whether `experts` ranks the user, when the rules on learning let
    /// Kenning learn about her (`learned_about`, from
    /// [`LearningRules::learns`](crate::LearningRules::learns)):
    /// [`User::ranks`] of her status and hidden mark. A user who is not
    /// ranked may still learn ([`User::is_provisioned`]).
    pub fn is_ranked(&self, learned_about: bool) -> bool {
        Self::ranks(self.status().name(), self.is_hidden, learned_about)
    }

    /// Whether `experts` ranks a user in the status named `status` (a
    /// stable name such as [`Status::ACTIVE`]), hidden or not, learned
    /// about or not: ACTIVE, not hidden and learned about.
    /// [`User::is_ranked`] asks it of a user, the in-memory store at every
    /// ranking. The SQL stores keep the answer beside each learner
    /// (`learners.ranked`) with triggers that say it in SQL, so that a
    /// change of the hidden mark, which only the database's own SQL makes,
    /// reaches the mark as well; a test of every status, hidden mark and
    /// learning answer holds the triggers to this function.
    pub fn ranks(status: &str, is_hidden: bool, learned_about: bool) -> bool {
        status == Status::ACTIVE && !is_hidden && learned_about
    }
    /// Whether the user may sign in to the web app and keep a session:
    /// ACTIVE only (a deactivated, pending or deleted user is signed out
    /// on their next request).
    pub fn may_sign_in(&self) -> bool {
        self.status() == Status::Active
    }
    /// Whether the user signs in through an external identity provider.
    pub fn is_federated(&self) -> bool {
        self.is_federated
    }
    /// Where the user is in its lifecycle.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The personal data, `None` once the user is deleted.
    pub fn profile(&self) -> Option<&Profile> {
        self.profile.as_ref()
    }

    /// The moment the user was anonymized.
    pub fn date_deleted(&self) -> Option<DateTime<Utc>> {
        match self.status {
            Status::Deleted { at } => Some(at),
            _ => None,
        }
    }

    /// The moment a pending deletion takes effect.
    pub fn deletion_scheduled_for(&self) -> Option<DateTime<Utc>> {
        match self.status {
            Status::PendingDeletion { scheduled_for } => Some(scheduled_for),
            _ => None,
        }
    }

    fn refuse(&self, action: &'static str) -> UserError {
        UserError::InvalidTransition {
            action,
            status: self.status.name(),
        }
    }

    fn refuse_system(&self, action: &'static str) -> Result<(), UserError> {
        if self.is_system {
            return Err(UserError::Forbidden(match action {
                "deactivate" => "system users cannot be deactivated",
                _ => "system users cannot be deleted",
            }));
        }
        Ok(())
    }

    fn editable_profile(&mut self, action: &'static str) -> Result<&mut Profile, UserError> {
        let refusal = self.refuse(action);
        match (self.status, self.profile.as_mut()) {
            (Status::Active | Status::Deactivated, Some(profile)) => Ok(profile),
            _ => Err(refusal),
        }
    }

    /// Changes the listed attributes; allowed while ACTIVE or DEACTIVATED.
    pub fn update(&mut self, patch: UserPatch) -> Result<(), UserError> {
        let profile = self.editable_profile("update")?;
        patch.apply_to(profile);
        Ok(())
    }

    /// Changes the e-mail address; allowed while ACTIVE or DEACTIVATED.
    pub fn change_email(&mut self, email: Email) -> Result<(), UserError> {
        self.editable_profile("update")?.email = email;
        Ok(())
    }

    /// ACTIVE -> DEACTIVATED. Already deactivated (or pending deletion,
    /// which is deactivated too): nothing changes.
    pub fn deactivate(&mut self) -> Result<(), UserError> {
        self.refuse_system("deactivate")?;
        match self.status {
            Status::Active => {
                self.status = Status::Deactivated;
                Ok(())
            }
            Status::Deactivated | Status::PendingDeletion { .. } => Ok(()),
            Status::Deleted { .. } => Err(self.refuse("deactivate")),
        }
    }

    /// DEACTIVATED -> ACTIVE. Already active: nothing changes. A pending
    /// deletion must be cancelled first.
    pub fn reactivate(&mut self) -> Result<(), UserError> {
        match self.status {
            Status::Deactivated => {
                self.status = Status::Active;
                Ok(())
            }
            Status::Active => Ok(()),
            Status::PendingDeletion { .. } | Status::Deleted { .. } => {
                Err(self.refuse("reactivate"))
            }
        }
    }

    /// ACTIVE or DEACTIVATED -> PENDING_DELETION, anonymized a
    /// [`GracePeriod`] after `now`. Already pending: the first schedule stays.
    pub fn delete(&mut self, now: DateTime<Utc>) -> Result<(), UserError> {
        self.refuse_system("delete")?;
        match self.status {
            Status::Active | Status::Deactivated => {
                self.status = Status::PendingDeletion {
                    scheduled_for: GracePeriod::ends(now),
                };
                Ok(())
            }
            Status::PendingDeletion { .. } => Ok(()),
            Status::Deleted { .. } => Err(self.refuse("delete")),
        }
    }

    /// PENDING_DELETION -> DEACTIVATED while the scheduled moment is still
    /// in the future.
    pub fn cancel_delete(&mut self, now: DateTime<Utc>) -> Result<(), UserError> {
        match self.status {
            Status::PendingDeletion { scheduled_for } if now < scheduled_for => {
                self.status = Status::Deactivated;
                Ok(())
            }
            Status::PendingDeletion { scheduled_for } => {
                Err(UserError::GracePeriodExpired { scheduled_for })
            }
            _ => Err(self.refuse("cancel the deletion of")),
        }
    }

    /// The changes of status the user takes at `now` that change it, in
    /// the order of [`StatusChange::ALL`]: each tried on a copy, so what
    /// is offered is what the change itself accepts.
    pub fn status_changes(&self, now: DateTime<Utc>) -> Vec<StatusChange> {
        StatusChange::ALL
            .into_iter()
            .filter(|change| {
                let mut tried = self.clone();
                let made = match change {
                    StatusChange::Deactivate => tried.deactivate(),
                    StatusChange::Reactivate => tried.reactivate(),
                    StatusChange::Delete => tried.delete(now),
                    StatusChange::CancelDeletion => tried.cancel_delete(now),
                };
                made.is_ok() && tried.status != self.status
            })
            .collect()
    }

    /// Whether the grace period of a pending deletion has passed at `now`.
    pub fn is_due_for_purge(&self, now: DateTime<Utc>) -> bool {
        matches!(self.status, Status::PendingDeletion { scheduled_for } if scheduled_for <= now)
    }

    /// PENDING_DELETION (due) -> DELETED: the profile is erased for good.
    pub fn anonymize(&mut self, now: DateTime<Utc>) -> Result<(), UserError> {
        if !self.is_due_for_purge(now) {
            return Err(self.refuse("anonymize"));
        }
        self.status = Status::Deleted { at: now };
        self.profile = None;
        Ok(())
    }

    /// Erases, through `erasure`, what the change from `before` to this
    /// user takes away: every part [`Erasure`] names when the change
    /// anonymized her (she was not deleted, and now is), nothing
    /// otherwise.
    pub fn erase_if_anonymized<E: Erasure>(
        &self,
        before: &User,
        erasure: &mut E,
    ) -> Result<(), E::Error> {
        if !self.status().is_deleted() || before.status().is_deleted() {
            return Ok(());
        }
        erasure.erase_expertise()?;
        erasure.leave_groups(self.modified())?;
        erasure.anonymize_use()
    }
}

#[cfg(test)]
mod tests;
