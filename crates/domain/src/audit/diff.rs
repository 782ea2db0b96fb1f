//! The changes found by comparing: the fields a new user or group was
//! given, and what changed between a user's or a group's before and after,
//! told by field names, never values.

use super::change::{Change, ChangeKind};
use crate::group::Group;
use crate::user::{Profile, Status, User};

/// One profile field as the audit trail compares it: its public name,
/// whether it holds a value, and its value as compared (its `Debug` form).
struct Field {
    name: &'static str,
    set: bool,
    value: String,
}

fn required(name: &'static str, value: &impl std::fmt::Debug) -> Field {
    Field {
        name,
        set: true,
        value: format!("{value:?}"),
    }
}

fn optional<T: std::fmt::Debug>(name: &'static str, value: &Option<T>) -> Field {
    Field {
        name,
        set: value.is_some(),
        value: format!("{value:?}"),
    }
}

/// Every field of `p` but the e-mail address, in the order of the
/// profile. The pattern names each field of [`Profile`] and has no `..`,
/// so a new field does not compile until it is listed here: none is ever
/// missing from the audit trail.
fn fields(p: &Profile) -> [Field; 15] {
    let Profile {
        email: _,
        firstname,
        lastname,
        external_id,
        user_name,
        display_name,
        language_id,
        location,
        about,
        country_id,
        company,
        department,
        position,
        employment_start,
        gender,
        avatar_url,
    } = p;
    [
        required("firstname", firstname),
        required("lastname", lastname),
        optional("externalId", external_id),
        optional("userName", user_name),
        optional("displayName", display_name),
        required("languageId", language_id),
        optional("location", location),
        optional("about", about),
        optional("countryId", country_id),
        optional("company", company),
        optional("department", department),
        optional("position", position),
        optional("employmentStart", employment_start),
        optional("gender", gender),
        optional("avatarUrl", avatar_url),
    ]
}

/// The public names of the profile fields that differ between `a` and
/// `b` (the e-mail address apart), in the order of the profile: every
/// field when only one of them has a profile.
fn profile_fields(a: Option<&Profile>, b: Option<&Profile>) -> Vec<&'static str> {
    match (a.map(fields), b.map(fields)) {
        (Some(a), Some(b)) => a
            .iter()
            .zip(&b)
            .filter(|(before, after)| before.value != after.value)
            .map(|(field, _)| field.name)
            .collect(),
        (Some(one), None) | (None, Some(one)) => one.iter().map(|f| f.name).collect(),
        (None, None) => Vec::new(),
    }
}

/// The profile fields a new user has, the e-mail address first.
fn set_fields(user: &User) -> Vec<&'static str> {
    let Some(profile) = user.profile() else {
        return Vec::new();
    };
    let mut names = vec!["email"];
    names.extend(fields(profile).iter().filter(|f| f.set).map(|f| f.name));
    names
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
    let deleted = |u: &User| u.status().is_deleted();
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
