//! Signing in to the web app: how a person proved who they are, how long
//! a sign-in link is good for, and how long a session lasts.

use chrono::{DateTime, Duration, Utc};

/// How long a sign-in link is good for, from when it was issued.
pub const SIGN_IN_LINK_MINUTES: i64 = 15;

/// How a person proved who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignInMethod {
    /// A sign-in link an operator printed (`kenning signin-link`).
    Link,
    /// The organisation's OpenID Connect identity provider.
    Oidc,
}

impl SignInMethod {
    /// Every method.
    pub const ALL: [SignInMethod; 2] = [SignInMethod::Link, SignInMethod::Oidc];

    /// Its stable name.
    pub fn as_str(&self) -> &'static str {
        match self {
            SignInMethod::Link => "link",
            SignInMethod::Oidc => "oidc",
        }
    }

    /// The method named `raw`, as [`as_str`](Self::as_str) writes it.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == raw)
    }
}

/// How long a session lasts: it ends after `idle` without a request, and
/// at the latest `absolute` after it began, however busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionPolicy {
    /// How long a session lasts without a request.
    pub idle: Duration,
    /// How long a session lasts at most.
    pub absolute: Duration,
}

impl Default for SessionPolicy {
    /// Eight hours idle (a working day with a long meeting), seven days in
    /// all (a person signs in again once a week).
    fn default() -> Self {
        Self {
            idle: Duration::hours(8),
            absolute: Duration::days(7),
        }
    }
}

/// Where a session stands at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// It may be used.
    Live,
    /// Nothing was asked for longer than the idle limit.
    IdleExpired,
    /// It began longer ago than the absolute limit.
    AbsoluteExpired,
}

impl SessionPolicy {
    /// Where a session that began at `created` and was last used at
    /// `last_seen` stands at `now`.
    pub fn state(
        &self,
        created: DateTime<Utc>,
        last_seen: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> SessionState {
        if now >= created + self.absolute {
            SessionState::AbsoluteExpired
        } else if now >= last_seen + self.idle {
            SessionState::IdleExpired
        } else {
            SessionState::Live
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(hour: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 2, hour, 0, 0).unwrap()
    }

    #[test]
    fn a_session_ends_when_idle_or_too_old() {
        let policy = SessionPolicy {
            idle: Duration::hours(2),
            absolute: Duration::hours(5),
        };
        assert_eq!(policy.state(at(1), at(2), at(3)), SessionState::Live);
        assert_eq!(policy.state(at(1), at(2), at(4)), SessionState::IdleExpired);
        assert_eq!(
            policy.state(at(1), at(5), at(6)),
            SessionState::AbsoluteExpired
        );
    }

    #[test]
    fn methods_read_back_from_their_names() {
        for method in SignInMethod::ALL {
            assert_eq!(SignInMethod::parse(method.as_str()), Some(method));
        }
        assert_eq!(SignInMethod::parse("password"), None);
    }
}
