//! What a change was: the kinds of resource and of change, with their
//! stable names, one change of one resource, and the changes named by
//! their kind alone.

use std::fmt;
use std::str::FromStr;

use uuid::Uuid;

use crate::session::SignInMethod;
use crate::validation::{FieldViolation, Rule};

/// What kind of thing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// A user.
    User,
    /// A group of users.
    Group,
    /// An access token or API key.
    Credential,
    /// The organisation: its rules on learning.
    Organisation,
}

impl ResourceKind {
    /// Every kind of resource.
    pub const ALL: [ResourceKind; 4] = [
        ResourceKind::User,
        ResourceKind::Group,
        ResourceKind::Credential,
        ResourceKind::Organisation,
    ];

    /// The kind named `raw` in a filter, else a violation on
    /// `resourceType`.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == raw)
            .ok_or_else(|| {
                FieldViolation::new(
                    "resourceType",
                    Rule::OneOf {
                        allowed: "user, group, credential, organisation",
                    },
                )
            })
    }

    /// Its stable name.
    pub fn as_str(&self) -> &'static str {
        match self {
            ResourceKind::User => "user",
            ResourceKind::Group => "group",
            ResourceKind::Credential => "credential",
            ResourceKind::Organisation => "organisation",
        }
    }
}

/// What happened to a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChangeKind {
    /// A user was created (through SCIM: provisioned).
    UserCreated,
    /// A user's profile fields changed.
    UserUpdated,
    /// A user's e-mail address changed.
    UserEmailChanged,
    /// An ACTIVE user became DEACTIVATED.
    UserDeactivated,
    /// A DEACTIVATED user became ACTIVE.
    UserReactivated,
    /// A user's deletion was scheduled (PENDING_DELETION).
    UserDeleted,
    /// A scheduled deletion was cancelled.
    UserDeletionCancelled,
    /// A user's personal data was erased (DELETED).
    UserAnonymized,
    /// A person signed in to the web app (the field names how: `link` or
    /// `oidc`).
    UserSignedIn,
    /// A person's session ended: they signed out, or were signed out
    /// because they may no longer sign in.
    UserSignedOut,
    /// What Kenning keeps about a person was handed out (to them or an
    /// administrator); the entry says who asked, never what was in it.
    UserExported,
    /// Whether a person is learned about changed by their own choice (the
    /// field `learning`).
    UserLearningChanged,
    /// What Kenning learned about a person (actions and expertise) was
    /// erased; the account stays.
    UserForgotten,
    /// A group was created.
    GroupCreated,
    /// A group's name, external id or members changed.
    GroupUpdated,
    /// A group was deleted.
    GroupDeleted,
    /// A credential was issued.
    CredentialIssued,
    /// A credential was revoked.
    CredentialRevoked,
    /// A rule of the organisation's on learning was set (the field names
    /// its kind).
    LearningRuleSet,
    /// A rule of the organisation's on learning was lifted (the field
    /// names its kind).
    LearningRuleLifted,
}

impl ChangeKind {
    /// Every kind, in the order of their names' documentation.
    pub const ALL: [ChangeKind; 20] = [
        ChangeKind::UserCreated,
        ChangeKind::UserUpdated,
        ChangeKind::UserEmailChanged,
        ChangeKind::UserDeactivated,
        ChangeKind::UserReactivated,
        ChangeKind::UserDeleted,
        ChangeKind::UserDeletionCancelled,
        ChangeKind::UserAnonymized,
        ChangeKind::UserSignedIn,
        ChangeKind::UserSignedOut,
        ChangeKind::UserExported,
        ChangeKind::UserLearningChanged,
        ChangeKind::UserForgotten,
        ChangeKind::GroupCreated,
        ChangeKind::GroupUpdated,
        ChangeKind::GroupDeleted,
        ChangeKind::CredentialIssued,
        ChangeKind::CredentialRevoked,
        ChangeKind::LearningRuleSet,
        ChangeKind::LearningRuleLifted,
    ];

    /// Every kind's name, for the message of a name that is none.
    pub const NAMES: &'static str = "user.created, user.updated, user.email_changed, \
        user.deactivated, user.reactivated, user.deleted, user.deletion_cancelled, \
        user.anonymized, user.signed_in, user.signed_out, user.exported, user.learning_changed, \
        user.forgotten, group.created, group.updated, group.deleted, credential.issued, \
        credential.revoked, organisation.learning_rule_set, organisation.learning_rule_lifted";

