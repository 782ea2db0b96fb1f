//! A user as a SCIM User resource (RFC 7643 §4.1, with the enterprise
//! extension), both ways. `docs/scim.md` has the mapping.

use chrono::SecondsFormat;
use kenning_app::Replacement;
use kenning_domain::{NewUserInput, Patch, Profile, Status, User, UserId, UserPatchInput};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use crate::error::ScimError;
use crate::filter::field;
use crate::patch;
use crate::schemas::{ENTERPRISE_SCHEMA, USER_SCHEMA};
use crate::version;

/// The ETag of a user's version.
pub fn etag(user: &User) -> String {
    version::etag(user.version())
}

/// A user id from a path; an id that is no UUID names nobody.
pub fn user_id(raw: &str) -> Result<UserId, ScimError> {
    Uuid::parse_str(raw)
        .map(UserId::from_uuid)
        .map_err(|_| ScimError::not_found())
}

/// The user as SCIM sees it: ACTIVE or DEACTIVATED; one pending deletion
/// or deleted is gone.
pub fn visible(user: User) -> Result<User, ScimError> {
    if user.is_provisioned() {
        Ok(user)
    } else {
        Err(ScimError::not_found())
    }
}

/// What the PATCH `request` makes of `current` (as SCIM sees it): its
/// operations applied to the resource as stored (`displayName` only when set),
/// read back as a replacement whose `id` may only repeat `id_in_path`.
pub fn patched(
    current: &User,
    base: &str,
    id_in_path: &str,
    request: &Value,
) -> Result<Replacement, ScimError> {
    if !current.is_provisioned() {
        return Err(ScimError::not_found());
    }
    let mut resource = render_stored(current, base);
    patch::apply(&mut resource, request)?;
    Ok(parse(&resource, Some(id_in_path))?
        .own_display_name(Some(current))
        .into_patch())
}

/// The SCIM resource of `user`, its `meta.location` under `base` (the
/// absolute URL of the SCIM endpoint). `displayName` is the one set, else
/// "givenName familyName".
pub fn render(user: &User, base: &str) -> Value {
    resource(user, base, true)
}

/// The resource a PATCH applies its operations to: `displayName` only
/// when one is set, so that a change of the names is not read back as a
/// displayName set to the old ones.
pub fn render_stored(user: &User, base: &str) -> Value {
    resource(user, base, false)
}

fn resource(user: &User, base: &str, derived_display_name: bool) -> Value {
    let mut resource = Map::new();
    resource.insert("schemas".into(), json!([USER_SCHEMA, ENTERPRISE_SCHEMA]));
    resource.insert("id".into(), json!(user.id().to_string()));
    if let Some(p) = user.profile() {
        if let Some(external) = &p.external_id {
            resource.insert("externalId".into(), json!(external.as_str()));
        }
        let (first, last) = (p.firstname.as_str(), p.lastname.as_str());
        let user_name = p
            .user_name
            .as_ref()
            .map_or(p.email.as_str(), |n| n.as_str());
        resource.insert("userName".into(), json!(user_name));
        resource.insert(
            "name".into(),
            json!({ "givenName": first, "familyName": last }),
        );
        if p.display_name.is_some() || derived_display_name {
            resource.insert("displayName".into(), json!(p.display_name()));
        }
        resource.insert(
            "emails".into(),
            json!([{ "value": p.email.as_str(), "type": "work" }]),
        );
        resource.insert("preferredLanguage".into(), json!(p.language_id.as_str()));
        if let Some(country) = &p.country_id {
            resource.insert(
                "addresses".into(),
                json!([{ "type": "work", "country": country.as_str().to_uppercase() }]),
            );
        }
        if let Some(position) = &p.position {
            resource.insert("title".into(), json!(position.as_str()));
        }
        let mut enterprise = Map::new();
        if let Some(department) = &p.department {
            enterprise.insert("department".into(), json!(department.as_str()));
        }
        if let Some(company) = &p.company {
            enterprise.insert("organization".into(), json!(company.as_str()));
        }
        if !enterprise.is_empty() {
            resource.insert(ENTERPRISE_SCHEMA.into(), Value::Object(enterprise));
        }
    }
    resource.insert("active".into(), json!(user.status() == Status::Active));
    let time = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
    resource.insert(
        "meta".into(),
        json!({
            "resourceType": "User",
            "created": time(user.created()),
            "lastModified": time(user.modified()),
            "location": format!("{base}/Users/{}", user.id()),
            "version": etag(user),
        }),
    );
    Value::Object(resource)
}

