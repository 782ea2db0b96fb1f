//! The privacy rules an organisation sets on learning, and a person's own
//! choice: who Kenning learns about, from which uploads, for how long.
//!
//! A person is learned about when nobody turned learning off for everyone,
//! no group they belong to has learning off, and they chose to be (or,
//! never having chosen, the organisation lets people start opted in).
//! While a person is not learned about, their uploads teach nothing and
//! `experts` does not offer them; what was learned before stays until it
//! is forgotten, so turning learning on again brings it back.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::audit::{Actor, Change, ChangeKind};
use crate::group::GroupId;
use crate::upload::{ActionType, EntityType};
use crate::validation::{FieldViolation, Rule};

/// The shortest retention, in days.
pub const MIN_RETENTION_DAYS: u32 = 1;
/// The longest retention, in days (a hundred years: "keep everything" is
/// no retention rule at all).
pub const MAX_RETENTION_DAYS: u32 = 36_500;

/// One of the organisation's rules on learning.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LearningRule {
    /// Nobody is learned about.
    LearningOff,
    /// People who never chose start opted out (opt-in, not opt-out).
    NewPeopleOptedOut,
    /// The members of the group are not learned about.
    GroupOff(GroupId),
    /// Uploads of this entity type teach nothing.
    ExcludedEntityType(String),
    /// Uploads of this action type teach nothing.
    ExcludedActionType(String),
    /// Actions older than this many days are forgotten.
    RetentionDays(u32),
}

/// The public names of the kinds of rule, for the message of a name that
/// is none.
const KIND_NAMES: &str = "learning_off, new_people_opted_out, group_off, \
    excluded_entity_type, excluded_action_type, retention_days";

impl LearningRule {
    /// The field a rule's kind is given in.
    pub const KIND_FIELD: &'static str = "kind";
    /// The field a rule's value is given in.
    pub const VALUE_FIELD: &'static str = "value";

    /// The rule of kind `kind` with the value `value` (none for the kinds
    /// that take none), each checked as its field is anywhere else: a
    /// group's id, an entity or action type as uploads write it, a number
    /// of days from [`MIN_RETENTION_DAYS`] to [`MAX_RETENTION_DAYS`].
    pub fn parse(kind: &str, value: Option<&str>) -> Result<Self, FieldViolation> {
        let value = value.map(str::trim).filter(|v| !v.is_empty());
        let needed = || FieldViolation::new(Self::VALUE_FIELD, Rule::Required);
        let invalid = |rule| FieldViolation::new(Self::VALUE_FIELD, rule);
        let none = |rule: LearningRule| match value {
            None => Ok(rule),
            Some(_) => Err(FieldViolation::new(
                Self::VALUE_FIELD,
                Rule::Refused {
                    problem: "must not be given for this kind of rule",
                },
            )),
        };
        match kind.trim() {
            "learning_off" => none(LearningRule::LearningOff),
            "new_people_opted_out" => none(LearningRule::NewPeopleOptedOut),
            "group_off" => {
                let raw = value.ok_or_else(needed)?;
                uuid::Uuid::parse_str(raw)
                    .map(|id| LearningRule::GroupOff(GroupId::from_uuid(id)))
                    .map_err(|_| invalid(Rule::NotAGroup))
            }
            "excluded_entity_type" => EntityType::parse(value.ok_or_else(needed)?)
                .map(|t| LearningRule::ExcludedEntityType(t.as_str().to_owned()))
                .map_err(|v| invalid(v.rule)),
            "excluded_action_type" => ActionType::parse(value.ok_or_else(needed)?)
                .map(|t| LearningRule::ExcludedActionType(t.as_str().to_owned()))
                .map_err(|v| invalid(v.rule)),
            "retention_days" => {
                let days: i64 = value
                    .ok_or_else(needed)?
                    .parse()
                    .map_err(|_| invalid(Rule::NotANumber))?;
                if days < i64::from(MIN_RETENTION_DAYS) {
                    return Err(invalid(Rule::TooSmall {
                        min: i64::from(MIN_RETENTION_DAYS),
                    }));
                }
                if days > i64::from(MAX_RETENTION_DAYS) {
                    return Err(invalid(Rule::TooLarge {
                        max: i64::from(MAX_RETENTION_DAYS),
                    }));
                }
                Ok(LearningRule::RetentionDays(days as u32))
            }
            _ => Err(FieldViolation::new(
                Self::KIND_FIELD,
                Rule::OneOf {
                    allowed: KIND_NAMES,
                },
            )),
        }
    }

