//! Input objects and scalars of the schema.

use juniper::{GraphQLInputObject, GraphQLScalar, Nullable};
use kenning_domain::{NewUserInput, Patch, UserPatchInput};
use uuid::Uuid;

/// Number of users to skip; an integer of at least 0.
#[derive(Debug, Clone, Copy, GraphQLScalar)]
#[graphql(transparent)]
pub struct Offset(pub i32);

/// Maximum number of users to return; an integer from 1 to 1000.
#[derive(Debug, Clone, Copy, GraphQLScalar)]
#[graphql(transparent)]
pub struct Limit(pub i32);

/// The attributes of a new user. `firstname`, `lastname` and `email` are
/// required; a missing `languageId` takes the service's default language.
#[derive(Debug, GraphQLInputObject)]
pub struct CreateUserInput {
    pub firstname: String,
    pub lastname: String,
    pub email: String,
    pub external_id: Option<String>,
    /// The name the user is shown by, when not "firstname lastname".
    pub display_name: Option<String>,
    pub language_id: Option<String>,
    pub location: Option<String>,
    pub about: Option<String>,
    pub country_id: Option<String>,
    pub company: Option<String>,
    pub department: Option<String>,
    pub position: Option<String>,
    /// `yyyy-mm-dd`.
    pub employment_start: Option<String>,
}

impl From<CreateUserInput> for NewUserInput {
    fn from(i: CreateUserInput) -> Self {
        Self {
            email: i.email,
            firstname: i.firstname,
            lastname: i.lastname,
            external_id: i.external_id,
            user_name: None,
            display_name: i.display_name,
            language_id: i.language_id,
            location: i.location,
            about: i.about,
            country_id: i.country_id,
            company: i.company,
            department: i.department,
            position: i.position,
            employment_start: i.employment_start,
        }
    }
}

/// Changes to a user. Only the attributes sent change; an explicit null
/// clears a nullable attribute. The e-mail address changes only through
/// `updateUserEmail`.
#[derive(Debug, GraphQLInputObject)]
pub struct UpdateUserInput {
    pub global_user_id: Uuid,
    pub firstname: Nullable<String>,
    pub lastname: Nullable<String>,
    pub external_id: Nullable<String>,
    /// The name the user is shown by; null shows "firstname lastname".
    pub display_name: Nullable<String>,
    pub language_id: Nullable<String>,
    pub location: Nullable<String>,
    pub about: Nullable<String>,
    pub country_id: Nullable<String>,
    pub company: Nullable<String>,
    pub department: Nullable<String>,
    pub position: Nullable<String>,
    /// `yyyy-mm-dd`.
    pub employment_start: Nullable<String>,
    /// Change only if the user is still at this version (`User.version`);
    /// `Conflict` on `version` when someone changed it since.
    pub expected_version: Option<i32>,
}

fn patch(value: Nullable<String>) -> Patch<String> {
    match value {
        Nullable::ImplicitNull => Patch::Keep,
        Nullable::ExplicitNull => Patch::Clear,
        Nullable::Some(v) => Patch::Set(v),
    }
}

impl UpdateUserInput {
    /// The user to change, the raw changes and the version they were
    /// asked for.
    pub fn split(self) -> (Uuid, UserPatchInput, Option<i32>) {
        let changes = UserPatchInput {
            firstname: patch(self.firstname),
            lastname: patch(self.lastname),
            external_id: patch(self.external_id),
            user_name: Patch::Keep,
            display_name: patch(self.display_name),
            language_id: patch(self.language_id),
            location: patch(self.location),
            about: patch(self.about),
            country_id: patch(self.country_id),
            company: patch(self.company),
            department: patch(self.department),
            position: patch(self.position),
            employment_start: patch(self.employment_start),
        };
        (self.global_user_id, changes, self.expected_version)
    }
}

/// A new e-mail address for a user.
#[derive(Debug, GraphQLInputObject)]
pub struct UpdateUserEmailInput {
    pub global_user_id: Uuid,
    pub email: String,
    /// As in `UpdateUserInput`.
    pub expected_version: Option<i32>,
}
