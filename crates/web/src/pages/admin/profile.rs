//! The fields of a user's profile as the forms that create and change a
//! user show them: named as the API names them (so a refusal's field
//! problem finds its field), filled with what the person wrote or what
//! is stored.

use kenning_domain::{NewUserInput, Patch, Profile, UserPatchInput};

use super::{Form, Problems};

/// A field of the form: its API name, label, input type, value and
/// problem.
#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) label: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) hint: &'static str,
    pub(crate) value: String,
    pub(crate) problem: Option<String>,
}

/// The profile's fields the console edits, in the order shown: API name,
/// label, input type, hint. The e-mail address is apart: it changes
/// through a use case of its own.
const FIELDS: [(&str, &str, &str, &str); 12] = [
    ("firstname", "First name", "text", ""),
    ("lastname", "Last name", "text", ""),
    (
        "displayName",
        "Shown as",
        "text",
        "When not the first and last name.",
    ),
    ("position", "Position", "text", ""),
    ("department", "Department", "text", ""),
    ("company", "Company", "text", ""),
    ("location", "Location", "text", ""),
    (
        "countryId",
        "Country",
        "text",
        "A two-letter code, such as ch.",
    ),
    (
        "languageId",
        "Language",
        "text",
        "A two-letter code, such as en.",
    ),
    ("about", "About", "text", ""),
    ("employmentStart", "With the organisation since", "date", ""),
    (
        "externalId",
        "External id",
        "text",
        "The person's id in the identity provider.",
    ),
];

impl Field {
    /// A text field `name` (its API name) labelled `label`, holding
    /// `value`, with its problem among `problems`.
    pub(crate) fn text(
        name: &'static str,
        label: &'static str,
        value: String,
        problems: &Problems,
    ) -> Self {
        Self {
            name,
            label,
            kind: "text",
            hint: "",
            problem: problems.of(name).map(str::to_owned),
            value,
        }
    }
}

/// The e-mail address field.
pub(crate) fn email_field(value: String, problems: &Problems) -> Field {
    Field {
        kind: "email",
        ..Field::text("email", "E-mail address", value, problems)
    }
}

/// The profile's fields, valued by `value` (an API name's value), each
/// with its problem among `problems`.
fn fields(value: impl Fn(&str) -> String, problems: &Problems) -> Vec<Field> {
    FIELDS
        .iter()
        .map(|(name, label, kind, hint)| Field {
            name,
            label,
            kind,
            hint,
            value: value(name),
            problem: problems.of(name).map(str::to_owned),
        })
        .collect()
}

/// The fields as `form` wrote them.
pub(crate) fn as_written(form: &Form, problems: &Problems) -> Vec<Field> {
    fields(|name| form.value(name), problems)
}

/// The fields as `profile` holds them (all empty without a profile).
pub(crate) fn as_stored(profile: Option<&Profile>) -> Vec<Field> {
    let text = |v: Option<&str>| v.unwrap_or_default().to_owned();
    fields(
        |name| {
            let Some(p) = profile else {
                return String::new();
            };
            match name {
                "firstname" => p.firstname.as_str().to_owned(),
                "lastname" => p.lastname.as_str().to_owned(),
                "displayName" => text(p.display_name.as_ref().map(|v| v.as_str())),
                "position" => text(p.position.as_ref().map(|v| v.as_str())),
                "department" => text(p.department.as_ref().map(|v| v.as_str())),
                "company" => text(p.company.as_ref().map(|v| v.as_str())),
                "location" => text(p.location.as_ref().map(|v| v.as_str())),
                "countryId" => text(p.country_id.as_ref().map(|v| v.as_str())),
                "languageId" => p.language_id.as_str().to_owned(),
                "about" => text(p.about.as_ref().map(|v| v.as_str())),
                "employmentStart" => p
                    .employment_start
                    .map(|d| d.date().format("%Y-%m-%d").to_string())
                    .unwrap_or_default(),
                "externalId" => text(p.external_id.as_ref().map(|v| v.as_str())),
                _ => String::new(),
            }
        },
        &Problems::default(),
    )
}

/// A new user as `form` writes it: the names and address as written (the
/// use case says what is missing), the other fields when filled in.
pub(crate) fn new_user(form: &Form) -> NewUserInput {
    NewUserInput {
        email: form.value("email"),
        firstname: form.value("firstname"),
        lastname: form.value("lastname"),
        external_id: form.given("externalId"),
        user_name: None,
        display_name: form.given("displayName"),
        language_id: form.given("languageId"),
        location: form.given("location"),
        about: form.given("about"),
        country_id: form.given("countryId"),
        company: form.given("company"),
        department: form.given("department"),
        position: form.given("position"),
        employment_start: form.given("employmentStart"),
    }
}

/// The changes `form` writes: every field it shows set to what is
/// written, an emptied one cleared (the use case refuses to clear one
/// that cannot be).
pub(crate) fn changes(form: &Form) -> UserPatchInput {
    let field = |name: &str| match form.given(name) {
        Some(value) => Patch::Set(value),
        None => Patch::Clear,
    };
    UserPatchInput {
        firstname: Patch::Set(form.value("firstname")),
        lastname: Patch::Set(form.value("lastname")),
        external_id: field("externalId"),
        user_name: Patch::Keep,
        display_name: field("displayName"),
        language_id: Patch::Set(form.value("languageId")),
        location: field("location"),
        about: field("about"),
        country_id: field("countryId"),
        company: field("company"),
        department: field("department"),
        position: field("position"),
        employment_start: field("employmentStart"),
    }
}
