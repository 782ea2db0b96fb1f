//! A source's identities: the e-mail address and the externalId a source
//! knows a person by, each a key a user may hold.

use crate::profile::{Email, ExternalId, UserKey};
use crate::upload::{refused, Raw};
use crate::validation::{Collector, FieldViolation, Rule, ValidationErrors};

/// The raw fields of one identity, as the transport found them.
#[derive(Debug, Clone, Default)]
pub struct IdentityInput {
    /// `email`: the address the source knows the person by.
    pub email: Raw<String>,
    /// `external_id`: the id the source shares with the directory.
    pub external_id: Raw<String>,
    /// Fields the transport refused outright (such as one an identity does
    /// not have), by name with the reason; reported first.
    pub refused_fields: Vec<(String, &'static str)>,
}

/// One identity of a source: the keys a user may hold it by, the e-mail
/// address first. An address or externalId that no user could hold (not
/// an address, longer than the limit) is no key: it names nobody, which is
/// an answer, not a mistake of the request, since sources hold all sorts
/// (`root@localhost`, a bot's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceIdentity {
    keys: Vec<UserKey>,
}

impl SourceIdentity {
    /// The public name of the list of identities.
    pub const FIELD: &'static str = "identities";
    /// The most identities one request may ask about.
    pub const MAX_PER_REQUEST: usize = 1000;

    /// The identities of one request, in its order: 1 to
    /// [`SourceIdentity::MAX_PER_REQUEST`], each with an `email`, an
    /// `external_id` or both (a blank one counts as not given). Every
    /// problem is reported at once, as `identities`, `identities[3]` or
    /// `identities[3].email`.
    pub fn parse_all(raw: Raw<Vec<Raw<IdentityInput>>>) -> Result<Vec<Self>, ValidationErrors> {
        let entries = match raw {
            Raw::Value(entries) if !entries.is_empty() => entries,
            Raw::Refused(problem) => return Err(refused(Self::FIELD, problem).into()),
            Raw::Missing | Raw::Null | Raw::Value(_) => {
                return Err(FieldViolation::new(Self::FIELD, Rule::Required).into())
            }
        };
        if entries.len() > Self::MAX_PER_REQUEST {
            return Err(FieldViolation::new(
                Self::FIELD,
                Rule::TooMany {
                    max: Self::MAX_PER_REQUEST,
                },
            )
            .into());
        }
        let mut c = Collector::default();
        let identities: Vec<Option<Self>> = entries
            .into_iter()
            .enumerate()
            .map(|(i, entry)| Self::parse(&mut c, i, entry))
            .collect();
        c.finish()?;
        // Every `None` recorded a violation, so `finish` failed above.
        Ok(identities.into_iter().flatten().collect())
    }

    /// The `i`th identity; `None` when it broke a rule, recorded in `c`.
    fn parse(c: &mut Collector, i: usize, entry: Raw<IdentityInput>) -> Option<Self> {
        let at = format!("{}[{i}]", Self::FIELD);
        let entry = match entry {
            Raw::Value(entry) => entry,
            Raw::Refused(problem) => return c.take(Err(refused(at, problem))),
            Raw::Missing | Raw::Null => {
                return c.take(Err(FieldViolation::new(at, Rule::Required)))
            }
        };
        let mut complete = true;
        for (name, problem) in entry.refused_fields {
            complete = false;
            c.take::<()>(Err(refused(format!("{at}.{name}"), problem)));
        }
        let email = given(c, &at, "email", entry.email);
        let external_id = given(c, &at, "external_id", entry.external_id);
        let (Some(email), Some(external_id)) = (email, external_id) else {
            return None;
        };
        if email.is_none() && external_id.is_none() {
            return c.take(Err(FieldViolation::new(
                at,
                Rule::OneOrBoth {
                    first: "email",
                    second: "external_id",
                },
            )));
        }
        let keys = email
            .and_then(|raw| Email::parse(&raw).ok().map(UserKey::Email))
            .into_iter()
            .chain(
                external_id.and_then(|raw| ExternalId::parse(&raw).ok().map(UserKey::ExternalId)),
            )
            .collect();
        complete.then_some(Self { keys })
    }

