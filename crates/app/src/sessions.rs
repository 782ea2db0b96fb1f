//! Signing people in to the web app: sign-in links, sessions, signing
//! out. A link and a session cookie each carry 256 random bits; the store
//! keeps only their SHA-256 hashes, so a copy of the database signs
//! nobody in.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{
    Actor, Attribution, Email, SessionPolicy, SessionState, SignInMethod, User, UserId, UserKey,
    SIGN_IN_LINK_MINUTES,
};
use kenning_ports::{Clock, Redemption, SessionStore, StoredLink, StoredSession, UserStore};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::credentials::{hash, random_secret};
use crate::error::ServiceError;

/// How long a session's last use may be off before it is written again:
/// a busy person's requests do not each write.
const TOUCH_EVERY_SECONDS: i64 = 60;

/// A sign-in link, issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedLink {
    /// The secret the link's URL carries (shown once, never stored).
    pub secret: String,
    /// The person it signs in.
    pub user: UserId,
    /// From when it no longer works.
    pub expires: chrono::DateTime<chrono::Utc>,
}

/// A session a person acts in: who they are, as read on this request,
/// and the session's id.
#[derive(Debug, Clone)]
pub struct Session {
    user: User,
    id: Uuid,
    csrf: String,
}

impl Session {
    /// The person, as read on this request.
    pub fn user(&self) -> &User {
        &self.user
    }

    /// The session's id.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// The token the session's forms carry against cross-site request
    /// forgery.
    pub fn csrf_token(&self) -> &str {
        &self.csrf
    }

    /// Whether `presented` is the session's token (compared in constant
    /// time).
    pub fn csrf_matches(&self, presented: &str) -> bool {
        bool::from(self.csrf.as_bytes().ct_eq(presented.as_bytes()))
    }

    /// The person as the actor of what they change.
    pub fn actor(&self) -> Actor {
        Actor::person(self.user.id().as_uuid())
    }
}

/// A session begun: the secret its cookie carries.
#[derive(Debug, Clone)]
pub struct SessionBegun {
    /// The cookie's value (shown once, never stored).
    pub secret: String,
}

/// Why a sign-in was refused, or a session is over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    /// No sign-in link has this secret.
    #[error("this sign-in link is not one Kenning issued; ask for a new one")]
    UnknownLink,
    /// The link was used before.
    #[error("this sign-in link was used already; each link signs in once, so ask for a new one")]
    UsedLink,
    /// The link's time ran out.
    #[error("this sign-in link has expired (a link works for {SIGN_IN_LINK_MINUTES} minutes); ask for a new one")]
    ExpiredLink,
    /// No person has the e-mail address (or the identity provider's
    /// claim) given.
    #[error("no person in Kenning has this e-mail address; ask an administrator to add you")]
    UnknownPerson,
    /// The person may not sign in now.
    #[error("this account is {status}, so it cannot sign in; ask an administrator")]
    NotActive {
        /// The user's status, in words.
        status: &'static str,
    },
    /// No session has the cookie's secret (signed out, or never signed in).
    #[error("you are not signed in")]
    NoSession,
    /// The session was unused for too long.
    #[error("your session ended after a long pause; sign in again")]
    IdleExpired,
    /// The session is too old.
    #[error("your session ended, as every session does after a week; sign in again")]
    AbsoluteExpired,
    /// Something that is not the person's fault.
    #[error(transparent)]
    Service(#[from] ServiceError),
}

impl From<kenning_ports::StoreError> for SignInError {
    fn from(e: kenning_ports::StoreError) -> Self {
        SignInError::Service(e.into())
    }
}

/// Signs people in and out, and finds the person a session cookie names.
#[derive(Clone)]
pub struct SessionService {
    store: Arc<dyn SessionStore>,
    users: Arc<dyn UserStore>,
    clock: Arc<dyn Clock>,
    policy: SessionPolicy,
    /// The operator, or anyone (the doors', before they know the caller).
    caller: Caller,
}

impl std::fmt::Debug for SessionService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionService")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// A user's status in the words of a refusal.
fn status_words(user: &User) -> &'static str {
    match user.status() {
        kenning_domain::Status::Active => "active",
        kenning_domain::Status::Deactivated => "deactivated",
        kenning_domain::Status::PendingDeletion { .. } => "being deleted",
        kenning_domain::Status::Deleted { .. } => "deleted",
    }
}

impl SessionService {
    /// Sessions in `store` of the users in `users`, lasting as `policy`
    /// says.
    pub fn new(
        store: Arc<dyn SessionStore>,
        users: Arc<dyn UserStore>,
        clock: Arc<dyn Clock>,
        policy: SessionPolicy,
    ) -> Self {
        Self {
            store,
            users,
            clock,
            policy,
            caller: Caller::operator(),
        }
    }

    /// The same service for anyone, before the caller is known: what the
    /// [`crate::Gate`] hands the doors, which signs in and out but runs
    /// no round.
    pub(crate) fn for_anyone(&self) -> Self {
        Self {
            caller: Caller::anyone(),
            ..self.clone()
        }
    }

    /// How long sessions last.
    pub fn policy(&self) -> SessionPolicy {
        self.policy
    }

