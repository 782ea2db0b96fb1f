//! The operator's scoring settings, and what they make of a topic of an
//! entity: its relevance under the descriptor factors, and the contribution
//! of an action that taught it.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use crate::upload::{ActionType, Descriptor};

/// Why scoring settings were refused.
///
/// New settings bring new ways to refuse them, so the enum is
/// non-exhaustive: a match outside this crate needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScoringError {
    /// An action type's (or descriptor's) weight was negative or not finite;
    /// names which.
    #[error("the weight of {0} must be a finite number >= 0")]
    Weight(String),
    /// The half-life was shorter than a day.
    #[error("the half-life must be at least one day")]
    HalfLife,
}

/// The operator's scoring settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    action_weights: BTreeMap<String, f64>,
    default_weight: f64,
    primary: f64,
    default_factor: f64,
    secondary: f64,
    half_life: Duration,
}

impl Scoring {
    /// The weight of every action type that has none of its own, unless
    /// the operator says otherwise.
    pub const DEFAULT_ACTION_WEIGHT: f64 = 1.0;
    /// The factors of the descriptors primary, default and secondary,
    /// unless the operator says otherwise.
    pub const DEFAULT_FACTORS: [f64; 3] = [1.5, 1.0, 0.5];
    /// The days after which an action counts half as much, unless the
    /// operator says otherwise.
    pub const DEFAULT_HALF_LIFE_DAYS: u32 = 365;
}

impl Default for Scoring {
    fn default() -> Self {
        let [primary, default_factor, secondary] = Self::DEFAULT_FACTORS;
        Self {
            action_weights: BTreeMap::new(),
            default_weight: Self::DEFAULT_ACTION_WEIGHT,
            primary,
            default_factor,
            secondary,
            half_life: Duration::days(i64::from(Self::DEFAULT_HALF_LIFE_DAYS)),
        }
    }
}

fn weight(name: &str, value: f64) -> Result<f64, ScoringError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ScoringError::Weight(name.to_owned()))
    }
}

impl Scoring {
    /// Settings with a weight per action type, the weight of every other
    /// type, the factors of the three descriptors (primary, default,
    /// secondary) and the half-life of a contribution.
    pub fn new(
        action_weights: impl IntoIterator<Item = (ActionType, f64)>,
        default_weight: f64,
        factors: [f64; 3],
        half_life: Duration,
    ) -> Result<Self, ScoringError> {
        let mut weights = BTreeMap::new();
        for (action, value) in action_weights {
            weights.insert(action.as_str().to_owned(), weight(action.as_str(), value)?);
        }
        if half_life < Duration::days(1) {
            return Err(ScoringError::HalfLife);
        }
        Ok(Self {
            action_weights: weights,
            default_weight: weight("unlisted action types", default_weight)?,
            primary: weight("primary", factors[0])?,
            default_factor: weight("default", factors[1])?,
            secondary: weight("secondary", factors[2])?,
            half_life,
        })
    }

    /// The weight of an action of this type: its configured weight, else the
    /// default one.
    pub fn action_weight(&self, action: &ActionType) -> f64 {
        self.weight_of(action.as_str())
    }

    /// The weight of a stored action type name; names without a weight of
    /// their own weigh the default weight.
    fn weight_of(&self, action_type: &str) -> f64 {
        self.action_weights
            .get(action_type)
            .copied()
            .unwrap_or(self.default_weight)
    }

    /// What one upload about a topic adds to its user's standing on it: an
    /// action of a type without a weight of its own whose text has the
    /// topic at relevance one under the default descriptor.
    pub fn one_upload(&self) -> f64 {
        self.default_weight * self.default_factor
    }

    /// What one action of `action_type` adds to its user's standing on
    /// `topic`: the action's weight times the topic's relevance in the
    /// entity.
    pub fn contribution(&self, action_type: &str, topic: &EntityTopic) -> f64 {
        self.weight_of(action_type) * topic.relevance(self)
    }

    /// The factor a topic's relevance in a text of this descriptor is
    /// multiplied by.
    pub fn descriptor_factor(&self, descriptor: Descriptor) -> f64 {
        match descriptor {
            Descriptor::Primary => self.primary,
            Descriptor::Default => self.default_factor,
            Descriptor::Secondary => self.secondary,
        }
    }

    /// The time after which a standing's score has decayed to half.
    pub fn half_life(&self) -> Duration {
        self.half_life
    }

    /// The factor by which a contribution made at `from` has shrunk at `to`.
    pub fn decay(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
        let age = (to - from).num_milliseconds() as f64;
        let half_life = self.half_life.num_milliseconds() as f64;
        0.5_f64.powf(age / half_life)
    }

