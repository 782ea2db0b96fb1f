//! A user's profile as a person's data download writes it: every field
//! by its public name, unset ones as null.

use kenning_domain::{Status, User};
use serde_json::{json, Value};

/// `user`'s id, status, dates and profile fields.
pub(crate) fn profile(user: &User) -> Value {
    let status = user.status();
    let scheduled = match status {
        Status::PendingDeletion { scheduled_for } => Some(scheduled_for.to_rfc3339()),
        _ => None,
    };
    let mut doc = json!({
        "globalUserId": user.id().to_string(),
        "status": status.name(),
        "created": user.created().to_rfc3339(),
        "hidden": user.is_hidden(),
        "deletionScheduledFor": scheduled,
    });
    let Some(p) = user.profile() else {
        return doc;
    };
    let text = |value: Option<&str>| value.map(str::to_owned);
    let fields = json!({
        "email": p.email.as_str(),
        "firstname": p.firstname.as_str(),
        "lastname": p.lastname.as_str(),
        "externalId": text(p.external_id.as_ref().map(|v| v.as_str())),
        "userName": text(p.user_name.as_ref().map(|v| v.as_str())),
        "displayName": text(p.display_name.as_ref().map(|v| v.as_str())),
        "languageId": p.language_id.as_str(),
        "location": text(p.location.as_ref().map(|v| v.as_str())),
        "about": text(p.about.as_ref().map(|v| v.as_str())),
        "countryId": text(p.country_id.as_ref().map(|v| v.as_str())),
        "company": text(p.company.as_ref().map(|v| v.as_str())),
        "department": text(p.department.as_ref().map(|v| v.as_str())),
        "position": text(p.position.as_ref().map(|v| v.as_str())),
        "employmentStart": p.employment_start.as_ref().map(ToString::to_string),
        "gender": p.gender,
        "avatarUrl": p.avatar_url,
    });
    if let (Some(doc), Value::Object(fields)) = (doc.as_object_mut(), fields) {
        doc.extend(fields);
    }
    doc
}