    /// The rule as stored: its kind's public name and its value (empty for
    /// the kinds that take none).
    pub fn parts(&self) -> (&'static str, String) {
        match self {
            LearningRule::LearningOff => ("learning_off", String::new()),
            LearningRule::NewPeopleOptedOut => ("new_people_opted_out", String::new()),
            LearningRule::GroupOff(group) => ("group_off", group.to_string()),
            LearningRule::ExcludedEntityType(t) => ("excluded_entity_type", t.clone()),
            LearningRule::ExcludedActionType(t) => ("excluded_action_type", t.clone()),
            LearningRule::RetentionDays(days) => ("retention_days", days.to_string()),
        }
    }

    /// The rule stored as `kind` and `value`; `None` for a row no version
    /// of Kenning wrote.
    pub fn from_parts(kind: &str, value: &str) -> Option<Self> {
        Self::parse(kind, Some(value).filter(|v| !v.is_empty())).ok()
    }

    /// Whether the rule replaces any other of its kind when set: there is
    /// one retention.
    pub fn is_single(&self) -> bool {
        matches!(self, LearningRule::RetentionDays(_))
    }
}

impl fmt::Display for LearningRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, value) = self.parts();
        if value.is_empty() {
            f.write_str(kind)
        } else {
            write!(f, "{kind} {value}")
        }
    }
}

/// The organisation's rule `rule` set (`set`) or lifted. The
/// organisation's id is the nil UUID: there is one.
pub fn learning_rule_changed(rule: &LearningRule, set: bool) -> Change {
    let kind = if set {
        ChangeKind::LearningRuleSet
    } else {
        ChangeKind::LearningRuleLifted
    };
    Change::of(kind, uuid::Uuid::nil(), &[rule.parts().0])
}

/// A rule in force, with who set it and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInForce {
    /// The rule.
    pub rule: LearningRule,
    /// Who set it.
    pub set_by: Actor,
    /// When.
    pub set_at: DateTime<Utc>,
}

/// The rules in force, read for what they decide.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LearningRules {
    /// Every rule, in the order of [`LearningRule`].
    pub rules: Vec<RuleInForce>,
}

impl LearningRules {
    /// The rules `rules`, in their order.
    pub fn new(mut rules: Vec<RuleInForce>) -> Self {
        rules.sort_by(|a, b| a.rule.cmp(&b.rule));
        Self { rules }
    }

    fn has(&self, wanted: impl Fn(&LearningRule) -> bool) -> bool {
        self.rules.iter().any(|r| wanted(&r.rule))
    }

    /// Whether anyone is learned about.
    pub fn anyone_learns(&self) -> bool {
        !self.has(|r| *r == LearningRule::LearningOff)
    }

    /// Whether a person who never chose is learned about.
    pub fn new_people_learn(&self) -> bool {
        !self.has(|r| *r == LearningRule::NewPeopleOptedOut)
    }

    /// Whether a person with the choice `choice` (none made: `None`) who
    /// belongs to `groups` is learned about.
    pub fn learns(&self, choice: Option<bool>, groups: &[GroupId]) -> bool {
        self.anyone_learns()
            && choice.unwrap_or_else(|| self.new_people_learn())
            && !groups
                .iter()
                .any(|g| self.has(|r| *r == LearningRule::GroupOff(*g)))
    }

    /// Whether an upload of an entity of `entity_type` by an action of
    /// `action_type` may teach.
    pub fn teaches(&self, entity_type: &str, action_type: &str) -> bool {
        !self.has(|r| match r {
            LearningRule::ExcludedEntityType(t) => t == entity_type,
            LearningRule::ExcludedActionType(t) => t == action_type,
            _ => false,
        })
    }

    /// The retention in days, if one is set.
    pub fn retention_days(&self) -> Option<u32> {
        self.rules.iter().find_map(|r| match r.rule {
            LearningRule::RetentionDays(days) => Some(days),
            _ => None,
        })
    }
}

/// A person's learning: their own choice and what the rules make of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learning {
    /// The person's choice: `Some(false)` opted out, `Some(true)` opted
    /// in, `None` never chose (the organisation's default holds).
    pub choice: Option<bool>,
    /// Whether the person is learned about now, all rules applied.
    pub learns: bool,
}

