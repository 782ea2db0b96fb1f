//! The changes found by comparing: the fields a new user or group was
//! given, and what changed between a user's or a group's before and after,
//! told by field names, never values.

use super::change::{Change, ChangeKind};
use crate::group::Group;
use crate::user::{Profile, Status, User};

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
