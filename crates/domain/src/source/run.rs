//! How a connector's run went, as the connector reports it: which source
//! it read, when, what it read and sent, whom it did not find, what the
//! server refused and why, and the error that stopped it, if one did.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use crate::upload::{identifier, moment, refused, required_string, Raw};
use crate::validation::{bounded_text, Collector, FieldViolation, Rule, ValidationErrors};

/// The raw fields of a run's report, as the transport found them.
#[derive(Debug, Clone, Default)]
pub struct RunInput {
    /// `source`: the kind of source, such as `git`.
    pub source: Raw<String>,
    /// `name`: which one of its kind, such as a repository's path.
    pub name: Raw<String>,
    /// `started`: an RFC 3339 timestamp with an offset.
    pub started: Raw<String>,
    /// `finished`: an RFC 3339 timestamp with an offset.
    pub finished: Raw<String>,
    /// `read`: the items read from the source.
    pub read: Raw<i128>,
    /// `sent`: the uploads the server stored.
    pub sent: Raw<i128>,
    /// `known`: the uploads the server had stored before (their alias).
    pub known: Raw<i128>,
    /// `not_found`: the people of the source who are no user.
    pub not_found: Raw<i128>,
    /// `refused`: the uploads the server refused, by the code it gave.
    pub refused: Raw<Vec<(String, Raw<i128>)>>,
    /// `failed`: the items that could not be read or sent.
    pub failed: Raw<i128>,
    /// `dry_run`: whether the run read without sending.
    pub dry_run: Raw<bool>,
    /// `error`: what stopped the run, if something did.
    pub error: Raw<String>,
    /// Fields the transport refused outright (such as one a report does
    /// not have), by name with the reason; reported first, in this order.
    pub refused_fields: Vec<(String, &'static str)>,
}

/// The kind of a source (`git`, `mail`, `chat`, ...): lower-case letters,
/// digits and underscores, at most [`SourceKind::MAX_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceKind(String);

impl SourceKind {
    /// The field's public name.
    pub const FIELD: &'static str = "source";
    /// The maximum length in characters.
    pub const MAX_CHARS: usize = 40;

    /// Checks `raw` is a lower-case identifier of at most
    /// [`SourceKind::MAX_CHARS`] characters.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        identifier(Self::FIELD, raw, Self::MAX_CHARS).map(Self)
    }

    /// The kind as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

bounded_text!(
    /// Which source of its kind a run read: a repository's path, a
    /// mailbox, an export's file; at most 500 characters.
    SourceName, "name", 500, required = true
);

bounded_text!(
    /// What stopped a run, in the connector's words: at most 2000
    /// characters.
    RunError, "error", 2000, required = true
);

/// A code the server refused uploads with (`ValidationError`,
/// `UnknownUser`, ...), or the connector's own reason: 1 to
/// [`RefusalCode::MAX_CHARS`] characters, no control character but tab
/// and line break. Kept exactly as sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefusalCode(String);

impl RefusalCode {
    /// The maximum length in characters.
    pub const MAX_CHARS: usize = 100;