    /// Begins a session for the person an identity provider's verified
    /// claim names (`key`: the e-mail address, or the externalId), who
    /// proved who they are by `method`.
    pub fn sign_in_as(
        &self,
        key: &UserKey,
        method: SignInMethod,
    ) -> Result<SessionBegun, SignInError> {
        let user = self.person_by(key)?;
        self.sign_in(user, method)
    }

    /// The person who may sign in under `key`: `UnknownPerson` when
    /// nobody has it, `NotActive` unless they are ACTIVE.
    fn person_by(&self, key: &UserKey) -> Result<User, SignInError> {
        let user = self
            .users
            .get_by_key(key)?
            .ok_or(SignInError::UnknownPerson)?;
        if !user.may_sign_in() {
            return Err(SignInError::NotActive {
                status: status_words(&user),
            });
        }
        Ok(user)
    }

    /// A sign-in link for the person with the e-mail address `email`,
    /// good once for [`SIGN_IN_LINK_MINUTES`] minutes.
    pub fn issue_link(&self, email: &str) -> Result<IssuedLink, SignInError> {
        let email = Email::parse(email).map_err(|e| SignInError::Service(e.into()))?;
        let user = self.person_by(&UserKey::Email(email))?;
        let secret = random_secret()?;
        let created = self.clock.now();
        let link = StoredLink {
            secret_hash: hash(&secret),
            user: user.id(),
            created,
            expires: created + Duration::minutes(SIGN_IN_LINK_MINUTES),
        };
        self.store.insert_link(&link)?;
        Ok(IssuedLink {
            secret,
            user: link.user,
            expires: link.expires,
        })
    }

    /// Signs in with the link whose secret is `secret`, once.
    pub fn sign_in_with_link(&self, secret: &str) -> Result<SessionBegun, SignInError> {
        match self.store.redeem_link(&hash(secret), self.clock.now())? {
            Redemption::Redeemed(user) => {
                let user = self.users.get(user)?.ok_or(SignInError::UnknownPerson)?;
                self.sign_in(user, SignInMethod::Link)
            }
            Redemption::Used => Err(SignInError::UsedLink),
            Redemption::Expired => Err(SignInError::ExpiredLink),
            Redemption::Unknown => Err(SignInError::UnknownLink),
        }
    }

    /// Begins a session for `user`, who proved who they are by `method`;
    /// refused unless they may sign in. Recorded in the audit trail.
    fn sign_in(&self, user: User, method: SignInMethod) -> Result<SessionBegun, SignInError> {
        if !user.may_sign_in() {
            return Err(SignInError::NotActive {
                status: status_words(&user),
            });
        }
        let secret = random_secret()?;
        let now = self.clock.now();
        let session = StoredSession {
            id: Uuid::new_v4(),
            secret_hash: hash(&secret),
            user: user.id(),
            method,
            csrf: random_secret()?,
            created: now,
            last_seen: now,
        };
        let by = Attribution::new(Actor::person(user.id().as_uuid()), now);
        self.store.open_session(&session, &by)?;
        Ok(SessionBegun { secret })
    }

    /// The session the cookie `secret` names. A session idle or
    /// old past the policy, or of a person who may no longer sign in
    /// (deactivated, deleted, anonymized), is ended here, on every
    /// instance, and said why.
    pub fn session(&self, secret: &str) -> Result<Session, SignInError> {
        let session = self
            .store
            .session(&hash(secret))?
            .ok_or(SignInError::NoSession)?;
        let now = self.clock.now();
        let ended = |why: SignInError| -> Result<Session, SignInError> {
            let by = Attribution::new(Actor::person(session.user.as_uuid()), now);
            self.store.end_session(session.id, &by)?;
            Err(why)
        };
        match self.policy.state(session.created, session.last_seen, now) {
            SessionState::Live => {}
            SessionState::IdleExpired => return ended(SignInError::IdleExpired),
            SessionState::AbsoluteExpired => return ended(SignInError::AbsoluteExpired),
        }
        let Some(user) = self.users.get(session.user)? else {
            return ended(SignInError::UnknownPerson);
        };
        if !user.may_sign_in() {
            let status = status_words(&user);
            return ended(SignInError::NotActive { status });
        }
        if now - session.last_seen >= Duration::seconds(TOUCH_EVERY_SECONDS) {
            self.store.touch_session(session.id, now)?;
        }
        Ok(Session {
            user,
            id: session.id,
            csrf: session.csrf,
        })
    }

    /// Ends `session` on every instance; recorded in the audit
    /// trail.
    pub fn sign_out(&self, session: &Session) -> Result<(), ServiceError> {
        let by = Attribution::new(session.actor(), self.clock.now());
        self.store.end_session(session.id, &by)?;
        Ok(())
    }

    /// Forgets the sessions that have ended by the policy (idle or too
    /// old) and the sign-in links expired a day or more ago (a link
    /// presented after its time is told it expired, for a day); how many
    /// rows went. The server runs it with the purge.
    pub fn prune(&self) -> Result<u64, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        let now = self.clock.now();
        Ok(self.store.prune_sessions(
            now - self.policy.idle,
            now - self.policy.absolute,
            now - Duration::days(1),
        )?)
    }
}
