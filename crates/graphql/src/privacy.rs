//! The privacy objects: the organisation's rules on learning, a person's
//! learning, and the subjects people ask that nobody knows.

use chrono::{DateTime, Utc};
use juniper::graphql_object;
use kenning_domain::{AskedCount, Learning, LearningRules, RuleInForce};

use crate::audit::AuditActorObject;
use crate::context::Context;

/// The organisation's rules on learning, as they stand.
#[derive(Debug)]
pub struct LearningRulesObject(pub LearningRules);

#[graphql_object(name = "LearningRules", context = Context)]
impl LearningRulesObject {
    /// Whether anyone is learned about (no `learning_off` rule).
    fn anyone_learns(&self) -> bool {
        self.0.anyone_learns()
    }

    /// Whether people who never chose are learned about (no
    /// `new_people_opted_out` rule).
    fn new_people_learn(&self) -> bool {
        self.0.new_people_learn()
    }

    /// The days after which actions are forgotten; null: kept until the
    /// person is forgotten or deleted.
    fn retention_days(&self) -> Option<i32> {
        self.0
            .retention_days()
            .map(|d| i32::try_from(d).unwrap_or(i32::MAX))
    }

    /// Every rule in force, with who set it and when.
    fn rules(&self) -> Vec<LearningRuleObject> {
        self.0
            .rules
            .iter()
            .cloned()
            .map(LearningRuleObject)
            .collect()
    }
}

/// One rule in force.
#[derive(Debug)]
pub struct LearningRuleObject(pub RuleInForce);

#[graphql_object(name = "LearningRule", context = Context)]
impl LearningRuleObject {
    /// `learning_off`, `new_people_opted_out`, `group_off`,
    /// `excluded_entity_type`, `excluded_action_type` or
    /// `retention_days`.
    fn kind(&self) -> &str {
        self.0.rule.parts().0
    }

    /// The group's id, the type or the number of days; null for the kinds
    /// that take none.
    fn value(&self) -> Option<String> {
        Some(self.0.rule.parts().1).filter(|v| !v.is_empty())
    }

    /// Who set it.
    fn set_by(&self) -> AuditActorObject {
        AuditActorObject(self.0.set_by.clone())
    }

    /// When.
    fn set_at(&self) -> DateTime<Utc> {
        self.0.set_at
    }
}

/// Whether a person is learned about.
#[derive(Debug)]
pub struct LearningObject(pub Learning);

#[graphql_object(name = "Learning", context = Context)]
impl LearningObject {
    /// The person's own choice: true opted in, false opted out, null never
    /// chose (the organisation's default holds).
    fn choice(&self) -> Option<bool> {
        self.0.choice
    }

    /// Whether the person is learned about now, every rule applied: while
    /// not, their uploads teach nothing and `experts` does not offer them.
    fn learns(&self) -> bool {
        self.0.learns
    }
}

/// A subject asked that nobody, or one person alone, holds.
#[derive(Debug)]
pub struct AskedSubjectObject(pub AskedCount);

#[graphql_object(name = "AskedSubject", context = Context)]
impl AskedSubjectObject {
    /// The subject's topics, as people read them.
    fn subject(&self) -> &str {
        &self.0.subject.label
    }

    /// The subject's topic keys, joined by a space.
    fn key(&self) -> &str {
        &self.0.subject.key
    }

    /// How many people scored 50 or more on it: 0 or 1.
    fn holders(&self) -> i32 {
        i32::from(self.0.subject.holders)
    }

    /// How many times it was asked in the span read.
    fn asks(&self) -> i32 {
        i32::try_from(self.0.asks).unwrap_or(i32::MAX)
    }

    /// The last day it was asked on, `yyyy-mm-dd` (UTC).
    fn last_asked(&self) -> String {
        self.0.last.to_string()
    }
}
