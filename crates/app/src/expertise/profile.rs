//! A person's own topics: those they know best with the actions behind
//! each, and those they hide.

use kenning_domain::{
    holds_subject, profile_order, Attribution, FieldViolation, Rule, ScoredTopic, User, UserId,
    UserTopicsLimit, MAX_HIDDEN_TOPICS,
};
use kenning_ports::{ActionRecord, TopicListChange};

use super::service::{internal, items, ExpertiseService};
use crate::access::Operation;
use crate::error::ServiceError;

/// The public name of the list of topics a person hides, as a refusal
/// names it.
const HIDDEN_TOPICS: &str = "hiddenTopics";
/// How many contributing actions are listed per topic.
const ACTIONS_PER_TOPIC: u32 = 10;
/// How many of a person's highest standings a profile is ordered from: a
/// bound on the counts read for one profile; a topic below them stands
/// too low to be among the first a reader sees.
const PROFILE_CANDIDATES: usize = 500;

/// A topic of a user, with the actions that earned it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileTopic {
    /// The topic, with the user's score on it now.
    pub topic: ScoredTopic,
    /// Up to [`ProfileTopic::ACTIONS_LISTED`] of the user's actions that
    /// taught it, newest first.
    pub actions: Vec<ActionRecord>,
    /// When it was read: what the age of its actions is counted from.
    pub read_at: chrono::DateTime<chrono::Utc>,
}

impl ProfileTopic {
    /// The most actions listed per topic: a topic with this many may have
    /// more.
    pub const ACTIONS_LISTED: usize = ACTIONS_PER_TOPIC as usize;
}

impl ExpertiseService {
    /// Every topic `user` holds, with her score on it now, the highest
    /// first: (key, label, score).
    pub fn scored_standings(
        &self,
        user: UserId,
    ) -> Result<Vec<(String, String, f64)>, ServiceError> {
        self.caller.require(Operation::ReadDataOf(user))?;
        self.require_user(user)?;
        let now = self.clock.now();
        let mut held: Vec<(String, String, f64)> = self
            .store
            .standings_of(user)
            .map_err(internal)?
            .into_iter()
            .map(|s| {
                let score = s.standing.score_at(now, &self.scoring);
                (s.key, s.label, score)
            })
            .collect();
        held.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        Ok(held)
    }

    /// At most `limit` of the topics `user` knows best, what sets them
    /// apart first (`profile_order`, among their 500
    /// highest standings), with the actions behind each, less those they
    /// hide; `NotFound` when no user has the id. None of a person
    /// `experts` does not rank (not ACTIVE, hidden, or not learned about:
    /// [`User::is_ranked`]), as it does not offer them; a person signed in
    /// reads their own while they are learned about.
    pub fn user_topics(
        &self,
        user: UserId,
        limit: UserTopicsLimit,
    ) -> Result<Vec<ProfileTopic>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        let person = self.require_user(user)?;
        if !self.shows_topics_of(&person)? {
            return Ok(Vec::new());
        }
        let now = self.clock.now();
        // Looked up by value, never by an order a store's collation chose.
        let hidden: std::collections::HashSet<String> = self
            .store
            .hidden_of(user)
            .map_err(internal)?
            .into_iter()
            .collect();
        let mut scored: Vec<ScoredTopic> = self
            .store
            .standings_of(user)
            .map_err(internal)?
            .into_iter()
            .filter(|s| s.shown && !hidden.contains(&s.key))
            .map(|s| ScoredTopic {
                score: s.standing.score_at(now, &self.scoring),
                key: s.key,
                label: s.label,
                shown: true,
                declared: false,
            })
            .filter(|t| t.score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
        scored.truncate(PROFILE_CANDIDATES);
        let keys: Vec<String> = scored.iter().map(|t| t.key.clone()).collect();
        let knowing = self.store.people_on(&keys).map_err(internal)?;
        let population = self.store.population().map_err(internal)?;
        profile_order(&mut scored, &knowing, population);
        scored
            .into_iter()
            .filter(|t| self.extractor.readable(&t.label))
            .take(items(limit.get()))
            .map(|topic| {
                let actions = self.actions_behind(user, &topic.key, ACTIONS_PER_TOPIC)?;
                Ok(ProfileTopic {
                    topic,
                    actions,
                    read_at: self.clock.now(),
                })
            })
            .collect()
    }

    /// Whether `user`'s profile shows topics to the caller: when
    /// `experts` ranks them ([`User::is_ranked`]), and to the person
    /// themselves while they are learned about.
    pub(super) fn shows_topics_of(&self, user: &User) -> Result<bool, ServiceError> {
        let learns = self.learns(user.id())?;
        Ok(user.is_ranked(learns) || (learns && self.caller.is_person(user.id())))
    }

