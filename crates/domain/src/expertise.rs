//! How much a user knows about a topic.
//!
//! expertise(user, topic) = Σ over the user's actions of
//! weight(action_type) × relevance(topic in the entity) × decay(age), where
//! relevance sums each text's relevance times its descriptor's factor and
//! decay halves the contribution every half-life.
//!
//! The sum is kept as a [`Standing`]: the score as of one moment. Adding an
//! action or reading the score later only needs that moment and the
//! half-life, so reads never go back to the actions.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use crate::upload::{ActionType, Descriptor};
use crate::user::UserId;

mod ranking;
mod related;
mod trace;

pub use ranking::{
    query_terms, rank_experts, read_query, ActionTopic, Evidence, Expert, Population, QueryTerm,
    ReadTerm, ACTIONS_COUNTED,
};
pub use related::{commonest_labels, related_topics, RelatedTopic};
pub use trace::{entity_topics, TextTrace, PHRASES_PER_TEXT, WORDS_PER_TEXT};

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

impl Default for Scoring {
    fn default() -> Self {
        Self {
            action_weights: BTreeMap::new(),
            default_weight: 1.0,
            primary: 1.5,
            default_factor: 1.0,
            secondary: 0.5,
            half_life: Duration::days(365),
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

/// A user's accumulated score on a topic, as of a moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    /// The score at `as_of`; it decays from there by the half-life.
    pub score: f64,
    /// The moment `score` holds for.
    pub as_of: DateTime<Utc>,
}

impl Standing {
    /// The standing after a contribution made at `at`. The later of the two
    /// moments is kept, so no factor ever grows beyond one by much.
    pub fn add(self, contribution: f64, at: DateTime<Utc>, scoring: &Scoring) -> Self {
        if at >= self.as_of {
            Self {
                score: self.score * scoring.decay(self.as_of, at) + contribution,
                as_of: at,
            }
        } else {
            Self {
                score: self.score + contribution * scoring.decay(at, self.as_of),
                as_of: self.as_of,
            }
        }
    }

    /// The score at `now`.
    pub fn score_at(&self, now: DateTime<Utc>, scoring: &Scoring) -> f64 {
        self.score * scoring.decay(self.as_of, now)
    }

    /// A number that orders standings as their scores do at any one
    /// moment, under `scoring`'s half-life: the logarithm of the score
    /// carried to a fixed epoch. Every score decays by the same factor
    /// over the same time, so the order never changes while the number is
    /// stored; a store keeps it in an index and reads the best standings on
    /// a topic without decaying every one. A score of zero ranks last.
    pub fn rank_key(&self, scoring: &Scoring) -> f64 {
        if self.score <= 0.0 || !self.score.is_finite() {
            return LAST_RANK;
        }
        let since_epoch = (self.as_of - rank_epoch()).num_milliseconds() as f64;
        let half_life = scoring.half_life.num_milliseconds() as f64;
        self.score.ln() + since_epoch / half_life * std::f64::consts::LN_2
    }
}

/// The rank key of a standing of zero: below any other.
const LAST_RANK: f64 = -1e300;

/// The moment rank keys are carried to.
fn rank_epoch() -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH
}

/// What a person's uploads said of how a topic reads, kept beside the
/// standing: the label shown, its lead in the uploads' vote, and whether
/// any upload showed the topic ([`EntityTopic::shown`]).
///
/// Each upload's label votes with the weight of its contribution, and a
/// label that has had more than half of all the weight since it was
/// first ahead keeps the place (a weighted majority vote, Boyer and
/// Moore's, kept in one number, the lead). So the form a person writes
/// most often (casing included: `Helm` over `helm` when they write it
/// so) is shown, it does not flip with each upload, and a form used once
/// does not displace it.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicLabel {
    /// The label shown.
    pub label: String,
    /// Its lead in the vote.
    pub votes: f64,
    /// Shown by any of the uploads.
    pub shown: bool,
}

impl TopicLabel {
    /// What the first upload that taught `topic`, contributing
    /// `contribution`, says.
    pub fn first(topic: &EntityTopic, contribution: f64) -> Self {
        Self {
            label: topic.label.clone(),
            votes: contribution,
            shown: topic.shown,
        }
    }

