//! The user-management use cases.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use kenning_domain::{
    Actor, Attribution, Email, LanguageId, Limit, NewUser, NewUserInput, Offset, SearchText,
    StatusChange, User, UserCursor, UserError, UserFilter, UserId, UserKey, UserPatch,
    UserPatchInput, ValidationErrors,
};
use kenning_ports::{Clock, FilteredUsers, ModifyError, StoreError, UserPage, UserStore};
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::administrators::{changes_guarded, Administrators, ADMINISTRATOR_GUARDED};
use crate::batched_writes::WriteBatcher;
use crate::error::{Missing, ServiceError};
use crate::stale::retry_stale;

mod identify;

/// How many due users the purge takes from the store at a time; it takes
/// batch after batch until the store has no more due users.
pub const PURGE_BATCH: u32 = 100;

/// A whole user as [`UserService::replace`] takes it: the e-mail address,
/// every other attribute, and whether it is ACTIVE (or DEACTIVATED) when
/// given.
#[derive(Debug, Clone)]
pub struct Replacement {
    /// The e-mail address, as written.
    pub email: String,
    /// The other attributes, as written.
    pub changes: UserPatchInput,
    /// Whether the user is ACTIVE (`false`: DEACTIVATED), when given.
    pub active: Option<bool>,
}

/// Creates, reads, changes and retires users.
#[derive(Clone)]
pub struct UserService {
    users: Arc<dyn UserStore>,
    clock: Arc<dyn Clock>,
    default_language: LanguageId,
    /// Who the changes made through this service are recorded as made by.
    actor: Actor,
    /// Who calls: each use case asks whether they may.
    caller: Caller,
    /// Who administers Kenning: their e-mail addresses and external ids
    /// are changed only by a caller who may change who administers.
    administrators: Administrators,
    /// New users of concurrent callers are stored together.
    inserts: WriteBatcher<(User, Attribution), Result<(), StoreError>>,
}

impl std::fmt::Debug for UserService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserService")
            .field("default_language", &self.default_language)
            .field("actor", &self.actor)
            .finish_non_exhaustive()
    }
}

