//! What a connector uploads: an entity (document, chat, e-mail...) with the
//! action a user took on it, and the texts topics are learned from.
//!
//! The raw input arrives field by field ([`Raw`]), so that every bad field
//! of one upload is reported at once. Reading the input is the transport's
//! job: a value it could not read (a number where a string belongs, a field
//! an upload does not have) it refuses with its own reason, and the domain
//! reports that reason in its place among the other problems.

use std::borrow::Cow;

use chrono::{DateTime, Duration, Utc};

use crate::profile::Email;
use crate::topic::TextFormat;
use crate::validation::{Collector, FieldViolation, Rule, ValidationErrors};

/// One raw field of an upload, as the transport found it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Raw<T> {
    /// The field was not sent.
    #[default]
    Missing,
    /// The field was sent as null.
    Null,
    /// The field was sent, but the transport could not read it as a value
    /// of the field's kind; the reason, in the transport's words (such as
    /// `must be a string`), is reported as [`Rule::Refused`]. A refused
    /// field counts as sent.
    Refused(&'static str),
    /// The field was sent with a value of its kind.
    Value(T),
}

/// The raw fields of one entry of `texts`.
#[derive(Debug, Clone, Default)]
pub struct TextInput {
    /// `text_format`: `plain` or `html`.
    pub text_format: Raw<String>,
    /// `descriptor`: `primary`, `default` or `secondary`.
    pub descriptor: Raw<String>,
    /// `text`: the text itself.
    pub text: Raw<String>,
    /// Fields of the entry the transport refused outright (such as one a
    /// text does not have), by name with the reason; reported before the
    /// entry's own fields, in this order, as `texts[i].name`.
    pub refused_fields: Vec<(String, &'static str)>,
}

/// The raw fields of an upload.
#[derive(Debug, Clone, Default)]
pub struct UploadInput {
    /// `entity_type`, such as `document`.
    pub entity_type: Raw<String>,
    /// `action_type`, such as `create`.
    pub action_type: Raw<String>,
    /// `action_date`: an RFC 3339 timestamp with an offset.
    pub action_date: Raw<String>,
    /// `user_email`: the acting user's address.
    pub user_email: Raw<String>,
    /// `text`: a single plain text, the short form of `texts`; exactly one
    /// of the two is given.
    pub text: Raw<String>,
    /// `texts`: the entity's texts, each with its format and descriptor.
    pub texts: Raw<Vec<Raw<TextInput>>>,
    /// `action_alias`: the connector's id of the action, accepted once.
    pub action_alias: Raw<String>,
    /// Fields the transport refused outright (such as one an upload does
    /// not have), by name with the reason; reported first, in this order.
    pub refused_fields: Vec<(String, &'static str)>,
}

/// How much a text says about its entity, as the operator advises the
/// connector's author.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Descriptor {
    /// An ordinary text of the entity.
    #[default]
    Default,
    /// A text central to its entity (a title, a summary): its topics count
    /// more.
    Primary,
    /// A text at the edge of its entity (a comment, a footer): its topics
    /// count less.
    Secondary,
}

impl Descriptor {
    /// The descriptor a public name names: `primary`, `default` or
    /// `secondary`.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Descriptor::Primary,
            Descriptor::Default,
            Descriptor::Secondary,
        ]
        .into_iter()
        .find(|d| d.as_str() == name)
    }

    /// The descriptor's public name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Descriptor::Default => "default",
            Descriptor::Primary => "primary",
            Descriptor::Secondary => "secondary",
        }
    }
}

/// A name agreed with the operator: lower-case letters, digits and `_`,
/// at most `limit` characters.
pub(crate) fn identifier(
    field: &'static str,
    raw: &str,
    limit: usize,
) -> Result<String, FieldViolation> {
    if raw.is_empty() {
        return Err(FieldViolation::new(field, Rule::Required));
    }
    if raw.chars().count() > limit {
        return Err(FieldViolation::new(field, Rule::TooLong { limit }));
    }
    if !raw
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(FieldViolation::new(field, Rule::NotAnIdentifier));
    }
    Ok(raw.to_owned())
}

/// The longest entity or action type, in characters.
const IDENTIFIER_MAX_CHARS: usize = 100;

/// The kind of entity: `document`, `chat`, `email`...
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntityType(String);

impl EntityType {
    /// The field's public name.
    pub const FIELD: &'static str = "entity_type";
    /// The maximum length in characters.
    pub const MAX_CHARS: usize = IDENTIFIER_MAX_CHARS;

    /// Checks `raw` is a lower-case identifier of at most
    /// [`EntityType::MAX_CHARS`] characters.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        identifier(Self::FIELD, raw, IDENTIFIER_MAX_CHARS).map(Self)
    }

    /// The type as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The kind of action: `create`, `edit`, `view`...; it carries a weight.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActionType(String);

