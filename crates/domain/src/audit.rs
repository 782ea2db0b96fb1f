//! The audit trail's rules: who made a change ([`Actor`]) through which
//! door ([`Channel`]), and what a change of a user, a group or a
//! credential was ([`Change`]). A change is told by the names of the
//! fields it touched, never their values, so nothing personal outlives an
//! anonymization in the trail.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::group::Group;
use crate::session::SignInMethod;
use crate::user::{Profile, Status, User};
use crate::validation::{FieldViolation, Rule};

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
    /// `cli`, `purge` or `embedded`.
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

/// The position an audit cursor (`before`) names, as the trail wrote
/// it; anything else is a violation on `before`.
pub fn parse_audit_cursor(raw: &str) -> Result<u64, FieldViolation> {
    raw.parse::<u64>()
        .ok()
        .filter(|position| *position >= 1)
        .ok_or_else(|| FieldViolation::new("before", Rule::InvalidCursor))
}

/// A change as the audit trail keeps it: when, by whom, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its place in the trail: a later entry has a greater one.
    pub position: u64,
    /// When the change was made.
    pub at: DateTime<Utc>,
    /// Who made it.
    pub actor: Actor,
    /// What changed.
    pub change: Change,
}

/// The public names of the profile fields that differ between `a` and
/// `b` (the e-mail address apart), in the order of the profile.
fn profile_fields(a: Option<&Profile>, b: Option<&Profile>) -> Vec<&'static str> {
    let mut fields = Vec::new();
    macro_rules! compare {
        ($($field:ident => $name:literal),* $(,)?) => {
            $(
                if a.map(|p| &p.$field) != b.map(|p| &p.$field) {
                    fields.push($name);
                }
            )*
        };
    }
    compare!(
        firstname => "firstname",
        lastname => "lastname",
        external_id => "externalId",
        user_name => "userName",
        display_name => "displayName",
        language_id => "languageId",
        location => "location",
        about => "about",
        country_id => "countryId",
        company => "company",
        department => "department",
        position => "position",
        employment_start => "employmentStart",
        gender => "gender",
        avatar_url => "avatarUrl",
    );
    fields
}

/// The profile fields a new user has, the e-mail address first.
fn set_fields(user: &User) -> Vec<&'static str> {
    let Some(profile) = user.profile() else {
        return Vec::new();
    };
    let mut fields = vec!["email"];
    // Every field differs from no profile at all; the ones given a value
    // are the ones set.
    fields.extend(
        profile_fields(None, Some(profile))
            .into_iter()
            .filter(|f| is_set(profile, f)),
    );
    fields
}

fn is_set(p: &Profile, field: &str) -> bool {
    match field {
        "externalId" => p.external_id.is_some(),
        "userName" => p.user_name.is_some(),
        "displayName" => p.display_name.is_some(),
        "location" => p.location.is_some(),
        "about" => p.about.is_some(),
        "countryId" => p.country_id.is_some(),
        "company" => p.company.is_some(),
        "department" => p.department.is_some(),
        "position" => p.position.is_some(),
        "employmentStart" => p.employment_start.is_some(),
        "gender" => p.gender.is_some(),
        "avatarUrl" => p.avatar_url.is_some(),
        _ => true,
    }
}

/// The change that creating `user` is.
pub fn user_created(user: &User) -> Change {
    Change::of(
        ChangeKind::UserCreated,
        user.id().as_uuid(),
        &set_fields(user),
    )
}

/// The changes that turned `before` into `after`, one of each kind that
/// applies, in this order: the e-mail address, the other fields, the
/// status. None when nothing a caller sees changed.
pub fn user_changes(before: &User, after: &User) -> Vec<Change> {
    let id = after.id().as_uuid();
    let mut changes = Vec::new();
    let deleted = |u: &User| matches!(u.status(), Status::Deleted { .. });
    if deleted(after) && !deleted(before) {
        // An anonymization erases every field: it is one change.
        return vec![Change::of(ChangeKind::UserAnonymized, id, &[])];
    }
    let email = |u: &User| u.profile().map(|p| p.email.clone());
    if email(before) != email(after) {
        changes.push(Change::of(ChangeKind::UserEmailChanged, id, &["email"]));
    }
    let mut fields = profile_fields(before.profile(), after.profile());
    if before.is_hidden() != after.is_hidden() {
        fields.push("hidden");
    }
    if !fields.is_empty() {
        changes.push(Change::of(ChangeKind::UserUpdated, id, &fields));
    }
    let status = match (before.status(), after.status()) {
        (Status::Active, Status::Deactivated) => Some(ChangeKind::UserDeactivated),
        (Status::Deactivated, Status::Active) => Some(ChangeKind::UserReactivated),
        (Status::PendingDeletion { .. }, Status::Active | Status::Deactivated) => {
            Some(ChangeKind::UserDeletionCancelled)
        }
        (Status::Active | Status::Deactivated, Status::PendingDeletion { .. }) => {
            Some(ChangeKind::UserDeleted)
        }
        _ => None,
    };
    if let Some(kind) = status {
        changes.push(Change::of(kind, id, &[]));
    }
    changes
}

/// The change that creating `group` is.
pub fn group_created(group: &Group) -> Change {
    let a = group.attributes();
    let mut fields = vec!["displayName"];
    if a.external_id.is_some() {
        fields.push("externalId");
    }
    if !a.members.is_empty() {
        fields.push("members");
    }
    Change::of(ChangeKind::GroupCreated, group.id().as_uuid(), &fields)
}

