//! What a person holds on a topic and how an action adds to it: the
//! standing that decays by the half-life, the label her uploads voted for,
//! and the forms a store keeps and a reader is shown.

use chrono::{DateTime, Utc};

use super::scoring::{EntityTopic, Scoring};
use crate::user::UserId;

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
        let half_life = scoring.half_life().num_milliseconds() as f64;
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

/// A person's standing on one topic with the label her uploads voted
/// for. [`LabelledStanding::learn`] is the one rule by which every
/// store learns from an action, on upload and on a rebuild.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledStanding {
    /// The label shown, its lead in the vote, and whether it is shown.
    pub label: TopicLabel,
    /// The score and the moment it holds for.
    pub standing: Standing,
}

impl LabelledStanding {
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
/// apply: her labelled standing on each topic it taught, and the topics she knew
/// nothing of before (each one more person who knows it).
#[derive(Debug, Clone, PartialEq)]
pub struct StandingChanges {
    /// Each topic's key and her labelled standing on it after the action.
    pub standings: Vec<(String, LabelledStanding)>,
    /// The keys of `standings` that she held nothing on before.
    pub first_known: Vec<String>,
}

impl StandingChanges {
    /// What an action of `action_type`, made at `at`, that taught
    /// `topics` changes, given `before`, her standings on those topics as
    /// stored (the others are new to her). A key taught twice is learned
    /// twice, in order, and is one standing.
    pub fn of(
        action_type: &str,
        at: DateTime<Utc>,
        topics: &[EntityTopic],
        mut before: std::collections::HashMap<String, LabelledStanding>,
        scoring: &Scoring,
    ) -> Self {
        let mut first_known = Vec::new();
        let mut standings: Vec<(String, LabelledStanding)> = Vec::with_capacity(topics.len());
        let mut place: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(topics.len());
        for topic in topics {
            if let Some(&at_place) = place.get(topic.key.as_str()) {
                let (_, held) = &mut standings[at_place];
                *held =
                    LabelledStanding::learn(Some(held.clone()), topic, action_type, at, scoring);
                continue;
            }
            let held = before.remove(&topic.key);
            if held.is_none() {
                first_known.push(topic.key.clone());
            }
            place.insert(&topic.key, standings.len());
            let after = LabelledStanding::learn(held, topic, action_type, at, scoring);
            standings.push((topic.key.clone(), after));
        }
        Self {
            standings,
            first_known,
        }
    }
}

/// One stored (user, topic) aggregate.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredStanding {
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
    /// Whether the score stands for what the person says they know: no
    /// upload of theirs taught the topic.
    pub declared: bool,
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::expertise::fixtures::t;