    /// A stable description of the settings: stored aggregates built under
    /// other settings must be rebuilt.
    pub fn fingerprint(&self) -> String {
        let weights: Vec<String> = self
            .action_weights
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        // `ranked` names the standings' layout: one with a rank key
        // (Standing::rank_key) that standings stored before lack;
        // `relevant` the actions' topics', with their relevance under
        // these settings stored beside them, which rows stored before lack.
        format!(
            "ranked relevant weights[{}] default={} factors={},{},{} half_life_s={}",
            weights.join(","),
            self.default_weight,
            self.primary,
            self.default_factor,
            self.secondary,
            self.half_life.num_seconds()
        )
    }
}

/// A topic of an entity (all its texts together): the relevance it has in
/// the texts of each descriptor, so that the descriptor factors can be
/// applied, and applied again when the operator changes them.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityTopic {
    /// The topic's key, what standings are kept under.
    pub key: String,
    /// The topic as people read it.
    pub label: String,
    /// Summed relevance in the primary, default and secondary texts.
    pub by_descriptor: [f64; 3],
    /// Whether people read it (see [`entity_topics`]): every key of a
    /// text whose words are judged when read, and elsewhere a key phrase
    /// of two or more words or a word written as a name. The others are
    /// kept for ranking alone.
    ///
    /// [`entity_topics`]: crate::entity_topics
    pub shown: bool,
}

pub(crate) fn slot(descriptor: Descriptor) -> usize {
    match descriptor {
        Descriptor::Primary => 0,
        Descriptor::Default => 1,
        Descriptor::Secondary => 2,
    }
}

impl EntityTopic {
    /// relevance(topic in the entity): each text's relevance times its
    /// descriptor's factor, summed.
    pub fn relevance(&self, scoring: &Scoring) -> f64 {
        [
            Descriptor::Primary,
            Descriptor::Default,
            Descriptor::Secondary,
        ]
        .into_iter()
        .map(|d| scoring.descriptor_factor(d) * self.by_descriptor[slot(d)])
        .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expertise::fixtures::t;

    #[test]
    fn defaults_follow_the_product_decisions() {
        let s = Scoring::default();
        assert_eq!(s.descriptor_factor(Descriptor::Primary), 1.5);
        assert_eq!(s.descriptor_factor(Descriptor::Default), 1.0);
        assert_eq!(s.descriptor_factor(Descriptor::Secondary), 0.5);
        assert_eq!(s.half_life(), Duration::days(365));
        assert_eq!(s.action_weight(&ActionType::parse("view").unwrap()), 1.0);
    }

    #[test]
    fn configured_weights_apply_and_bad_ones_are_refused() {
        let edit = ActionType::parse("edit").unwrap();
        let s = Scoring::new(
            [(edit.clone(), 3.0)],
            0.5,
            [2.0, 1.0, 0.25],
            Duration::days(30),
        )
        .unwrap();
        assert_eq!(s.action_weight(&edit), 3.0);
        assert_eq!(s.action_weight(&ActionType::parse("view").unwrap()), 0.5);
        let topic = EntityTopic {
            key: "rust".into(),
            label: "Rust".into(),
            by_descriptor: [1.0, 0.0, 2.0],
            shown: true,
        };
        // edit weighs 3; relevance is 2.0 * 1.0 + 0.25 * 2.0.
        assert!((s.contribution("edit", &topic) - 3.0 * 2.5).abs() < 1e-12);
        assert!((s.contribution("unlisted", &topic) - 0.5 * 2.5).abs() < 1e-12);
        assert_eq!(
            Scoring::new([(edit, -1.0)], 1.0, [1.0; 3], Duration::days(30)),
            Err(ScoringError::Weight("edit".into()))
        );
        assert_eq!(
            Scoring::new([], f64::NAN, [1.0; 3], Duration::days(30)).unwrap_err(),
            ScoringError::Weight("unlisted action types".into())
        );
        assert_eq!(
            Scoring::new([], 1.0, [1.0; 3], Duration::hours(23)),
            Err(ScoringError::HalfLife)
        );
        assert_ne!(s.fingerprint(), Scoring::default().fingerprint());
    }

    #[test]
    fn a_contribution_halves_every_half_life() {
        let s = Scoring::default();
        assert!((s.decay(t(0), t(365)) - 0.5).abs() < 1e-12);
        assert!((s.decay(t(0), t(730)) - 0.25).abs() < 1e-12);
        assert_eq!(s.decay(t(3), t(3)), 1.0);
    }
}