    /// The kind named `raw` in a filter, else a violation on `kinds`.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        raw.parse().map_err(|_| {
            FieldViolation::new(
                "kinds",
                Rule::OneOf {
                    allowed: Self::NAMES,
                },
            )
        })
    }

    /// Its stable name, `resource.what`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ChangeKind::UserCreated => "user.created",
            ChangeKind::UserUpdated => "user.updated",
            ChangeKind::UserEmailChanged => "user.email_changed",
            ChangeKind::UserDeactivated => "user.deactivated",
            ChangeKind::UserReactivated => "user.reactivated",
            ChangeKind::UserDeleted => "user.deleted",
            ChangeKind::UserDeletionCancelled => "user.deletion_cancelled",
            ChangeKind::UserAnonymized => "user.anonymized",
            ChangeKind::UserSignedIn => "user.signed_in",
            ChangeKind::UserSignedOut => "user.signed_out",
            ChangeKind::UserExported => "user.exported",
            ChangeKind::UserLearningChanged => "user.learning_changed",
            ChangeKind::UserForgotten => "user.forgotten",
            ChangeKind::GroupCreated => "group.created",
            ChangeKind::GroupUpdated => "group.updated",
            ChangeKind::GroupDeleted => "group.deleted",
            ChangeKind::CredentialIssued => "credential.issued",
            ChangeKind::CredentialRevoked => "credential.revoked",
            ChangeKind::LearningRuleSet => "organisation.learning_rule_set",
            ChangeKind::LearningRuleLifted => "organisation.learning_rule_lifted",
        }
    }

    /// Whether an entry of this kind records a person's own use of
    /// Kenning (a sign-in, a sign-out) rather than a change made to them
    /// or by them: such entries go with the person when they are
    /// anonymized or what was learned about them is forgotten
    /// ([`AuditEntry::anonymized`](crate::AuditEntry::anonymized)). A
    /// hand-out of their data stays theirs: it is the organisation's
    /// account of what it gave out.
    pub fn records_personal_use(&self) -> bool {
        match self {
            ChangeKind::UserSignedIn | ChangeKind::UserSignedOut => true,
            ChangeKind::UserCreated
            | ChangeKind::UserUpdated
            | ChangeKind::UserEmailChanged
            | ChangeKind::UserDeactivated
            | ChangeKind::UserReactivated
            | ChangeKind::UserDeleted
            | ChangeKind::UserDeletionCancelled
            | ChangeKind::UserAnonymized
            | ChangeKind::UserExported
            | ChangeKind::UserLearningChanged
            | ChangeKind::UserForgotten
            | ChangeKind::GroupCreated
            | ChangeKind::GroupUpdated
            | ChangeKind::GroupDeleted
            | ChangeKind::CredentialIssued
            | ChangeKind::CredentialRevoked
            | ChangeKind::LearningRuleSet
            | ChangeKind::LearningRuleLifted => false,
        }
    }

    /// The kind of resource it happens to.
    pub fn resource(&self) -> ResourceKind {
        match self {
            ChangeKind::UserCreated
            | ChangeKind::UserUpdated
            | ChangeKind::UserEmailChanged
            | ChangeKind::UserDeactivated
            | ChangeKind::UserReactivated
            | ChangeKind::UserDeleted
            | ChangeKind::UserDeletionCancelled
            | ChangeKind::UserAnonymized
            | ChangeKind::UserSignedIn
            | ChangeKind::UserSignedOut
            | ChangeKind::UserExported
            | ChangeKind::UserLearningChanged
            | ChangeKind::UserForgotten => ResourceKind::User,
            ChangeKind::GroupCreated | ChangeKind::GroupUpdated | ChangeKind::GroupDeleted => {
                ResourceKind::Group
            }
            ChangeKind::CredentialIssued | ChangeKind::CredentialRevoked => {
                ResourceKind::Credential
            }
            ChangeKind::LearningRuleSet | ChangeKind::LearningRuleLifted => {
                ResourceKind::Organisation
            }
        }
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of [`ChangeKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown kind of change `{0}`")]
pub struct UnknownChangeKind(pub String);

impl FromStr for ChangeKind {
    type Err = UnknownChangeKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ChangeKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownChangeKind(s.to_owned()))
    }
}

/// One change of one resource: its kind, the resource's id and the public
/// names of the fields it touched (none for a change of status alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// What happened.
    pub kind: ChangeKind,
    /// The id of the resource it happened to.
    pub resource_id: Uuid,
    /// The fields it touched, by their public names, in a fixed order.
    pub fields: Vec<String>,
}

impl Change {
    pub(crate) fn of(kind: ChangeKind, resource_id: Uuid, fields: &[&str]) -> Self {
        Self {
            kind,
            resource_id,
            fields: fields.iter().map(|f| (*f).to_owned()).collect(),
        }
    }
}

/// The change of the user `id` who hid a topic of their profile or showed
/// it again.
pub fn hidden_topics_changed(id: Uuid) -> Change {
    Change::of(ChangeKind::UserUpdated, id, &["hiddenTopics"])
}

/// The change of the user `id` who said they know a topic, or no longer
/// says so.
pub fn declared_topics_changed(id: Uuid) -> Change {
    Change::of(ChangeKind::UserUpdated, id, &["declaredTopics"])
}

/// The sign-in of the person `id`, by `method`.
pub fn user_signed_in(id: Uuid, method: SignInMethod) -> Change {
    Change::of(ChangeKind::UserSignedIn, id, &[method.as_str()])
}

/// The hand-out of what Kenning keeps about the person `id`.
pub fn user_exported(id: Uuid) -> Change {
    Change::of(ChangeKind::UserExported, id, &[])
}

/// The person `id`'s choice of whether they are learned about.
pub fn user_learning_changed(id: Uuid) -> Change {
    Change::of(ChangeKind::UserLearningChanged, id, &["learning"])
}

/// The erasure of what was learned about the person `id`.
pub fn user_forgotten(id: Uuid) -> Change {
    Change::of(ChangeKind::UserForgotten, id, &[])
}

/// The end of a session of the person `id`.
pub fn user_signed_out(id: Uuid) -> Change {
    Change::of(ChangeKind::UserSignedOut, id, &[])
}

/// The change of the group `id` whose members changed without a change of
/// the group itself (a member anonymized left it).
pub fn group_members_changed(id: Uuid) -> Change {
    Change::of(ChangeKind::GroupUpdated, id, &["members"])
}

/// The change that deleting the group `id` is.
pub fn group_deleted(id: Uuid) -> Change {
    Change::of(ChangeKind::GroupDeleted, id, &[])
}

/// The change that issuing the credential `id` is.
pub fn credential_issued(id: Uuid) -> Change {
    Change::of(ChangeKind::CredentialIssued, id, &[])
}

/// The change that revoking the credential `id` is.
pub fn credential_revoked(id: Uuid) -> Change {
    Change::of(ChangeKind::CredentialRevoked, id, &[])
}