    /// The keys a user may hold this identity by, the e-mail address
    /// first; none when what was given can be no user's.
    pub fn keys(&self) -> &[UserKey] {
        &self.keys
    }
}

/// The text of the optional field `name` of the identity `at`:
/// `Some(None)` when it was not given (missing, null or blank), `None`
/// when the transport refused it, recorded in `c`.
fn given(c: &mut Collector, at: &str, name: &str, raw: Raw<String>) -> Option<Option<String>> {
    match raw {
        Raw::Missing | Raw::Null => Some(None),
        Raw::Refused(problem) => c.take(Err(refused(format!("{at}.{name}"), problem))),
        Raw::Value(text) if text.trim().is_empty() => Some(None),
        Raw::Value(text) => Some(Some(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(email: Option<&str>, external_id: Option<&str>) -> Raw<IdentityInput> {
        let raw = |v: Option<&str>| v.map_or(Raw::Null, |v| Raw::Value(v.to_owned()));
        Raw::Value(IdentityInput {
            email: raw(email),
            external_id: raw(external_id),
            refused_fields: Vec::new(),
        })
    }

    fn problems(raw: Raw<Vec<Raw<IdentityInput>>>) -> Vec<String> {
        SourceIdentity::parse_all(raw)
            .unwrap_err()
            .violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn the_email_is_the_first_key_and_what_no_user_can_hold_is_none() {
        let parsed = SourceIdentity::parse_all(Raw::Value(vec![
            identity(Some("Ada@Example.com"), Some("emp-1")),
            identity(None, Some("emp-2")),
            identity(Some("root@(none)"), None),
            identity(Some("  "), Some(&"x".repeat(ExternalId::MAX_CHARS + 1))),
        ]))
        .unwrap();
        let ada = Email::parse("Ada@Example.com").unwrap();
        assert_eq!(
            parsed[0].keys(),
            [
                UserKey::Email(ada),
                UserKey::ExternalId(ExternalId::parse("emp-1").unwrap())
            ]
        );
        assert_eq!(parsed[1].keys().len(), 1);
        assert!(parsed[2].keys().is_empty(), "not an address: nobody");
        assert!(parsed[3].keys().is_empty(), "too long: nobody");
    }

    #[test]
    fn one_to_a_thousand_identities_each_with_something_given() {
        assert_eq!(
            problems(Raw::Value(Vec::new())),
            ["identities is required and cannot be blank"]
        );
        assert_eq!(problems(Raw::Missing), problems(Raw::Value(Vec::new())));
        let many = vec![identity(Some("a@b.org"), None); SourceIdentity::MAX_PER_REQUEST + 1];
        assert_eq!(
            problems(Raw::Value(many)),
            ["identities must hold at most 1000 items"]
        );
        let full = vec![identity(Some("a@b.org"), None); SourceIdentity::MAX_PER_REQUEST];
        assert!(SourceIdentity::parse_all(Raw::Value(full)).is_ok());
        assert_eq!(
            problems(Raw::Refused("must be an array")),
            ["identities must be an array"]
        );
    }

    #[test]
    fn every_bad_identity_is_named_at_once() {
        let mut refused = IdentityInput {
            email: Raw::Refused("must be a string or null"),
            ..IdentityInput::default()
        };
        refused
            .refused_fields
            .push(("name".to_owned(), "is not a known field"));
        assert_eq!(
            problems(Raw::Value(vec![
                identity(Some("a@b.org"), None),
                identity(None, Some(" ")),
                Raw::Refused("must be an object"),
                Raw::Value(refused),
                Raw::Null,
            ])),
            [
                "identities[1] must give email, external_id or both",
                "identities[2] must be an object",
                "identities[3].name is not a known field",
                "identities[3].email must be a string or null",
                "identities[4] is required and cannot be blank",
            ]
        );
    }
}