    /// Checks `raw` as a code, reported as the field `field`.
    pub fn parse(
        field: impl Into<std::borrow::Cow<'static, str>>,
        raw: &str,
    ) -> Result<Self, FieldViolation> {
        let field = field.into();
        if raw.trim().is_empty() {
            return Err(FieldViolation::new(field, Rule::Required));
        }
        if let Err(rule) = Rule::printable(raw) {
            return Err(FieldViolation::new(field, rule));
        }
        if raw.chars().count() > Self::MAX_CHARS {
            return Err(FieldViolation::new(
                field,
                Rule::TooLong {
                    limit: Self::MAX_CHARS,
                },
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    /// The code as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The counts of a run, each what the connector counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunCounts {
    /// The items read from the source.
    pub read: u64,
    /// The uploads the server stored.
    pub sent: u64,
    /// The uploads the server had stored before, by their alias.
    pub known: u64,
    /// The people of the source who are no user Kenning may learn about.
    pub not_found: u64,
    /// The items that could not be read or sent.
    pub failed: u64,
}

impl RunCounts {
    /// The largest count a report may give: 2^53 − 1, the largest whole
    /// number every JSON reader keeps exactly. The sum of a source's kept
    /// runs ([`RunReport::KEPT`], one more while a new one is written)
    /// stays within a signed 64-bit integer, so a database sums them.
    pub const MAX: u64 = (1 << 53) - 1;

    /// These counts and `other`'s, added (saturating).
    pub fn plus(self, other: RunCounts) -> RunCounts {
        RunCounts {
            read: self.read.saturating_add(other.read),
            sent: self.sent.saturating_add(other.sent),
            known: self.known.saturating_add(other.known),
            not_found: self.not_found.saturating_add(other.not_found),
            failed: self.failed.saturating_add(other.failed),
        }
    }
}

/// A run's report, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The kind of source.
    pub source: SourceKind,
    /// Which source of its kind.
    pub name: SourceName,
    /// When the run started, in UTC.
    pub started: DateTime<Utc>,
    /// When it finished, in UTC; not before it started.
    pub finished: DateTime<Utc>,
    /// What it read, sent, found known, did not find and failed on.
    pub counts: RunCounts,
    /// The uploads refused, by code; no code twice.
    pub refused: BTreeMap<RefusalCode, u64>,
    /// Whether it read without sending.
    pub dry_run: bool,
    /// What stopped it, if something did.
    pub error: Option<RunError>,
}

impl RunReport {
    /// How many runs of one source (its kind and name) are kept: the
    /// newest, whatever their age, so the runs of a source that syncs
    /// every few minutes take as little room as a nightly one's.
    pub const KEPT: usize = 1000;
    /// The most refusal codes one report may give.
    pub const MAX_REFUSAL_CODES: usize = 50;

    /// Checks every field at `now` and reports every bad one at once:
    /// each count a whole number from 0 to [`RunCounts::MAX`], the
    /// moments RFC 3339 with an offset and not ahead of `now` by more than
    /// clocks disagree, `finished` not before `started`. `refused` and
    /// `error` may be left out or null (none); a blank error is none.
    pub fn parse(input: RunInput, now: DateTime<Utc>) -> Result<Self, ValidationErrors> {
        let mut c = Collector::default();
        for (name, problem) in input.refused_fields {
            c.take::<()>(Err(refused(name, problem)));
        }
        let source = c
            .take(required_string(SourceKind::FIELD, input.source))
            .and_then(|raw| c.take(SourceKind::parse(&raw)));
        let name = c
            .take(required_string(SourceName::FIELD, input.name))
            .and_then(|raw| c.take(SourceName::parse(&raw)));
        let started = c
            .take(required_string("started", input.started))
            .and_then(|raw| c.take(moment("started", &raw, now)));
        let finished = c
            .take(required_string("finished", input.finished))
            .and_then(|raw| c.take(moment("finished", &raw, now)));
        if let (Some(started), Some(finished)) = (started, finished) {
            if finished < started {
                c.take::<()>(Err(FieldViolation::new(
                    "finished",
                    Rule::NotBefore { other: "started" },
                )));
            }
        }
        let read = c.take(count("read", input.read));
        let sent = c.take(count("sent", input.sent));
        let known = c.take(count("known", input.known));
        let not_found = c.take(count("not_found", input.not_found));
        let refusals = refusals(&mut c, input.refused);
        let failed = c.take(count("failed", input.failed));
        let dry_run = c.take(match input.dry_run {
            Raw::Value(dry_run) => Ok(dry_run),
            Raw::Refused(problem) => Err(refused("dry_run", problem)),
            Raw::Missing | Raw::Null => Err(FieldViolation::new("dry_run", Rule::Required)),
        });
        let error = match input.error {
            Raw::Missing | Raw::Null => Some(None),
            Raw::Value(raw) if raw.trim().is_empty() => Some(None),
            Raw::Value(raw) => c.take(RunError::parse(&raw)).map(Some),
            Raw::Refused(problem) => c.take(Err(refused(RunError::FIELD, problem))),
        };
        c.finish()?;
        match (
            source, name, started, finished, read, sent, known, not_found, refusals, failed,
            dry_run, error,
        ) {
            (
                Some(source),
                Some(name),
                Some(started),
                Some(finished),
                Some(read),
                Some(sent),
                Some(known),
                Some(not_found),
                Some(refused),
                Some(failed),
                Some(dry_run),
                Some(error),
            ) => Ok(Self {
                source,
                name,
                started,
                finished,
                counts: RunCounts {
                    read,
                    sent,
                    known,
                    not_found,
                    failed,
                },
                refused,
                dry_run,
                error,
            }),
            // Every `None` above recorded a violation, so `finish` failed.
            _ => Err(FieldViolation::new("body", Rule::Required).into()),
        }
    }

    /// How long the run took.
    pub fn took(&self) -> Duration {
        self.finished - self.started
    }

    /// Whether the run needs a look: it stopped on an error, or the server
    /// refused some of what it sent.
    pub fn troubled(&self) -> bool {
        self.error.is_some() || self.refused.values().any(|&n| n > 0)
    }
}

/// The count `field` was sent as: a whole number from 0 to
/// [`RunCounts::MAX`].
fn count(
    field: impl Into<std::borrow::Cow<'static, str>>,
    raw: Raw<i128>,
) -> Result<u64, FieldViolation> {
    let field = field.into();
    let n = match raw {
        Raw::Value(n) => n,
        Raw::Refused(problem) => return Err(refused(field, problem)),
        Raw::Missing | Raw::Null => return Err(FieldViolation::new(field, Rule::Required)),
    };
    if n < 0 {
        return Err(FieldViolation::new(field, Rule::TooSmall { min: 0 }));
    }
    match u64::try_from(n) {
        Ok(n) if n <= RunCounts::MAX => Ok(n),
        _ => Err(FieldViolation::new(
            field,
            Rule::TooLarge {
                // 2^53 − 1 fits.
                max: RunCounts::MAX as i64,
            },
        )),
    }
}

/// The refusals by code; none when the field was left out or null.
/// Recorded in `c` when any code or count broke a rule.
fn refusals(
    c: &mut Collector,
    raw: Raw<Vec<(String, Raw<i128>)>>,
) -> Option<BTreeMap<RefusalCode, u64>> {
    let entries = match raw {
        Raw::Missing | Raw::Null => return Some(BTreeMap::new()),
        Raw::Refused(problem) => return c.take(Err(refused("refused", problem))),
        Raw::Value(entries) => entries,
    };
    if entries.len() > RunReport::MAX_REFUSAL_CODES {
        return c.take(Err(FieldViolation::new(
            "refused",
            Rule::TooMany {
                max: RunReport::MAX_REFUSAL_CODES,
            },
        )));
    }
    let mut refusals = BTreeMap::new();
    let mut complete = true;
    for (code, n) in entries {
        let field = format!("refused.{}", shown(&code));
        let code = c.take(RefusalCode::parse(field.clone(), &code));
        let n = c.take(count(field, n));
        match (code, n) {
            (Some(code), Some(n)) => {
                refusals.insert(code, n);
            }
            _ => complete = false,
        }
    }
    complete.then_some(refusals)
}

/// A code as a field's name shows it: cut after
/// [`RefusalCode::MAX_CHARS`] characters, so that an answer does not
/// repeat whatever was sent.
fn shown(code: &str) -> String {
    if code.chars().count() > RefusalCode::MAX_CHARS {
        let cut: String = code.chars().take(RefusalCode::MAX_CHARS).collect();
        format!("{cut}…")
    } else {
        code.to_owned()
    }
}

#[cfg(test)]
mod tests;
