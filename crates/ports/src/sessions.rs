//! Sign-in links and the sessions of people signed in to the web app,
//! kept in the store so that they survive a restart and hold on every
//! instance of one database. Only hashes of their secrets are stored.

use chrono::{DateTime, Utc};
use kenning_domain::{Attribution, SignInMethod, UserId};
use uuid::Uuid;

use crate::errors::StoreError;

/// A sign-in link as stored: good once, until `expires`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLink {
    /// The SHA-256 hash (hex) of the link's secret.
    pub secret_hash: String,
    /// The person it signs in.
    pub user: UserId,
    /// When it was issued.
    pub created: DateTime<Utc>,
    /// From when it no longer signs anyone in.
    pub expires: DateTime<Utc>,
}

/// What presenting a sign-in link came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redemption {
    /// The link was good; it is used now, and signs in `0`.
    Redeemed(UserId),
    /// The link was used before.
    Used,
    /// The link's time ran out.
    Expired,
    /// No link has this secret.
    Unknown,
}

/// A session of a signed-in person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSession {
    /// Its id (never shown: the cookie carries the secret).
    pub id: Uuid,
    /// The SHA-256 hash (hex) of the cookie's secret.
    pub secret_hash: String,
    /// The person signed in.
    pub user: UserId,
    /// How they proved who they are.
    pub method: SignInMethod,
    /// The token every form of the session carries against cross-site
    /// request forgery.
    pub csrf: String,
    /// When it began.
    pub created: DateTime<Utc>,
    /// When it was last used (at most a minute off: see
    /// [`SessionStore::touch_session`]).
    pub last_seen: DateTime<Utc>,
}

/// Where sign-in links and sessions are kept.
pub trait SessionStore: Send + Sync {
    /// Stores a new sign-in link.
    fn insert_link(&self, link: &StoredLink) -> Result<(), StoreError>;

    /// Uses the link whose secret hashes to `secret_hash` at `now`: of two
    /// redemptions of one link, at once or on two instances, exactly one
    /// is [`Redemption::Redeemed`].
    fn redeem_link(&self, secret_hash: &str, now: DateTime<Utc>) -> Result<Redemption, StoreError>;

    /// Stores a new session, recording `user.signed_in` with its method as
    /// `by` in the same transaction.
    fn open_session(&self, session: &StoredSession, by: &Attribution) -> Result<(), StoreError>;

    /// The session whose secret hashes to `secret_hash`, if it was not
    /// ended.
    fn session(&self, secret_hash: &str) -> Result<Option<StoredSession>, StoreError>;

    /// Marks the session `id` used at `at`.
    fn touch_session(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Ends the session `id` on every instance, recording
    /// `user.signed_out` as `by` when it was still open; whether it was.
    fn end_session(&self, id: Uuid, by: &Attribution) -> Result<bool, StoreError>;

    /// Forgets what can no longer sign anyone in: sessions last used
    /// before `idle_before` or begun before `begun_before`, and sign-in
    /// links that expired before `links_before`; how many rows went.
    fn prune_sessions(
        &self,
        idle_before: DateTime<Utc>,
        begun_before: DateTime<Utc>,
        links_before: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
}