impl ActionType {
    /// The field's public name.
    pub const FIELD: &'static str = "action_type";
    /// The maximum length in characters.
    pub const MAX_CHARS: usize = IDENTIFIER_MAX_CHARS;

    /// Checks `raw` is a lower-case identifier of at most
    /// [`ActionType::MAX_CHARS`] characters.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        identifier(Self::FIELD, raw, IDENTIFIER_MAX_CHARS).map(Self)
    }

    /// The type as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The alias under which an upload is accepted once only.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActionAlias(String);

impl ActionAlias {
    /// The field's public name.
    pub const FIELD: &'static str = "action_alias";
    /// The maximum length in characters.
    pub const MAX_CHARS: usize = 255;

    /// Kept exactly as sent (an alias is an identifier, not prose), but a
    /// blank one is refused.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        if raw.trim().is_empty() {
            return Err(FieldViolation::new(Self::FIELD, Rule::Required));
        }
        Rule::printable(raw).map_err(|rule| FieldViolation::new(Self::FIELD, rule))?;
        if raw.chars().count() > Self::MAX_CHARS {
            return Err(FieldViolation::new(
                Self::FIELD,
                Rule::TooLong {
                    limit: Self::MAX_CHARS,
                },
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    /// The alias exactly as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One text of an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadText {
    /// How the text is written.
    pub format: TextFormat,
    /// How much the text says about its entity.
    pub descriptor: Descriptor,
    /// The text, free of control characters but tab and line break.
    pub text: String,
}

/// A checked upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    /// The kind of entity acted on.
    pub entity_type: EntityType,
    /// What the user did to it.
    pub action_type: ActionType,
    /// In UTC.
    pub action_date: DateTime<Utc>,
    /// The acting user's address; users are found by its folded key.
    pub user_email: Email,
    /// Its texts, at least one.
    pub texts: Vec<UploadText>,
    /// The connector's id of the action, if it gave one.
    pub alias: Option<ActionAlias>,
}

impl Upload {
    /// The most texts one upload may carry.
    pub const MAX_TEXTS: usize = 100;
    /// How far ahead of the server's clock an action may be dated.
    pub const MAX_CLOCK_SKEW_HOURS: i64 = 24;

    /// Checks every field at `now` and reports every bad one at once.
    pub fn parse(input: UploadInput, now: DateTime<Utc>) -> Result<Self, ValidationErrors> {
        let mut c = Collector::default();
        for (name, problem) in input.refused_fields {
            c.take::<()>(Err(refused(name, problem)));
        }
        let entity_type = c
            .take(required_string(EntityType::FIELD, input.entity_type))
            .and_then(|raw| c.take(EntityType::parse(&raw)));
        let action_type = c
            .take(required_string(ActionType::FIELD, input.action_type))
            .and_then(|raw| c.take(ActionType::parse(&raw)));
        let action_date = c
            .take(required_string("action_date", input.action_date))
            .and_then(|raw| c.take(moment("action_date", &raw, now)));
        let user_email = c
            .take(required_string("user_email", input.user_email))
            .and_then(|raw| c.take(Email::parse(&raw).map_err(|v| v.renamed("user_email"))));
        let alias = match input.action_alias {
            Raw::Missing | Raw::Null => None,
            Raw::Refused(problem) => {
                c.take::<ActionAlias>(Err(refused(ActionAlias::FIELD, problem)))
            }
            Raw::Value(raw) => c.take(ActionAlias::parse(&raw)),
        };
        let texts = texts(&mut c, input.text, input.texts);
        c.finish()?;
        match (entity_type, action_type, action_date, user_email, texts) {
            (
                Some(entity_type),
                Some(action_type),
                Some(action_date),
                Some(user_email),
                Some(texts),
            ) => Ok(Self {
                entity_type,
                action_type,
                action_date,
                user_email,
                texts,
                alias,
            }),
            // Every `None` above recorded a violation, so `finish` failed.
            _ => Err(FieldViolation::new("body", Rule::Required).into()),
        }
    }
}

impl FieldViolation {
    /// The same violation reported under another field name.
    fn renamed(self, field: &'static str) -> Self {
        FieldViolation::new(field, self.rule)
    }
}

/// The transport's refusal of `field`, in its words.
pub(crate) fn refused(
    field: impl Into<Cow<'static, str>>,
    problem: &'static str,
) -> FieldViolation {
    FieldViolation::new(field, Rule::Refused { problem })
}

/// The string `field` was sent as; `Required` when it was not.
pub(crate) fn required_string(
    field: &'static str,
    raw: Raw<String>,
) -> Result<String, FieldViolation> {
    match raw {
        Raw::Missing | Raw::Null => Err(FieldViolation::new(field, Rule::Required)),
        Raw::Refused(problem) => Err(refused(field, problem)),
        Raw::Value(value) => Ok(value),
    }
}

/// A moment of `field`, written in RFC 3339 with an offset, in UTC; no
/// further ahead of `now` than clocks can disagree
/// ([`Upload::MAX_CLOCK_SKEW_HOURS`]).
pub(crate) fn moment(
    field: &'static str,
    raw: &str,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, FieldViolation> {
    let date = DateTime::parse_from_rfc3339(raw.trim())
        .map_err(|_| FieldViolation::new(field, Rule::InvalidTimestamp))?
        .with_timezone(&Utc);
    if date > now + Duration::hours(Upload::MAX_CLOCK_SKEW_HOURS) {
        return Err(FieldViolation::new(field, Rule::InFuture));
    }
    Ok(date)
}

fn texts(
    c: &mut Collector,
    text: Raw<String>,
    texts: Raw<Vec<Raw<TextInput>>>,
) -> Option<Vec<UploadText>> {
    let entries = match (text, texts) {
        (Raw::Missing | Raw::Null, Raw::Missing | Raw::Null)
        | (Raw::Refused(_) | Raw::Value(_), Raw::Refused(_) | Raw::Value(_)) => {
            c.take::<()>(Err(FieldViolation::new(
                "text",
                Rule::ExactlyOneOf { other: "texts" },
            )));
            return None;
        }
        (Raw::Refused(problem), _) => {
            c.take::<()>(Err(refused("text", problem)));
            return None;
        }
        (Raw::Value(text), _) => {
            let text = c.take(non_blank("text".into(), text))?;
            return Some(vec![UploadText {
                format: TextFormat::Plain,
                descriptor: Descriptor::Default,
                text,
            }]);
        }
        (_, Raw::Refused(problem)) => {
            c.take::<()>(Err(refused("texts", problem)));
            return None;
        }
        (_, Raw::Value(entries)) => entries,
    };
    if entries.is_empty() {
        c.take::<()>(Err(FieldViolation::new("texts", Rule::Required)));
        return None;
    }
    if entries.len() > Upload::MAX_TEXTS {
        c.take::<()>(Err(FieldViolation::new(
            "texts",
            Rule::TooMany {
                max: Upload::MAX_TEXTS,
            },
        )));
        return None;
    }
    let mut parsed = Vec::with_capacity(entries.len());
    let mut complete = true;
    for (i, entry) in entries.into_iter().enumerate() {
        match text_entry(c, i, entry) {
            Some(text) => parsed.push(text),
            None => complete = false,
        }
    }
    complete.then_some(parsed)
}

fn text_entry(c: &mut Collector, i: usize, entry: Raw<TextInput>) -> Option<UploadText> {
    let at = |name: &str| format!("texts[{i}].{name}");
    let entry = match entry {
        Raw::Value(entry) => entry,
        Raw::Refused(problem) => {
            c.take::<()>(Err(refused(format!("texts[{i}]"), problem)));
            return None;
        }
        // An array's entries are all sent; an absent one is no text.
        Raw::Missing | Raw::Null => {
            c.take::<()>(Err(FieldViolation::new(
                format!("texts[{i}]"),
                Rule::Required,
            )));
            return None;
        }
    };
    for (name, problem) in entry.refused_fields {
        c.take::<()>(Err(refused(at(&name), problem)));
    }
    let format = match entry.text_format {
        Raw::Missing | Raw::Null => Some(TextFormat::Plain),
        Raw::Refused(problem) => c.take(Err(refused(at("text_format"), problem))),
        Raw::Value(raw) => c.take(match raw.as_str() {
            "plain" => Ok(TextFormat::Plain),
            "html" => Ok(TextFormat::Html),
            _ => Err(FieldViolation::new(
                at("text_format"),
                Rule::OneOf {
                    allowed: "plain, html",
                },
            )),
        }),
    };
    let descriptor = match entry.descriptor {
        Raw::Missing | Raw::Null => Some(Descriptor::Default),
        Raw::Refused(problem) => c.take(Err(refused(at("descriptor"), problem))),
        Raw::Value(raw) => c.take(Descriptor::from_name(&raw).ok_or_else(|| {
            FieldViolation::new(
                at("descriptor"),
                Rule::OneOf {
                    allowed: "default, primary, secondary",
                },
            )
        })),
    };
    let text = match entry.text {
        Raw::Missing | Raw::Null => c.take(Err(FieldViolation::new(at("text"), Rule::Required))),
        Raw::Refused(problem) => c.take(Err(refused(at("text"), problem))),
        Raw::Value(raw) => c.take(non_blank(at("text"), raw)),
    };
    Some(UploadText {
        format: format?,
        descriptor: descriptor?,
        text: text?,
    })
}

fn non_blank(field: String, text: String) -> Result<String, FieldViolation> {
    if text.trim().is_empty() {
        Err(FieldViolation::new(field, Rule::Required))
    } else {
        Ok(text)
    }
}

#[cfg(test)]
mod tests;
