//! Who made a change: the credential, the person signed in or the door,
//! and when.

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The door a change came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// The GraphQL API.
    GraphQl,
    /// SCIM provisioning.
    Scim,
    /// A command of the `kenning` binary.
    Cli,
    /// The purge of users whose grace period ended.
    Purge,
    /// The web app, by a person signed in as themselves.
    Web,
    /// A program that embeds the use cases and named no other door.
    Embedded,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 6] = [
        Channel::GraphQl,
        Channel::Scim,
        Channel::Cli,
        Channel::Purge,
        Channel::Web,
        Channel::Embedded,
    ];

    /// Its stable name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Channel::GraphQl => "graphql",
            Channel::Scim => "scim",
            Channel::Cli => "cli",
            Channel::Purge => "purge",
            Channel::Web => "web",
            Channel::Embedded => "embedded",
        }
    }
}

/// The name of [`Actor::anonymous`].
const ANONYMOUS: &str = "anonymous";

/// Who made a change: the credential that asked for it (id and name); a
/// person signed in to the web app (named by their `globalUserId`, never
/// by their name, which an anonymization erases); or, for the command line
/// and the purge, the name of that door.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The credential presented; `None` for the command line and the
    /// purge.
    pub credential_id: Option<Uuid>,
    /// The credential's name, the signed-in person's `globalUserId`, or
    /// `cli`, `purge`, `embedded` or `anonymous`.
    pub name: String,
    /// The door the change came through.
    pub channel: Channel,
}

impl Actor {
    /// The holder of a credential, through `channel`.
    pub fn credential(id: Uuid, name: &str, channel: Channel) -> Self {
        Self {
            credential_id: Some(id),
            name: name.to_owned(),
            channel,
        }
    }

    /// The person `user`, signed in to the web app, acting on their own
    /// behalf.
    pub fn person(user: Uuid) -> Self {
        Self {
            credential_id: None,
            name: user.to_string(),
            channel: Channel::Web,
        }
    }

    /// A person the trail no longer names: the actor of their sign-ins
    /// and sign-outs once they were anonymized or forgotten.
    pub fn anonymous() -> Self {
        Self {
            credential_id: None,
            name: ANONYMOUS.to_owned(),
            channel: Channel::Web,
        }
    }

    /// An operator at the command line.
    pub fn cli() -> Self {
        Self::door(Channel::Cli)
    }

    /// The purge.
    pub fn purge() -> Self {
        Self::door(Channel::Purge)
    }

    /// A program embedding the use cases that named no other actor.
    pub fn embedded() -> Self {
        Self::door(Channel::Embedded)
    }

    fn door(channel: Channel) -> Self {
        Self {
            credential_id: None,
            name: channel.as_str().to_owned(),
            channel,
        }
    }
}

/// Who made a change, and when: what every write of the stores records
/// with the changes it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribution {
    /// Who.
    pub actor: Actor,
    /// When.
    pub at: DateTime<Utc>,
}

impl Attribution {
    /// A change by `actor` at `at`.
    pub fn new(actor: Actor, at: DateTime<Utc>) -> Self {
        Self { actor, at }
    }
}
