//! The users' storage port: the directory of users, their lifecycle
//! changes and their listings.

use chrono::{DateTime, Utc};
use kenning_domain::{
    Attribution, Limit, Offset, SearchText, User, UserCursor, UserError, UserFilter, UserId,
    UserKey,
};

use crate::errors::StoreError;

/// Why [`UserStore::modify`] did not store a change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModifyError {
    /// No user has the id.
    #[error("no such user")]
    NotFound,
    /// The change itself refused (a domain rule).
    #[error(transparent)]
    Rejected(UserError),
    /// The store failed; nothing was written.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ModifyError {
    fn from(error: StoreError) -> Self {
        ModifyError::Store(error)
    }
}

/// One page of a listing read by cursor: the users, and whether any
/// follow them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserPage {
    /// The users of the page, in listing order.
    pub users: Vec<User>,
    /// Whether more users follow the last one.
    pub more: bool,
}

impl UserPage {
    /// The page of `limit` users out of `users`, read in listing order with
    /// one more than `limit` asked for: that one only tells that more
    /// follow.
    pub fn of_one_more(mut users: Vec<User>, limit: Limit) -> Self {
        let limit = limit.get() as usize;
        let more = users.len() > limit;
        users.truncate(limit);
        Self { users, more }
    }
}

/// A page of the users a [`UserFilter`] asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilteredUsers {
    /// How many users match in all.
    pub total: u64,
    /// The page, in listing order.
    pub users: Vec<User>,
}

/// Where users live.
///
/// Contract (checked by the contract suite for every adapter):
/// - the e-mail key ([`kenning_domain::Email::key`]) and the externalId are
///   each unique among users that are not DELETED; a write that would break
///   this fails with [`StoreError::Conflict`], also when two writes race;
/// - [`modify`](UserStore::modify) is atomic per user: no other change
///   to the same user interleaves between its read and its write;
/// - listings are ordered by last name, first name, then id, so pages taken
///   with growing offsets are disjoint and together complete;
/// - a `modify` that anonymizes a user (leaves it DELETED) also removes
///   everything learned from its actions ([`crate::ExpertiseStore`]), in
///   the same atomic step;
/// - every write records what it changed in the audit trail
///   ([`crate::AuditTrail`]) under its [`Attribution`], in the same atomic
///   step: [`kenning_domain::user_created`] for a new user,
///   [`kenning_domain::user_changes`] of what a `modify` read and wrote,
///   and, when an anonymization takes the user out of groups,
///   [`kenning_domain::group_changed`] of each of them.
pub trait UserStore: Send + Sync {
    /// Stores a new user, made as `by` says.
    fn insert(&self, user: &User, by: &Attribution) -> Result<(), StoreError>;

    /// Stores each of `users` as [`insert`](UserStore::insert)
    /// would, in their order, with one answer each: a user refused (a
    /// unique value taken, also by an earlier one of `users`) leaves
    /// nothing and does not stop the others. The stored ones are all
    /// durable when this returns. A store that can should write them
    /// together (one transaction, one sync to disk; the database adapter
    /// does), and then answers `Err` when it failed and none was stored;
    /// this default inserts them one by one, each in its own step, and
    /// answers each insert's own failure in its place.
    fn insert_all(
        &self,
        users: &[(User, Attribution)],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        Ok(users
            .iter()
            .map(|(user, by)| self.insert(user, by))
            .collect())
    }

    /// The user with this id, whatever its status.
    fn get(&self, id: UserId) -> Result<Option<User>, StoreError>;

    /// The users with these ids, whatever their status, in no particular
    /// order; ids of no user are left out. One read however many there
    /// are, for answers that show many users at once.
    fn get_many(&self, ids: &[UserId]) -> Result<Vec<User>, StoreError>;

    /// The user who is not DELETED and holds `key`, read from the unique
    /// index on it; `None` when nobody does.
    fn get_by_key(&self, key: &UserKey) -> Result<Option<User>, StoreError>;

    /// Users whose haystack ([`SearchText::haystack`]) contains the needle;
    /// all users when there is none. Deleted users match only the empty
    /// search, as nothing personal of them is left to match.
    fn search(
        &self,
        text: &SearchText,
        offset: Offset,
        limit: Limit,
    ) -> Result<Vec<User>, StoreError>;

    /// The users [`search`](UserStore::search) would list for `text`
    /// that come after the position `after` in listing order (from the
    /// first when `None`), at most `limit` of them, and whether more follow.
    /// The position need not be a user that exists (any longer). Each page
    /// costs about what it returns, wherever it lies in the listing.
    fn search_after(
        &self,
        text: &SearchText,
        after: Option<&UserCursor>,
        limit: Limit,
    ) -> Result<UserPage, StoreError>;

    /// The ACTIVE and DEACTIVATED users `filter` asks for (all of them
    /// when `None`), in listing order, the first `skip` left out, at most
    /// `count`; with how many match in all. The filter runs in the store:
    /// an equality on the user name, the e-mail address or the externalId
    /// reads its unique index.
    fn filter(
        &self,
        filter: Option<&UserFilter>,
        skip: u64,
        count: u32,
    ) -> Result<FilteredUsers, StoreError>;

    /// Which of `users` exist and are not deleted.
    fn live_users(&self, users: &[UserId]) -> Result<Vec<UserId>, StoreError>;

    /// Loads the user, lets `change` alter it and stores the result, as one
    /// atomic step made as `by` says. When `change` refuses, nothing is
    /// written. `change` may be called more than once if a concurrent
    /// writer forces a retry.
    fn modify(
        &self,
        id: UserId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut User) -> Result<(), UserError>,
    ) -> Result<User, ModifyError>;

    /// Up to `max` users pending deletion whose moment is at or before `now`.
    fn due_for_purge(&self, now: DateTime<Utc>, max: u32) -> Result<Vec<UserId>, StoreError>;

    /// Makes the personal data of the users anonymized so far unreadable
    /// from the store's own files, as far as the store can: old row
    /// versions, freed pages and write-ahead logs that still hold what the
    /// anonymizing [`modify`](UserStore::modify) replaced. Called once
    /// after a purge that anonymized anyone, outside any transaction; it
    /// may take a while on a large store. It cannot reach copies the store
    /// does not own (backups, replicas, archived logs).
    fn compact_after_erasure(&self) -> Result<(), StoreError>;

    /// Whether the store answers.
    fn ping(&self) -> Result<(), StoreError>;
}