    /// Hides the subject `topic` (a topic key or a text read as one, as
    /// [`related_topics`](Self::related_topics) reads it: a
    /// [`TopicText`](kenning_domain::TopicText)) from `user`'s profile and
    /// from ranking them, with every topic of theirs that holds it
    /// ([`holds_subject`]: hiding "divorce" hides "divorce proceedings"
    /// too), or shows it again with the hidden topics that hold it
    /// (`hidden` false); answers what it changed and what the user hides
    /// now. New uploads go on teaching a hidden topic but do not bring it
    /// back. A person hides at most [`MAX_HIDDEN_TOPICS`] topics: a
    /// subject whose topics would pass that is refused whole
    /// (`hiddenTopics`, `TooMany`), nothing hidden, until they show some
    /// again. `NotFound` when no user has the id.
    pub fn set_topic_hidden(
        &self,
        user: UserId,
        topic: &str,
        hidden: bool,
    ) -> Result<TopicsHidden, ServiceError> {
        self.caller.require(Operation::ChangeTopicsOf(user))?;
        self.require_user(user)?;
        let key = self.topic_key(topic)?;
        let before = self.store.hidden_of(user).map_err(internal)?;
        let mut held: Vec<String> = if hidden {
            self.store
                .standings_of(user)
                .map_err(internal)?
                .into_iter()
                .map(|s| s.key)
                .filter(|k| *k != key && holds_subject(k, &key) && !before.contains(k))
                .collect()
        } else {
            before
                .iter()
                .filter(|k| **k != key && holds_subject(k, &key))
                .cloned()
                .collect()
        };
        held.sort_unstable();
        let keys: Vec<String> = std::iter::once(key).chain(held).collect();
        let changed: Vec<String> = keys
            .iter()
            .filter(|k| before.contains(k) != hidden)
            .cloned()
            .collect();
        let by = Attribution::new(self.actor.clone(), self.clock.now());
        let asked: Vec<&str> = keys.iter().map(String::as_str).collect();
        let done = self
            .store
            .set_hidden(user, &asked, hidden, MAX_HIDDEN_TOPICS, &by)
            .map_err(internal)?;
        if done == TopicListChange::Full {
            return Err(too_many_hidden());
        }
        Ok(TopicsHidden {
            changed,
            now: self.store.hidden_of(user).map_err(internal)?,
        })
    }

    /// The topics `user` hides, by key; `NotFound` when no user has the
    /// id.
    pub fn hidden_topics(&self, user: UserId) -> Result<Vec<String>, ServiceError> {
        self.caller.require(Operation::ReadHiddenTopicsOf(user))?;
        self.require_user(user)?;
        self.store.hidden_of(user).map_err(internal)
    }

    /// The topics `user` hides, each by key with the label people read
    /// it under (the key itself when nobody holds the topic any more);
    /// `NotFound` when no user has the id.
    pub fn hidden_topics_labelled(
        &self,
        user: UserId,
    ) -> Result<Vec<(String, String)>, ServiceError> {
        let keys = self.hidden_topics(user)?;
        let labels = self.store.labels_of(&keys).map_err(internal)?;
        Ok(keys
            .into_iter()
            .map(|key| {
                let label = labels.get(&key).cloned().unwrap_or_else(|| key.clone());
                (key, label)
            })
            .collect())
    }

    /// Up to `max` of `user`'s actions that taught the topic `key`, newest
    /// first: the evidence behind a topic of an expert.
    pub fn evidence_of(
        &self,
        user: UserId,
        key: &str,
        max: u32,
    ) -> Result<Vec<ActionRecord>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        self.actions_behind(user, key, max)
    }

    /// Up to `max` of `user`'s actions that taught `key`, newest first,
    /// for a caller already allowed to read expertise: the one read of
    /// the evidence behind a topic, for a profile, a card or a caller.
    pub(super) fn actions_behind(
        &self,
        user: UserId,
        key: &str,
        max: u32,
    ) -> Result<Vec<ActionRecord>, ServiceError> {
        self.store
            .actions_on(user, key, &self.scoring, max)
            .map_err(internal)
    }
}

/// What hiding or showing a subject did
/// ([`ExpertiseService::set_topic_hidden`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicsHidden {
    /// The keys it hid or showed: the subject's first, when it changed,
    /// then the topics that hold it.
    pub changed: Vec<String>,
    /// The keys the user hides now.
    pub now: Vec<String>,
}

/// A person hides no more than [`MAX_HIDDEN_TOPICS`] topics.
fn too_many_hidden() -> ServiceError {
    FieldViolation::new(
        HIDDEN_TOPICS,
        Rule::TooMany {
            max: MAX_HIDDEN_TOPICS,
        },
    )
    .into()
}
