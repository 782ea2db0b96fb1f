//! Webhook subscriptions and the rules of their delivery: which changes a
//! subscription wants, how long a failed delivery waits before it is
//! tried again, and when a subscription is given up on.

use chrono::{DateTime, TimeDelta, Utc};
use uuid::Uuid;

use crate::audit::ChangeKind;
use crate::validation::{FieldViolation, Rule, ValidationErrors};

/// The longest subscription URL, in bytes.
pub const MAX_URL_LEN: usize = 2_048;

/// The first wait after a failed delivery; each further failure doubles it.
pub const FIRST_RETRY: TimeDelta = TimeDelta::seconds(1);

/// The longest wait between two attempts.
pub const LONGEST_RETRY: TimeDelta = TimeDelta::minutes(10);

/// A subscription as it is asked for.
#[derive(Debug, Clone, Default)]
pub struct SubscriptionInput {
    /// Where events are posted.
    pub url: String,
    /// The kinds of change wanted, by name; none or empty: every kind.
    pub kinds: Vec<String>,
}

/// Whether a subscription is being delivered to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionState {
    /// Its events are delivered.
    Active,
    /// Its deliveries kept failing since this moment; its events are kept,
    /// and delivered again once it is resumed.
    Failing {
        /// When it was given up on.
        since: DateTime<Utc>,
    },
}

impl SubscriptionState {
    /// Its stable name.
    pub fn as_str(&self) -> &'static str {
        match self {
            SubscriptionState::Active => "ACTIVE",
            SubscriptionState::Failing { .. } => "FAILING",
        }
    }
}

/// A webhook subscription: where the changes of the kinds it wants are
/// posted, signed with its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    /// Its id.
    pub id: Uuid,
    /// Where events are posted; checked against the network policy when it
    /// was made.
    pub url: String,
    /// The kinds wanted; empty: every kind.
    pub kinds: Vec<ChangeKind>,
    /// The key its deliveries are signed with (HMAC-SHA256); shown once,
    /// when the subscription is made.
    pub secret: String,
    /// When it was made.
    pub created: DateTime<Utc>,
    /// Whether it is delivered to.
    pub state: SubscriptionState,
}

impl Subscription {
    /// Whether a change of `kind` is delivered to this subscription.
    pub fn wants(&self, kind: ChangeKind) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&kind)
    }
}

/// The kinds `input` names, each once, in the order of
/// [`ChangeKind::ALL`], and its URL trimmed; every bad field reported at
/// once. Whether the URL may be called is the network policy's to say.
pub fn parse_subscription(
    input: &SubscriptionInput,
) -> Result<(String, Vec<ChangeKind>), ValidationErrors> {
    let mut problems = Vec::new();
    let url = input.url.trim().to_owned();
    if url.is_empty() {
        problems.push(FieldViolation::new("url", Rule::Required));
    } else if url.len() > MAX_URL_LEN {
        problems.push(FieldViolation::new(
            "url",
            Rule::TooLong { limit: MAX_URL_LEN },
        ));
    }
    let mut kinds = Vec::new();
    for raw in &input.kinds {
        match ChangeKind::parse(raw.trim()) {
            Ok(kind) if !kinds.contains(&kind) => kinds.push(kind),
            Ok(_) => {}
            Err(violation) => problems.push(violation),
        }
    }
    kinds.sort();
    match problems
        .into_iter()
        .map(ValidationErrors::from)
        .reduce(ValidationErrors::and)
    {
        Some(errors) => Err(errors),
        None => Ok((url, kinds)),
    }
}

/// How long to wait before attempt `attempts + 1` of a delivery that
/// failed `attempts` times: [`FIRST_RETRY`] doubled each time, at most
/// [`LONGEST_RETRY`], scaled by `jitter` (from 0 to 1) into its upper half,
/// so deliveries that failed together do not all come back together.
pub fn retry_delay(attempts: u32, jitter: f64) -> TimeDelta {
    let doublings = attempts.saturating_sub(1).min(20);
    let full = (FIRST_RETRY * 2_i32.pow(doublings)).min(LONGEST_RETRY);
    let scale = 0.5 + 0.5 * jitter.clamp(0.0, 1.0);
    // Milliseconds of at most ten minutes: exact in an f64.
    TimeDelta::milliseconds((full.num_milliseconds() as f64 * scale).round() as i64)
}

/// Whether a delivery first attempted at `first` and failing still at
/// `now` has been retried for `retry_for` already: its subscription is
/// then failing.
pub fn gives_up(first: DateTime<Utc>, now: DateTime<Utc>, retry_for: TimeDelta) -> bool {
    now - first >= retry_for
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_longest_with_jitter_in_the_upper_half() {
        assert_eq!(retry_delay(1, 1.0), TimeDelta::seconds(1));
        assert_eq!(retry_delay(2, 1.0), TimeDelta::seconds(2));
        assert_eq!(retry_delay(5, 1.0), TimeDelta::seconds(16));
        assert_eq!(retry_delay(50, 1.0), LONGEST_RETRY);
        assert_eq!(retry_delay(3, 0.0), TimeDelta::seconds(2));
        let jittered = retry_delay(4, 0.3);
        assert!(jittered > TimeDelta::seconds(4) && jittered < TimeDelta::seconds(8));
    }

    #[test]
    fn a_subscription_names_known_kinds_once() {
        let (url, kinds) = parse_subscription(&SubscriptionInput {
            url: " https://hooks.example/kenning ".into(),
            kinds: vec![
                "user.deleted".into(),
                "user.created".into(),
                "user.deleted".into(),
            ],
        })
        .unwrap();
        assert_eq!(url, "https://hooks.example/kenning");
        assert_eq!(kinds, [ChangeKind::UserCreated, ChangeKind::UserDeleted]);
        let errors = parse_subscription(&SubscriptionInput {
            url: String::new(),
            kinds: vec!["user.renamed".into()],
        })
        .unwrap_err();
        let fields: Vec<&str> = errors
            .violations()
            .iter()
            .map(|v| v.field.as_ref())
            .collect();
        assert_eq!(fields, ["url", "kinds"]);
    }

    #[test]
    fn a_subscription_without_kinds_wants_every_kind() {
        let all = Subscription {
            id: Uuid::nil(),
            url: "https://x.example".into(),
            kinds: Vec::new(),
            secret: String::new(),
            created: DateTime::<Utc>::UNIX_EPOCH,
            state: SubscriptionState::Active,
        };
        assert!(ChangeKind::ALL.into_iter().all(|k| all.wants(k)));
        let some = Subscription {
            kinds: vec![ChangeKind::GroupDeleted],
            ..all
        };
        assert!(some.wants(ChangeKind::GroupDeleted));
        assert!(!some.wants(ChangeKind::UserCreated));
        let now = DateTime::<Utc>::UNIX_EPOCH + TimeDelta::hours(5);
        assert!(gives_up(
            DateTime::<Utc>::UNIX_EPOCH,
            now,
            TimeDelta::hours(5)
        ));
        assert!(!gives_up(
            DateTime::<Utc>::UNIX_EPOCH,
            now,
            TimeDelta::hours(6)
        ));
    }
}