/// A user's attributes as a SCIM resource gives them.
#[derive(Debug, Clone, Default)]
pub struct Attributes {
    pub email: String,
    pub user_name: Option<String>,
    pub display_name: Option<String>,
    pub firstname: String,
    pub lastname: String,
    pub external_id: Option<String>,
    pub language_id: Option<String>,
    pub country_id: Option<String>,
    pub position: Option<String>,
    pub company: Option<String>,
    pub department: Option<String>,
    /// `None` when the resource does not say.
    pub active: Option<bool>,
}

impl Attributes {
    /// The attributes with a `displayName` that only repeats the names
    /// left out: "givenName familyName" of the resource, or, for a user
    /// who never had one set apart, the one `current` shows (a client that
    /// reads a user and writes it back with other names sends the old
    /// one). Such a user keeps following the names.
    pub fn own_display_name(mut self, current: Option<&User>) -> Self {
        let sent = self.display_name.as_deref().map(str::trim);
        let names = format!("{} {}", self.firstname.trim(), self.lastname.trim());
        let shown_now = current
            .and_then(User::profile)
            .filter(|p| p.display_name.is_none())
            .map(Profile::display_name);
        if sent == Some(names.as_str()) || (sent.is_some() && sent == shown_now.as_deref()) {
            self.display_name = None;
        }
        self
    }

    /// The attributes of a new user.
    pub fn into_new(self) -> (NewUserInput, bool) {
        let active = self.active.unwrap_or(true);
        (
            NewUserInput {
                email: self.email,
                user_name: self.user_name,
                display_name: self.display_name,
                firstname: self.firstname,
                lastname: self.lastname,
                external_id: self.external_id,
                language_id: self.language_id,
                country_id: self.country_id,
                company: self.company,
                department: self.department,
                position: self.position,
                ..NewUserInput::default()
            },
            active,
        )
    }

    /// The change that makes a user's SCIM attributes these: every one the
    /// resource lacks is cleared (a replacement, RFC 7644 §3.5.1), except
    /// the language, which a user always has and which stays when absent.
    /// Attributes SCIM does not carry (location, about, employment start)
    /// stay as they are.
    pub fn into_patch(self) -> Replacement {
        let set = |v: Option<String>| v.map_or(Patch::Clear, Patch::Set);
        Replacement {
            email: self.email,
            changes: UserPatchInput {
                firstname: Patch::Set(self.firstname),
                lastname: Patch::Set(self.lastname),
                external_id: set(self.external_id),
                user_name: set(self.user_name),
                display_name: set(self.display_name),
                language_id: self.language_id.map_or(Patch::Keep, Patch::Set),
                country_id: set(self.country_id),
                company: set(self.company),
                department: set(self.department),
                position: set(self.position),
                ..UserPatchInput::default()
            },
            active: self.active,
        }
    }
}

fn text(value: Option<&Value>, name: &str) -> Result<Option<String>, ScimError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ScimError::invalid_value(format!("{name} must be a string"))),
    }
}

/// A boolean as identity providers send it: `true`, or the strings
/// `"True"`/`"false"` in any case (Entra ID sends strings).
pub fn boolean(value: &Value, name: &str) -> Result<bool, ScimError> {
    match value {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(ScimError::invalid_value(format!(
            "{name} must be true or false"
        ))),
    }
}

/// The element of a multi-valued attribute that counts: the primary one,
/// else one of type `work`, else the first.
fn chosen(list: Option<&Value>, name: &str) -> Result<Option<Value>, ScimError> {
    let items = match list {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(ScimError::invalid_value(format!("{name} must be an array")));
        }
    };
    let is = |item: &&Value, key: &str, wanted: &Value| {
        field(item, key).is_some_and(|v| match (v, wanted) {
            (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
            (a, b) => boolean(a, key).ok() == b.as_bool(),
        })
    };
    Ok(items
        .iter()
        .find(|i| is(i, "primary", &json!(true)))
        .or_else(|| items.iter().find(|i| is(i, "type", &json!("work"))))
        .or_else(|| items.first())
        .cloned())
}

/// Refuses an `id` in a written resource other than the one of its path
/// (`mutability`): ids are assigned by Kenning.
pub fn check_id(resource: &Value, id_in_path: Option<&str>) -> Result<(), ScimError> {
    match field(resource, "id") {
        Some(id) if id_in_path.is_none_or(|path| id.as_str() != Some(path)) => Err(
            ScimError::mutability("id is assigned by Kenning and cannot be set"),
        ),
        _ => Ok(()),
    }
}

/// A language as Kenning keeps it: the primary subtag of a language tag
/// (`en-US` and `en_GB` are `en`).
fn language(tag: String) -> String {
    tag.split(['-', '_']).next().unwrap_or_default().to_owned()
}