/// A subject asked in `experts` and how many could answer it: what the
/// organisation's gaps are read from. Only the subject's topics are kept,
/// never the query's text nor who asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskedSubject {
    /// The subject's topic keys, sorted and joined by a space: the same
    /// subject asked in other words counts once.
    pub key: String,
    /// The subject as a reader reads it: its topics' labels.
    pub label: String,
    /// People who scored 50 or more on it: 0 (nobody knows) or 1 (one
    /// person does).
    pub holders: u8,
}

impl AskedSubject {
    /// The most holders a subject is kept with: a subject two people know
    /// is not a gap.
    pub const MAX_HOLDERS: u8 = 1;
    /// How long the counts are kept, in days.
    pub const KEPT_DAYS: i64 = 90;
    /// The span of days the counts are read over when none is given.
    pub const DEFAULT_DAYS: u32 = 30;

    /// The field a span of days to read counts over is given in.
    pub const DAYS_FIELD: &'static str = "days";

    /// `raw` as a span of days to read the counts over: 1 to
    /// [`AskedSubject::KEPT_DAYS`], the days they are kept.
    pub fn span(raw: i64) -> Result<u32, FieldViolation> {
        if raw < 1 {
            return Err(FieldViolation::new(
                Self::DAYS_FIELD,
                Rule::TooSmall { min: 1 },
            ));
        }
        if raw > Self::KEPT_DAYS {
            return Err(FieldViolation::new(
                Self::DAYS_FIELD,
                Rule::TooLarge {
                    max: Self::KEPT_DAYS,
                },
            ));
        }
        u32::try_from(raw).map_err(|_| FieldViolation::new(Self::DAYS_FIELD, Rule::NotANumber))
    }

    /// The subject of a question whose topics are `topics` (key, label),
    /// answered by `holders` people scoring
    /// [`THE_PERSON`](crate::THE_PERSON) or more; `None` when it is no gap (more than one holder) or has no
    /// topic.
    pub fn of(topics: &[(String, String)], holders: usize) -> Option<Self> {
        if topics.is_empty() || holders > usize::from(Self::MAX_HOLDERS) {
            return None;
        }
        let mut topics: Vec<&(String, String)> = topics.iter().collect();
        topics.sort();
        topics.dedup_by(|a, b| a.0 == b.0);
        let key = topics
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let label = readable(topics.iter().map(|(_, l)| l.as_str()));
        Some(Self {
            key,
            label,
            holders: holders as u8,
        })
    }
}

/// The labels a reader needs: the longest first, each one whose words
/// another kept label holds (as words, or as their beginnings: a topic
/// nobody learned is labelled by its stems) left out ("heliospheric
/// magnetometers" rather than "heliospheric, heliospheric magnetometers,
/// magnetometers"; "compiler register allocation" rather than also
/// "compil regist"), joined by commas.
fn readable<'a>(labels: impl Iterator<Item = &'a str>) -> String {
    let words =
        |label: &str| -> Vec<String> { label.split_whitespace().map(str::to_lowercase).collect() };
    let mut labels: Vec<&str> = labels.collect();
    labels.sort_by_key(|l| (std::cmp::Reverse(l.split_whitespace().count()), *l));
    let mut kept: Vec<(&str, Vec<String>)> = Vec::new();
    for label in labels {
        let mine = words(label);
        let held = kept.iter().any(|(_, theirs)| {
            mine.iter()
                .all(|w| theirs.iter().any(|t| t.starts_with(w.as_str())))
        });
        if !held {
            kept.push((label, mine));
        }
    }
    kept.iter()
        .map(|(label, _)| *label)
        .collect::<Vec<_>>()
        .join(", ")
}