/// The change that turned `before` into `after`, if any field changed.
pub fn group_changed(before: &Group, after: &Group) -> Option<Change> {
    let (a, b) = (before.attributes(), after.attributes());
    let mut fields = Vec::new();
    if a.display_name != b.display_name {
        fields.push("displayName");
    }
    if a.external_id != b.external_id {
        fields.push("externalId");
    }
    if a.members != b.members {
        fields.push("members");
    }
    (!fields.is_empty())
        .then(|| Change::of(ChangeKind::GroupUpdated, after.id().as_uuid(), &fields))
}

/// The change of the user `id` who hid a topic of their profile or showed
/// it again.
pub fn hidden_topics_changed(id: Uuid) -> Change {
    Change::of(ChangeKind::UserUpdated, id, &["hiddenTopics"])
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

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::group::{GroupAttributes, GroupId, GroupInput};
    use crate::profile::{Email, LanguageId};
    use crate::user::{NewUser, NewUserInput, Patch, UserId, UserPatch, UserPatchInput};

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, 9, 0, 0).unwrap()
    }

    fn ada() -> User {
        let input = NewUserInput {
            email: "ada@example.org".into(),
            firstname: "Ada".into(),
            lastname: "Lovelace".into(),
            company: Some("Analytical".into()),
            ..NewUserInput::default()
        };
        let new = NewUser::parse(input, &LanguageId::parse("en").unwrap()).unwrap();
        User::register(UserId::from_uuid(Uuid::new_v4()), new, now())
    }

    fn kinds(changes: &[Change]) -> Vec<&str> {
        changes.iter().map(|c| c.kind.as_str()).collect()
    }

    #[test]
    fn a_new_user_names_the_fields_it_was_given() {
        let user = ada();
        let change = user_created(&user);
        assert_eq!(change.kind, ChangeKind::UserCreated);
        assert_eq!(change.resource_id, user.id().as_uuid());
        assert_eq!(
            change.fields,
            ["email", "firstname", "lastname", "languageId", "company"]
        );
    }

    #[test]
    fn a_change_is_told_by_field_names_and_status_not_values() {
        let before = ada();
        let mut after = before.clone();
        after
            .update(
                UserPatch::parse(UserPatchInput {
                    lastname: Patch::Set("Byron".into()),
                    company: Patch::Clear,
                    ..UserPatchInput::default()
                })
                .unwrap(),
            )
            .unwrap();
        after
            .change_email(Email::parse("augusta@example.org").unwrap())
            .unwrap();
        after.deactivate().unwrap();
        let changes = user_changes(&before, &after);
        assert_eq!(
            kinds(&changes),
            ["user.email_changed", "user.updated", "user.deactivated"]
        );
        assert_eq!(changes[1].fields, ["lastname", "company"]);
        let text = format!("{changes:?}");
        assert!(
            !text.contains("Byron") && !text.contains("augusta"),
            "{text}"
        );
        assert!(user_changes(&after, &after).is_empty());
    }

    #[test]
    fn the_lifecycle_has_a_kind_for_each_step() {
        let active = ada();
        let mut pending = active.clone();
        pending.delete(now()).unwrap();
        assert_eq!(kinds(&user_changes(&active, &pending)), ["user.deleted"]);
        let mut back = pending.clone();
        back.cancel_delete(now()).unwrap();
        assert_eq!(
            kinds(&user_changes(&pending, &back)),
            ["user.deletion_cancelled"]
        );
        let mut gone = pending.clone();
        gone.anonymize(now() + chrono::TimeDelta::days(60)).unwrap();
        let changes = user_changes(&pending, &gone);
        assert_eq!(kinds(&changes), ["user.anonymized"]);
        assert!(changes[0].fields.is_empty());
        let mut inactive = active.clone();
        inactive.deactivate().unwrap();
        let mut again = inactive.clone();
        again.reactivate().unwrap();
        assert_eq!(
            kinds(&user_changes(&inactive, &again)),
            ["user.reactivated"]
        );
    }

    #[test]
    fn a_group_change_names_what_changed() {
        let member = UserId::from_uuid(Uuid::new_v4());
        let attributes = |name: &str, members: Vec<String>| {
            GroupAttributes::parse(GroupInput {
                display_name: name.into(),
                external_id: None,
                members,
            })
            .unwrap()
        };
        let group = Group::create(
            GroupId::from_uuid(Uuid::new_v4()),
            attributes("Engineers", Vec::new()),
            now(),
        );
        assert_eq!(group_created(&group).fields, ["displayName"]);
        let mut after = group.clone();
        after.replace(attributes("Engineers", vec![member.to_string()]), now());
        let change = group_changed(&group, &after).unwrap();
        assert_eq!(change.kind, ChangeKind::GroupUpdated);
        assert_eq!(change.fields, ["members"]);
        assert_eq!(group_changed(&after, &after), None);
    }

    #[test]
    fn every_kind_reads_back_from_its_name() {
        let names: Vec<&str> = ChangeKind::NAMES.split(", ").collect();
        for (kind, name) in ChangeKind::ALL.into_iter().zip(&names) {
            assert_eq!(kind.as_str(), *name);
            assert_eq!(ChangeKind::parse(name), Ok(kind));
            assert!(kind.as_str().starts_with(kind.resource().as_str()));
        }
        assert_eq!(names.len(), ChangeKind::ALL.len());
        let refused = ChangeKind::parse("user.renamed").unwrap_err();
        assert_eq!(refused.field, "kinds");
        for kind in ResourceKind::ALL {
            assert_eq!(ResourceKind::parse(kind.as_str()), Ok(kind));
        }
        assert_eq!(
            ResourceKind::parse("robot").unwrap_err().field,
            "resourceType"
        );
        assert_eq!(parse_audit_cursor("42"), Ok(42));
        for bad in ["0", "-1", "x", ""] {
            assert_eq!(parse_audit_cursor(bad).unwrap_err().field, "before");
        }
    }
}