    /// With another upload that taught `topic`, contributing
    /// `contribution`.
    pub fn learn(&mut self, topic: &EntityTopic, contribution: f64) {
        self.shown |= topic.shown;
        if self.label == topic.label {
            self.votes += contribution;
        } else if contribution > self.votes {
            self.label.clone_from(&topic.label);
            self.votes = contribution - self.votes;
        } else {
            self.votes -= contribution;
        }
    }
}

/// What a person holds on one topic: her standing and the label her
/// uploads voted for. [`Holding::learn`] is the one rule by which every
/// store learns from an action, on upload and on a rebuild.
#[derive(Debug, Clone, PartialEq)]
pub struct Holding {
    /// The label shown, its lead in the vote, and whether it is shown.
    pub label: TopicLabel,
    /// The score and the moment it holds for.
    pub standing: Standing,
}

impl Holding {
    /// `before` (`None`: nothing yet on the topic) after an action of
    /// `action_type`, made at `at`, that taught `topic`: its contribution
    /// added to the standing, its label's vote counted.
    pub fn learn(
        before: Option<Self>,
        topic: &EntityTopic,
        action_type: &str,
        at: DateTime<Utc>,
        scoring: &Scoring,
    ) -> Self {
        let contribution = scoring.contribution(action_type, topic);
        match before {
            Some(mut held) => {
                held.label.learn(topic, contribution);
                held.standing = held.standing.add(contribution, at, scoring);
                held
            }
            None => Self {
                label: TopicLabel::first(topic, contribution),
                standing: Standing {
                    score: contribution,
                    as_of: at,
                },
            },
        }
    }
}

/// What one action changes in what its person knows, for a store to
/// apply: her holding on each topic it taught, and the topics she knew
/// nothing of before (each one more person who knows it).
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    /// Each topic's key and her holding on it after the action.
    pub holdings: Vec<(String, Holding)>,
    /// The keys of `holdings` that she held nothing on before.
    pub first_known: Vec<String>,
}

impl Lesson {
    /// What an action of `action_type`, made at `at`, that taught
    /// `topics` changes, given `before`, her holdings on those topics as
    /// stored (the others are new to her). A key taught twice is learned
    /// twice, in order, and is one holding.
    pub fn of(
        action_type: &str,
        at: DateTime<Utc>,
        topics: &[EntityTopic],
        mut before: std::collections::HashMap<String, Holding>,
        scoring: &Scoring,
    ) -> Self {
        let mut first_known = Vec::new();
        let mut holdings: Vec<(String, Holding)> = Vec::with_capacity(topics.len());
        let mut place: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(topics.len());
        for topic in topics {
            if let Some(&at_place) = place.get(topic.key.as_str()) {
                let (_, held) = &mut holdings[at_place];
                *held = Holding::learn(Some(held.clone()), topic, action_type, at, scoring);
                continue;
            }
            let held = before.remove(&topic.key);
            if held.is_none() {
                first_known.push(topic.key.clone());
            }
            place.insert(&topic.key, holdings.len());
            let after = Holding::learn(held, topic, action_type, at, scoring);
            holdings.push((topic.key.clone(), after));
        }
        Self {
            holdings,
            first_known,
        }
    }
}

/// One stored (user, topic) aggregate.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicStanding {
    /// Whose standing it is.
    pub user: UserId,
    /// The topic's key.
    pub key: String,
    /// The topic as people read it.
    pub label: String,
    /// The accumulated score and the moment it holds for.
    pub standing: Standing,
    /// Whether people read it: shown by any of the user's uploads
    /// ([`EntityTopic::shown`]).
    pub shown: bool,
}

/// A topic of a user with its current score.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredTopic {
    /// The topic's key.
    pub key: String,
    /// The topic as people read it.
    pub label: String,
    /// The score, as of the moment it was asked for; greater is better.
    pub score: f64,
    /// Whether people read it ([`EntityTopic::shown`]); topics that are
    /// not are kept for ranking alone.
    pub shown: bool,
}

#[cfg(test)]
mod tests;