impl UserService {
    /// The service over `users`; `clock` says when users are created,
    /// deleted and purged, and a user created without a language gets
    /// `default_language`. Its changes are recorded as made by
    /// [`Actor::embedded`] until [`acting_as`](Self::acting_as) names
    /// someone, and it serves the operator until
    /// [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(
        users: Arc<dyn UserStore>,
        clock: Arc<dyn Clock>,
        default_language: LanguageId,
    ) -> Self {
        Self {
            inserts: insert_writers(&users, 1),
            users,
            clock,
            default_language,
            actor: Actor::embedded(),
            caller: Caller::operator(),
            administrators: Administrators::nobody(),
        }
    }

    /// The service guarding the e-mail addresses and external ids of
    /// `administrators` (nobody's until given).
    #[must_use]
    pub fn with_administrators(mut self, administrators: Administrators) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        self.administrators = administrators;
        self
    }

    /// The service with `writers` writers of new users (at least one),
    /// each writing its own transactions at once with the others; the
    /// composition root, which knows the store, says how many.
    pub fn with_writers(mut self, writers: usize) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        self.inserts = insert_writers(&self.users, writers);
        self
    }

    /// The same service, its changes recorded in the audit trail as made
    /// by `actor` (the credential of a request, the command line).
    pub fn acting_as(&self, actor: Actor) -> Self {
        if !self.caller.is_operator() {
            return self.clone();
        }
        Self {
            actor,
            ..self.clone()
        }
    }

    /// The same service for `caller`: each use case refuses what they may
    /// not do (reading the directory needs `users:read`, changing it
    /// `users:write`).
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// A change made now by this service's actor.
    fn attribution(&self, at: DateTime<Utc>) -> Attribution {
        Attribution::new(self.actor.clone(), at)
    }

    /// A new ACTIVE user.
    pub fn create(&self, input: NewUserInput) -> Result<User, ServiceError> {
        self.create_as(input, true)
    }

    /// A new user, ACTIVE or (`active` false) DEACTIVATED from the start,
    /// as an identity provider may provision someone who cannot sign in
    /// yet.
    pub fn create_as(&self, input: NewUserInput, active: bool) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let new = NewUser::parse(input, &self.default_language)?;
        let now = self.clock.now();
        let mut user = User::register(UserId::from_uuid(Uuid::new_v4()), new, now);
        if !active {
            user.deactivate()?;
        }
        // Written with the new users of concurrent callers, durable when
        // answered.
        self.inserts
            .write(vec![(user.clone(), self.attribution(now))])?
            .pop()
            .unwrap_or_else(|| Err(StoreError::backend_message("a new user was not answered")))?;
        Ok(user)
    }

    /// `Forbidden` unless the caller may read the directory: for what
    /// describes it rather than holds it (SCIM's discovery documents).
    pub fn may_read(&self) -> Result<(), ServiceError> {
        self.caller.require(Operation::ReadUsers)
    }

    /// The ACTIVE and DEACTIVATED users `filter` asks for (all of them
    /// when `None`), in listing order, the first `skip` left out, at most
    /// `count`; with how many match in all.
    pub fn filter(
        &self,
        filter: Option<&UserFilter>,
        skip: u64,
        count: u32,
    ) -> Result<FilteredUsers, ServiceError> {
        self.caller.require(Operation::ReadUsers)?;
        Ok(self.users.filter(filter, skip, count)?)
    }

    /// The user with this id, whatever its status; `NotFound` when there is
    /// none.
    pub fn get(&self, id: UserId) -> Result<User, ServiceError> {
        self.caller.require(Operation::ReadUsers)?;
        self.read(id)
    }

    /// The user with this id as a change of it starts from it (a write
    /// that computes the new user from the old, as SCIM's `PUT` does), for
    /// a caller who may change users; `NotFound` when there is none.
    pub fn get_for_change(&self, id: UserId) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        self.read(id)
    }

    fn read(&self, id: UserId) -> Result<User, ServiceError> {
        self.users
            .get(id)?
            .ok_or(ServiceError::NotFound(Missing::User))
    }

    /// The user who is not deleted and holds `key` (an e-mail address
    /// without regard to case, or an externalId), read from the unique
    /// index on it; `NotFound` when nobody does.
    pub fn get_by_key(&self, key: &UserKey) -> Result<User, ServiceError> {
        self.caller.require(Operation::ReadUsers)?;
        self.users
            .get_by_key(key)?
            .ok_or(ServiceError::NotFound(Missing::User))
    }

    /// The users with these ids, whatever their status, in one read; ids
    /// of no user are left out.
    pub fn get_many(&self, ids: &[UserId]) -> Result<Vec<User>, ServiceError> {
        self.caller.require(Operation::ReadUsers)?;
        Ok(self.users.get_many(ids)?)
    }

    /// One page of the users `text` matches, ordered by last name, first name,
    /// then id, so growing offsets give disjoint pages.
    pub fn search(
        &self,
        text: &SearchText,
        offset: Offset,
        limit: Limit,
    ) -> Result<Vec<User>, ServiceError> {
        self.caller.require(Operation::ReadUsers)?;
        Ok(self.users.search(text, offset, limit)?)
    }

    /// The page of at most `limit` users `text` matches that follow the
    /// position `after` in the order of [`search`](Self::search) (from the
    /// first user when `None`), and whether more follow. A page costs about
    /// what it returns, however deep in the listing it lies; the position
    /// of its last user ([`UserCursor::of`]) is where the next one starts.
    pub fn search_after(
        &self,
        text: &SearchText,
        after: Option<&UserCursor>,
        limit: Limit,
    ) -> Result<UserPage, ServiceError> {
        self.caller.require(Operation::ReadUsers)?;
        Ok(self.users.search_after(text, after, limit)?)
    }

    /// Changes the attributes the input lists. With `expected`, only if
    /// the user is still at that version ([`User::version`]); `StaleVersion`
    /// when someone changed it since.
    pub fn update(
        &self,
        id: UserId,
        input: UserPatchInput,
        expected: Option<u64>,
    ) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let patch = UserPatch::parse(input)?;
        self.modify_guarded(id, |user| {
            expect(user, expected)?;
            user.update(patch.clone())
        })
    }

    /// Changes the e-mail address, the only way to do so; `expected` as for
    /// [`update`](Self::update).
    pub fn update_email(
        &self,
        id: UserId,
        email: &str,
        expected: Option<u64>,
    ) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let email = Email::parse(email).map_err(ValidationErrors::from)?;
        self.modify_guarded(id, |user| {
            expect(user, expected)?;
            user.change_email(email.clone())
        })
    }

    /// Makes the user's e-mail address, the attributes `changes` lists
    /// and, when given, whether it is ACTIVE (or DEACTIVATED) what they
    /// say, in one atomic step and only if the user is still at version
    /// `expected` (when given): a replacement of the whole user, as SCIM's
    /// `PUT` and `PATCH` ask. Every bad field is reported at once, and
    /// nothing is written unless everything applies.
    pub fn replace(
        &self,
        id: UserId,
        expected: Option<u64>,
        email: &str,
        changes: UserPatchInput,
        active: Option<bool>,
    ) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let email = Email::parse(email).map_err(ValidationErrors::from);
        let (email, patch) = match (email, UserPatch::parse(changes)) {
            (Ok(email), Ok(patch)) => (email, patch),
            (Err(first), Err(then)) => return Err(first.and(then).into()),
            (Err(errors), _) | (_, Err(errors)) => return Err(errors.into()),
        };
        self.modify_guarded(id, |user| {
            expect(user, expected)?;
            user.update(patch.clone())?;
            user.change_email(email.clone())?;
            match active {
                Some(true) => user.reactivate(),
                Some(false) => user.deactivate(),
                None => Ok(()),
            }
        })
    }

    /// Replaces the user with what `change` makes of it as read (SCIM's
    /// `PATCH`): `change` sees the user as stored and answers the
    /// [`Replacement`], applied as [`replace`](Self::replace) applies one,
    /// only at the version read, so a change made meanwhile is never
    /// overwritten with what was read before it. With `expected`, a user at
    /// another version is `StaleVersion`; without, a user that changed
    /// between the read and the write is read and changed again, up to
    /// [`PATCH_ATTEMPTS`](crate::PATCH_ATTEMPTS) reads. An error of `change` ends it.
    pub fn patch<E: From<ServiceError>>(
        &self,
        id: UserId,
        expected: Option<u64>,
        mut change: impl FnMut(&User) -> Result<Replacement, E>,
    ) -> Result<User, E> {
        self.caller.require(Operation::WriteUsers)?;
        retry_stale(expected, || {
            let current = self.read(id)?;
            let Replacement {
                email,
                changes,
                active,
            } = change(&current)?;
            let version = expected.unwrap_or(current.version());
            Ok(self.replace(id, Some(version), &email, changes, active))
        })
    }

    /// An ACTIVE user becomes DEACTIVATED; one deactivated already or
    /// pending deletion stays as it is ([`User::deactivate`]). `Forbidden`
    /// for a system user, `InvalidTransition` for a deleted one.
    pub fn deactivate(&self, id: UserId) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        self.modify_guarded(id, User::deactivate)
    }

    /// A DEACTIVATED user becomes ACTIVE again; an ACTIVE one stays as it is
    /// ([`User::reactivate`]). `InvalidTransition` while a deletion is
    /// pending (it must be cancelled first) or after it.
    pub fn reactivate(&self, id: UserId) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        self.modify_guarded(id, User::reactivate)
    }

    /// Schedules the user's anonymization a grace period from now.
    pub fn delete(&self, id: UserId) -> Result<User, ServiceError> {
        self.delete_expecting(id, None)
    }

    /// [`delete`](Self::delete), only if the user is still at version
    /// `expected` (when given); `StaleVersion` otherwise.
    pub fn delete_expecting(
        &self,
        id: UserId,
        expected: Option<u64>,
    ) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let now = self.clock.now();
        self.modify_guarded(id, |user| {
            expect(user, expected)?;
            user.delete(now)
        })
    }

    /// The changes of status `user` takes now that change it
    /// ([`User::status_changes`] at the clock's now): what a page offers.
    pub fn status_changes(&self, user: &User) -> Vec<StatusChange> {
        user.status_changes(self.clock.now())
    }

    /// Takes back a scheduled deletion within the grace period (the user is
    /// DEACTIVATED again); `GracePeriodExpired` after it, and
    /// `InvalidTransition` when no deletion is pending.
    pub fn cancel_delete(&self, id: UserId) -> Result<User, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let now = self.clock.now();
        self.modify_guarded(id, |user| user.cancel_delete(now))
    }

    /// Anonymizes every user whose grace period has passed and returns how
    /// many this call anonymized. Safe to run from several processes at once:
    /// a user another process got to first is not counted here.
    ///
    /// When it anonymized anyone, it then has the store compact itself
    /// ([`UserStore::compact_after_erasure`]) so the erased values do
    /// not stay readable in its files. Should that fail, the users stay
    /// anonymized and the error says how many.
    pub fn purge_due(&self) -> Result<usize, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        let purged = self.anonymize_due()?;
        if purged > 0 {
            self.users.compact_after_erasure().map_err(|e| {
                ServiceError::Internal(format!(
                    "anonymized {purged} user(s), but the store could not be compacted \
                     afterwards, so their old values may still be in its files: {}",
                    crate::error::chain(&e)
                ))
            })?;
        }
        Ok(purged)
    }

    fn anonymize_due(&self) -> Result<usize, ServiceError> {
        let now = self.clock.now();
        let by = Attribution::new(Actor::purge(), now);
        let mut purged = 0;
        loop {
            let due = self.users.due_for_purge(now, PURGE_BATCH)?;
            let mut progressed = false;
            for id in &due {
                let anonymize = &mut |user: &mut User| {
                    user.anonymize(now)?;
                    user.touch(now);
                    Ok(())
                };
                match self.users.modify(*id, &by, anonymize) {
                    Ok(_) => {
                        purged += 1;
                        progressed = true;
                    }
                    // Someone else anonymized (or cancelled) it meanwhile.
                    Err(ModifyError::Rejected(_) | ModifyError::NotFound) => {}
                    Err(ModifyError::Store(e)) => return Err(e.into()),
                }
            }
            if due.len() < PURGE_BATCH as usize || !progressed {
                return Ok(purged);
            }
        }
    }

    /// Whether storage answers.
    pub(crate) fn ready(&self) -> Result<(), ServiceError> {
        Ok(self.users.ping()?)
    }

    /// Applies `change` atomically and records the moment of the change.
    fn modify(
        &self,
        id: UserId,
        mut change: impl FnMut(&mut User) -> Result<(), UserError>,
    ) -> Result<User, ServiceError> {
        let now = self.clock.now();
        Ok(self.users.modify(id, &self.attribution(now), &mut |user| {
            change(user)?;
            user.touch(now);
            Ok(())
        })?)
    }

    /// [`modify`](Self::modify), refusing (`Forbidden`) a change of an
    /// administrator's e-mail address, external id or status unless the
    /// caller may change who administers Kenning: with any of them, a
    /// token that only writes users could take over an administrator's
    /// sign-in, bring a deactivated one back (with the tokens they
    /// issued) or lock the organisation out of its console.
    fn modify_guarded(
        &self,
        id: UserId,
        mut change: impl FnMut(&mut User) -> Result<(), UserError>,
    ) -> Result<User, ServiceError> {
        let guarded = self.administrators.guards(&self.caller, id)?;
        self.modify(id, |user| {
            let before = guarded.then(|| user.clone());
            change(user)?;
            match before {
                Some(before) if changes_guarded(&before, user) => {
                    Err(UserError::Forbidden(ADMINISTRATOR_GUARDED))
                }
                _ => Ok(()),
            }
        })
    }
}

/// Refuses a change asked for another version than the user's.
fn expect(user: &User, expected: Option<u64>) -> Result<(), UserError> {
    expected.map_or(Ok(()), |version| user.expect_version(version))
}

/// The writers of new users: `writers` threads inserting through `users`.
fn insert_writers(
    users: &Arc<dyn UserStore>,
    writers: usize,
) -> WriteBatcher<(User, Attribution), Result<(), StoreError>> {
    let users = users.clone();
    let insert_all = move |new: &[(User, Attribution)]| users.insert_all(new);
    WriteBatcher::new("kenning-new-users", writers.max(1), Arc::new(insert_all))
}