/// The attributes a User resource (POST, PUT, or a user after a PATCH)
/// gives. `userName` is kept as the identity provider's name for the user;
/// the e-mail address is the one in `emails` (the primary, else the work
/// one, else the first), or `userName` when `emails` has none. Unknown
/// attributes are ignored; `id` may only repeat `id_in_path`, and `meta`
/// is ignored (read-only).
pub fn parse(resource: &Value, id_in_path: Option<&str>) -> Result<Attributes, ScimError> {
    if !resource.is_object() {
        return Err(ScimError::invalid_syntax(
            "a User resource is a JSON object",
        ));
    }
    check_id(resource, id_in_path)?;
    let user_name = text(field(resource, "userName"), "userName")?;
    let email = chosen(field(resource, "emails"), "emails")?
        .map(|e| text(field(&e, "value"), "emails.value"))
        .transpose()?
        .flatten();
    let email = match (email, &user_name) {
        (Some(email), _) => email,
        (None, Some(user_name)) => user_name.clone(),
        (None, None) => {
            return Err(ScimError::invalid_value(
                "userName is required, with the e-mail address in emails or as the userName",
            ))
        }
    };
    let name = field(resource, "name");
    let name_part = |part: &str| match name {
        Some(name) => text(field(name, part), &format!("name.{part}")),
        None => Ok(None),
    };
    let country = chosen(field(resource, "addresses"), "addresses")?
        .map(|a| text(field(&a, "country"), "addresses.country"))
        .transpose()?
        .flatten();
    let language_tag = match text(field(resource, "preferredLanguage"), "preferredLanguage")? {
        Some(tag) => Some(tag),
        None => text(field(resource, "locale"), "locale")?,
    };
    let enterprise = field(resource, ENTERPRISE_SCHEMA);
    let enterprise_part = |part: &str| match enterprise {
        Some(e) => text(field(e, part), part),
        None => Ok(None),
    };
    let active = field(resource, "active")
        .filter(|v| !v.is_null())
        .map(|v| boolean(v, "active"))
        .transpose()?;
    Ok(Attributes {
        email,
        user_name,
        display_name: text(field(resource, "displayName"), "displayName")?,
        firstname: name_part("givenName")?.unwrap_or_default(),
        lastname: name_part("familyName")?.unwrap_or_default(),
        external_id: text(field(resource, "externalId"), "externalId")?,
        language_id: language_tag.map(language),
        country_id: country,
        position: text(field(resource, "title"), "title")?,
        company: enterprise_part("organization")?,
        department: enterprise_part("department")?,
        active,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_email_comes_from_emails_and_else_from_the_user_name() {
        let both = json!({"userName": "ada\\corp", "emails": [{"value": "b@x.org", "type": "home"}, {"value": "a@X.org", "primary": "True"}], "name": {"givenName": "A", "familyName": "B"}});
        let a = parse(&both, None).unwrap();
        assert_eq!(
            (a.email.as_str(), a.user_name.as_deref()),
            ("a@X.org", Some("ada\\corp"))
        );
        let work = json!({"userName": "u", "emails": [{"value": "h@x.org", "type": "home"}, {"value": "w@x.org", "type": "work"}]});
        assert_eq!(parse(&work, None).unwrap().email, "w@x.org");
        let only_name = json!({"userName": "c@x.org"});
        assert_eq!(parse(&only_name, None).unwrap().email, "c@x.org");
        let only_email = json!({"emails": [{"value": "c@x.org"}]});
        let a = parse(&only_email, None).unwrap();
        assert_eq!((a.email.as_str(), a.user_name), ("c@x.org", None));
        assert!(parse(&json!({"name": {}}), None).is_err());
    }

    #[test]
    fn ids_strings_booleans_and_languages_are_read_as_identity_providers_send_them() {
        let r = json!({"userName": "a@x.org", "id": "u1", "ACTIVE": "False", "locale": "en-US", "title": "CTO",
            ENTERPRISE_SCHEMA: {"Department": "R&D", "organization": "Acme"}, "unknown": 1});
        let a = parse(&r, Some("u1")).unwrap();
        assert_eq!(a.active, Some(false));
        assert_eq!(a.language_id.as_deref(), Some("en"));
        assert_eq!(a.department.as_deref(), Some("R&D"));
        assert_eq!(a.company.as_deref(), Some("Acme"));
        assert_eq!(
            parse(&r, Some("u2")).unwrap_err().scim_type,
            Some("mutability")
        );
        assert_eq!(parse(&r, None).unwrap_err().scim_type, Some("mutability"));
        let wrong = json!({"userName": 5});
        assert_eq!(
            parse(&wrong, None).unwrap_err().scim_type,
            Some("invalidValue")
        );
        assert!(parse(&json!({"userName": "a@x.org", "active": "maybe"}), None).is_err());
    }
}
