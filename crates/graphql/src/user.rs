//! The `User` object.

use chrono::{DateTime, Utc};
use juniper::{graphql_object, GraphQLEnum};
use kenning_domain::{Profile, Status, User};
use kenning_ports::Membership;
use uuid::Uuid;

use crate::context::Context;
use crate::error::ApiError;

/// Where a user is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum UserStatus {
    Active,
    Deactivated,
    PendingDeletion,
    Deleted,
}

impl From<Status> for UserStatus {
    fn from(s: Status) -> Self {
        match s {
            Status::Active => UserStatus::Active,
            Status::Deactivated => UserStatus::Deactivated,
            Status::PendingDeletion { .. } => UserStatus::PendingDeletion,
            Status::Deleted { .. } => UserStatus::Deleted,
        }
    }
}

/// A user as the API shows it. Once a user is deleted its personal fields
/// read as empty strings (non-null fields) or null.
#[derive(Debug)]
pub struct UserObject(pub User);

impl UserObject {
    fn text<'a>(&'a self, f: impl FnOnce(&'a Profile) -> &'a str) -> &'a str {
        self.0.profile().map(f).unwrap_or_default()
    }

    fn optional<'a, T: AsRef<str> + 'a>(
        &'a self,
        f: impl FnOnce(&'a Profile) -> Option<&'a T>,
    ) -> Option<&'a str> {
        self.0.profile().and_then(f).map(AsRef::as_ref)
    }
}

/// A person known to Kenning.
#[graphql_object(name = "User", context = Context)]
impl UserObject {
    /// The user's identifier.
    fn global_user_id(&self) -> Uuid {
        self.0.id().as_uuid()
    }
    fn email(&self) -> &str {
        self.text(|p| p.email.as_str())
    }
    fn firstname(&self) -> &str {
        self.text(|p| p.firstname.as_str())
    }
    fn lastname(&self) -> &str {
        self.text(|p| p.lastname.as_str())
    }
    /// The name the user is shown by: the one set (`displayName` of
    /// `createUser`, `updateUser` or SCIM), else "firstname lastname".
    fn display_name(&self) -> String {
        self.0
            .profile()
            .map(|p| p.display_name())
            .unwrap_or_default()
    }
    /// The identifier of the user in the customer's systems.
    fn external_id(&self) -> Option<&str> {
        self.optional(|p| p.external_id.as_ref())
    }
    /// ISO 639-1 interface language.
    fn language_id(&self) -> &str {
        self.text(|p| p.language_id.as_str())
    }
    fn location(&self) -> Option<&str> {
        self.optional(|p| p.location.as_ref())
    }
    fn about(&self) -> Option<&str> {
        self.optional(|p| p.about.as_ref())
    }
    /// Lower-case ISO 3166-1 alpha-2 country code.
    fn country_id(&self) -> Option<&str> {
        self.0
            .profile()
            .and_then(|p| p.country_id.as_ref())
            .map(|c| c.as_str())
    }
    fn company(&self) -> Option<&str> {
        self.optional(|p| p.company.as_ref())
    }
    fn department(&self) -> Option<&str> {
        self.optional(|p| p.department.as_ref())
    }
    fn position(&self) -> Option<&str> {
        self.optional(|p| p.position.as_ref())
    }
    /// `yyyy-mm-dd`.
    fn employment_start(&self) -> Option<String> {
        self.0
            .profile()
            .and_then(|p| p.employment_start)
            .map(|d| d.to_string())
    }
    fn gender(&self) -> Option<&str> {
        self.0.profile().and_then(|p| p.gender.as_deref())
    }
    fn avatar_url(&self) -> Option<&str> {
        self.0.profile().and_then(|p| p.avatar_url.as_deref())
    }
    fn is_system(&self) -> bool {
        self.0.is_system()
    }
    fn is_hidden(&self) -> bool {
        self.0.is_hidden()
    }
    /// True when the user signs in through an external identity provider.
    fn is_federated(&self) -> bool {
        self.0.is_federated()
    }
    fn created(&self) -> DateTime<Utc> {
        self.0.created()
    }
    /// The name an identity provider knows the user by (SCIM's
    /// `userName`), when one set it.
    fn user_name(&self) -> Option<&str> {
        self.optional(|p| p.user_name.as_ref())
    }
    /// The groups the user belongs to, by name (needs `users:read`).
    fn groups(&self, context: &Context) -> Result<Vec<GroupObject>, ApiError> {
        Ok(context
            .groups_of(self.0.id())?
            .into_iter()
            .map(GroupObject)
            .collect())
    }
    /// When the user last changed.
    fn last_modified(&self) -> DateTime<Utc> {
        self.0.modified()
    }
    /// 1 when created, one more on every change: give it as
    /// `expectedVersion` to change the user only if nobody did since.
    fn version(&self) -> i32 {
        i32::try_from(self.0.version()).unwrap_or(i32::MAX)
    }
    fn status(&self) -> UserStatus {
        self.0.status().into()
    }
    /// The moment a pending deletion takes effect.
    fn deletion_scheduled_for(&self) -> Option<DateTime<Utc>> {
        self.0.deletion_scheduled_for()
    }
    /// The moment the user was anonymized.
    fn date_deleted(&self) -> Option<DateTime<Utc>> {
        self.0.date_deleted()
    }
}

/// A group of users, as a member's `groups` lists it.
#[derive(Debug)]
pub struct GroupObject(pub Membership);

/// A group of users (teams, departments), provisioned through SCIM.
#[graphql_object(name = "Group", context = Context)]
impl GroupObject {
    /// The group's identifier (SCIM's `id`), for `experts(groupId)`.
    fn group_id(&self) -> Uuid {
        self.0.group.as_uuid()
    }
    fn display_name(&self) -> &str {
        self.0.display_name.as_str()
    }
    fn external_id(&self) -> Option<&str> {
        self.0.external_id.as_ref().map(|e| e.as_str())
    }
}