/// How often a subject was asked over a span of days.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskedCount {
    /// The subject.
    pub subject: AskedSubject,
    /// How many times.
    pub asks: u64,
    /// The last day it was asked on.
    pub last: chrono::NaiveDate,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(rules: &[LearningRule]) -> LearningRules {
        LearningRules::new(
            rules
                .iter()
                .map(|rule| RuleInForce {
                    rule: rule.clone(),
                    set_by: Actor::cli(),
                    set_at: DateTime::UNIX_EPOCH,
                })
                .collect(),
        )
    }

    #[test]
    fn a_rule_is_read_back_from_its_parts() {
        let group = GroupId::from_uuid(uuid::Uuid::from_u128(7));
        for rule in [
            LearningRule::LearningOff,
            LearningRule::NewPeopleOptedOut,
            LearningRule::GroupOff(group),
            LearningRule::ExcludedEntityType("chat".to_owned()),
            LearningRule::ExcludedActionType("view".to_owned()),
            LearningRule::RetentionDays(365),
        ] {
            let (kind, value) = rule.parts();
            assert_eq!(LearningRule::from_parts(kind, &value), Some(rule));
        }
    }

    #[test]
    fn a_bad_rule_names_the_field_and_the_rule() {
        let refused = |kind: &str, value: Option<&str>| {
            let violation = LearningRule::parse(kind, value).unwrap_err();
            (violation.field, violation.rule)
        };
        assert_eq!(refused("sometimes", None).0, "kind");
        assert_eq!(
            refused("excluded_entity_type", Some("Chat")),
            ("value".into(), Rule::NotAnIdentifier)
        );
        assert_eq!(
            refused("retention_days", Some("0")),
            ("value".into(), Rule::TooSmall { min: 1 })
        );
        assert_eq!(
            refused("retention_days", Some("a year")),
            ("value".into(), Rule::NotANumber)
        );
        assert_eq!(refused("group_off", None), ("value".into(), Rule::Required));
        assert_eq!(refused("group_off", Some("nope")).1, Rule::NotAGroup);
        assert_eq!(refused("learning_off", Some("x")).0, "value");
    }

    #[test]
    fn a_person_is_learned_about_only_when_every_rule_allows_it() {
        let works_council = GroupId::from_uuid(uuid::Uuid::from_u128(8));
        let none = rules(&[]);
        assert!(none.learns(None, &[works_council]));
        assert!(!none.learns(Some(false), &[]));
        let opt_in = rules(&[LearningRule::NewPeopleOptedOut]);
        assert!(!opt_in.learns(None, &[]));
        assert!(opt_in.learns(Some(true), &[]));
        let group_off = rules(&[LearningRule::GroupOff(works_council)]);
        assert!(!group_off.learns(Some(true), &[works_council]));
        assert!(group_off.learns(Some(true), &[GroupId::from_uuid(uuid::Uuid::from_u128(9))]));
        assert!(!rules(&[LearningRule::LearningOff]).learns(Some(true), &[]));
    }

    #[test]
    fn an_excluded_type_teaches_nothing() {
        let rules = rules(&[
            LearningRule::ExcludedEntityType("chat".to_owned()),
            LearningRule::ExcludedActionType("view".to_owned()),
            LearningRule::RetentionDays(30),
        ]);
        assert!(!rules.teaches("chat", "create"));
        assert!(!rules.teaches("document", "view"));
        assert!(rules.teaches("document", "create"));
        assert_eq!(rules.retention_days(), Some(30));
    }

    #[test]
    fn a_subject_is_a_gap_while_at_most_one_person_holds_it() {
        let topics = vec![
            ("kubernetes".to_owned(), "Kubernetes".to_owned()),
            ("cluster".to_owned(), "clusters".to_owned()),
        ];
        let gap = AskedSubject::of(&topics, 0).unwrap();
        assert_eq!(gap.key, "cluster kubernetes");
        assert_eq!(gap.label, "Kubernetes, clusters");
        let phrase = AskedSubject::of(
            &[
                ("helio".to_owned(), "heliospheric".to_owned()),
                (
                    "helio magnet".to_owned(),
                    "heliospheric magnetometers".to_owned(),
                ),
                ("magnet".to_owned(), "magnetometers".to_owned()),
            ],
            0,
        )
        .unwrap();
        assert_eq!(phrase.label, "heliospheric magnetometers");
        let stems = AskedSubject::of(
            &[
                ("compil regist".to_owned(), "compil regist".to_owned()),
                (
                    "compil regist alloc".to_owned(),
                    "compiler register allocation".to_owned(),
                ),
                ("regist alloc".to_owned(), "regist alloc".to_owned()),
            ],
            0,
        )
        .unwrap();
        assert_eq!(stems.label, "compiler register allocation");
        assert_eq!(phrase.key, "helio helio magnet magnet");
        assert_eq!(AskedSubject::of(&topics, 1).unwrap().holders, 1);
        assert_eq!(AskedSubject::of(&topics, 2), None);
        assert_eq!(AskedSubject::of(&[], 0), None);
        assert_eq!(AskedSubject::span(30), Ok(30));
        assert_eq!(
            AskedSubject::span(0).unwrap_err().rule,
            Rule::TooSmall { min: 1 }
        );
        assert_eq!(AskedSubject::span(91).unwrap_err().field, "days");
    }
}