    #[test]
    fn standings_add_up_in_any_order() {
        let s = Scoring::default();
        let empty = Standing {
            score: 0.0,
            as_of: t(0),
        };
        let forward = empty.add(2.0, t(0), &s).add(1.0, t(365), &s);
        let backward = empty.add(1.0, t(365), &s).add(2.0, t(0), &s);
        for standing in [forward, backward] {
            assert_eq!(standing.as_of, t(365));
            assert!((standing.score - 2.0).abs() < 1e-9, "{standing:?}");
            assert!((standing.score_at(t(730), &s) - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn rank_keys_order_standings_as_their_scores_do_at_any_moment() {
        let s = Scoring::default();
        let standings = [
            Standing {
                score: 3.0,
                as_of: t(-400),
            },
            Standing {
                score: 1.0,
                as_of: t(0),
            },
            Standing {
                score: 0.5,
                as_of: t(300),
            },
            Standing {
                score: 2.0,
                as_of: t(-30),
            },
            Standing {
                score: 0.0,
                as_of: t(0),
            },
        ];
        for now in [t(300), t(1000), t(10_000)] {
            let mut by_score: Vec<usize> = (0..standings.len()).collect();
            by_score.sort_by(|a, b| {
                standings[*b]
                    .score_at(now, &s)
                    .total_cmp(&standings[*a].score_at(now, &s))
            });
            let mut by_key: Vec<usize> = (0..standings.len()).collect();
            by_key.sort_by(|a, b| {
                standings[*b]
                    .rank_key(&s)
                    .total_cmp(&standings[*a].rank_key(&s))
            });
            assert_eq!(by_score, by_key);
        }
        assert!(standings[4].rank_key(&s) < -1e299);
    }

    #[test]
    fn a_label_keeps_its_place_until_another_has_outweighed_it() {
        let upload = |label: &str, shown| EntityTopic {
            key: "helm".into(),
            label: label.into(),
            by_descriptor: [0.0, 1.0, 0.0],
            shown,
        };
        let mut held = TopicLabel::first(&upload("Helm", false), 2.0);
        let mut lead = |label, weight, shown| {
            held.learn(&upload(label, shown), weight);
            (held.label.clone(), held.votes, held.shown)
        };
        assert_eq!(
            lead("helm", 1.0, false),
            ("Helm".into(), 1.0, false),
            "a form used less"
        );
        assert_eq!(
            lead("Helm", 0.5, true),
            ("Helm".into(), 1.5, true),
            "shown once, shown"
        );
        assert_eq!(
            lead("helm", 2.0, false),
            ("helm".into(), 0.5, true),
            "outweighed"
        );
        assert_eq!(lead("Helm", 0.5, false).0, "helm", "a tie keeps the place");
    }

    fn taught(key: &str, label: &str, primary: f64, shown: bool) -> EntityTopic {
        EntityTopic {
            key: key.into(),
            label: label.into(),
            by_descriptor: [primary, 0.0, 0.0],
            shown,
        }
    }

    #[test]
    fn a_first_holding_is_the_contribution_as_of_the_action() {
        let s = Scoring::default();
        let helm = taught("helm", "Helm", 2.0, true);
        let held = LabelledStanding::learn(None, &helm, "view", t(3), &s);
        assert_eq!(held.standing.score, s.contribution("view", &helm));
        assert_eq!(held.standing.as_of, t(3));
        assert_eq!(held.label, TopicLabel::first(&helm, held.standing.score));
    }

    #[test]
    fn a_later_action_adds_its_contribution_and_votes_for_its_label() {
        let s = Scoring::default();
        let helm = taught("helm", "Helm", 2.0, false);
        let lower = taught("helm", "helm", 1.0, true);
        let first = LabelledStanding::learn(None, &helm, "view", t(0), &s);
        let after = LabelledStanding::learn(Some(first.clone()), &lower, "view", t(365), &s);
        let contribution = s.contribution("view", &lower);
        assert_eq!(
            after.standing,
            first.standing.add(contribution, t(365), &s),
            "the standing adds the contribution after decaying to the action"
        );
        let mut label = first.label;
        label.learn(&lower, contribution);
        assert_eq!(after.label, label);
        assert!(after.label.shown, "shown by one upload, shown");
    }

    #[test]
    fn the_changes_learn_each_topic_and_name_those_new_to_the_person() {
        let s = Scoring::default();
        let helm = taught("helm", "Helm", 2.0, true);
        let chart = taught("chart", "chart", 1.0, true);
        let before = HashMap::from([(
            "helm".to_owned(),
            LabelledStanding::learn(None, &helm, "view", t(0), &s),
        )]);
        let changes = StandingChanges::of(
            "edit",
            t(1),
            &[helm.clone(), chart.clone()],
            before.clone(),
            &s,
        );
        assert_eq!(changes.first_known, vec!["chart".to_owned()]);
        assert_eq!(
            changes.standings,
            vec![
                (
                    "helm".to_owned(),
                    LabelledStanding::learn(before.get("helm").cloned(), &helm, "edit", t(1), &s)
                ),
                (
                    "chart".to_owned(),
                    LabelledStanding::learn(None, &chart, "edit", t(1), &s)
                ),
            ]
        );
    }

    #[test]
    fn a_key_taught_twice_by_one_action_is_one_holding_learned_twice() {
        let s = Scoring::default();
        let helm = taught("helm", "Helm", 2.0, true);
        let changes = StandingChanges::of(
            "view",
            t(0),
            &[helm.clone(), helm.clone()],
            HashMap::new(),
            &s,
        );
        let once = LabelledStanding::learn(None, &helm, "view", t(0), &s);
        assert_eq!(changes.first_known, vec!["helm".to_owned()]);
        assert_eq!(
            changes.standings,
            vec![(
                "helm".to_owned(),
                LabelledStanding::learn(Some(once), &helm, "view", t(0), &s)
            )]
        );
    }
}
