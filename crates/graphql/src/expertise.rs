//! The expertise objects: experts for a query and a user's topics.

use chrono::{DateTime, Utc};
use juniper::{graphql_object, GraphQLEnum};
use kenning_app::{ProfileTopic, QueryReading};
use kenning_domain::{Band, DeclaredTopic, Expert, ReadTerm, RelatedTopic, ScoredTopic, Verdict};
use kenning_ports::ActionRecord;
use uuid::Uuid;

use crate::context::Context;
use crate::error::ApiError;
use crate::user::UserObject;

/// A topic with a user's score on it.
#[derive(Debug)]
pub struct TopicScoreObject(pub ScoredTopic);

#[graphql_object(name = "TopicScore", context = Context)]
impl TopicScoreObject {
    /// The topic as it is most often written.
    fn topic(&self) -> &str {
        &self.0.label
    }

    /// The folded form under which variants of the topic meet (lower
    /// case, each word stemmed).
    fn key(&self) -> &str {
        &self.0.key
    }

    /// The user's expertise on the topic now: the weighted sum of the
    /// actions that taught it, each decayed by its age (the person's own
    /// list; `experts` reads it against the subject's newest action).
    fn score(&self) -> f64 {
        self.0.score
    }

    /// Whether the score stands for what the person says they know
    /// (`declaredTopics`): no upload of theirs taught the topic.
    fn says_they_know(&self) -> bool {
        self.0.declared
    }
}

/// The step of the documented scale a score reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum ScoreBand {
    /// 80 or more: several uploads about everything asked.
    Strong,
    /// 50 or more: a solid part of what was asked; this is the person.
    Good,
    /// 30 or more: part of what was asked, or little of it.
    Partial,
    /// Under 30: a word of the question, once or twice.
    Slight,
}

impl From<Band> for ScoreBand {
    fn from(band: Band) -> Self {
        match band {
            Band::Strong => Self::Strong,
            Band::Good => Self::Good,
            Band::Partial => Self::Partial,
            Band::Slight => Self::Slight,
        }
    }
}

/// What `experts` answers a query, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum AnswerVerdict {
    /// Somebody scores 50 or more: this is the person.
    Known,
    /// Nobody does, but some score 10 or more: the nearest Kenning has.
    Nearest,
    /// Nobody seems to know.
    Nobody,
}

impl From<Verdict> for AnswerVerdict {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Known => Self::Known,
            Verdict::Nearest => Self::Nearest,
            Verdict::Nobody => Self::Nobody,
        }
    }
}

/// A user who knows about a query.
#[derive(Debug)]
pub struct ExpertObject(pub Expert);

#[graphql_object(name = "Expert", context = Context)]
impl ExpertObject {
    fn global_user_id(&self) -> Uuid {
        self.0.user.as_uuid()
    }

    /// The user's profile.
    fn user(&self, context: &Context) -> Result<UserObject, ApiError> {
        Ok(UserObject(context.person(self.0.user)?))
    }

    /// How well the user answers the query, from 0 to 100; the list is in
    /// its order. The mean of how much of the query the user covers (each
    /// query topic counts by its specificity, topics few people know
    /// counting more, and is covered the more, the higher the user's
    /// standing on it against the others who know it, saturating as BM25's
    /// term frequencies do) and how much of it the user's actions that
    /// match it best match, saturating too. Several uploads about every
    /// topic of the query score at least 80; more evidence on the query's
    /// topics never lowers it; others' uploads on other subjects move it
    /// by less than a point. It fades as the evidence falls behind the
    /// newest on its subject (by half-lives, four at most).
    fn score(&self) -> f64 {
        self.0.score
    }

    /// The step of the scale the score reaches: 50 or more (`GOOD`,
    /// `STRONG`) reads "this is the person".
    fn band(&self) -> ScoreBand {
        Band::of(self.0.score).into()
    }

    /// The score in words, as the web app says it.
    fn score_words(&self) -> &'static str {
        Band::of(self.0.score).words()
    }

    /// The plain sum over the query's topics of the user's score on each
    /// (the weighted, decayed sum of the actions that taught it).
    fn raw_score(&self) -> f64 {
        self.0.raw_score
    }

    /// The query's topics the user knows, best first.
    fn topics(&self) -> Vec<TopicScoreObject> {
        self.0
            .topics
            .iter()
            .cloned()
            .map(TopicScoreObject)
            .collect()
    }
}

/// An action that taught a user a topic.
#[derive(Debug)]
pub struct TopicActionObject(pub ActionRecord);

#[graphql_object(name = "TopicAction", context = Context)]
impl TopicActionObject {
    /// The id the connector endpoint answered with.
    fn action_id(&self) -> Uuid {
        self.0.id
    }

    fn entity_type(&self) -> &str {
        &self.0.entity_type
    }

    fn action_type(&self) -> &str {
        &self.0.action_type
    }

    fn action_date(&self) -> DateTime<Utc> {
        self.0.action_date
    }

    fn action_alias(&self) -> Option<&str> {
        self.0.alias.as_deref()
    }

    /// The topic's relevance in the entity (descriptor factors applied),
    /// before the action's weight and age.
    fn relevance(&self) -> f64 {
        self.0.relevance
    }
}

/// A topic a user knows, with the reasons.
#[derive(Debug)]
pub struct ProfileTopicObject(pub ProfileTopic);

#[graphql_object(name = "UserTopic", context = Context)]
impl ProfileTopicObject {
    fn topic(&self) -> &str {
        &self.0.topic.label
    }

    fn key(&self) -> &str {
        &self.0.topic.key
    }

    fn score(&self) -> f64 {
        self.0.topic.score
    }

    /// The newest actions that taught the topic (at most ten).
    fn actions(&self) -> Vec<TopicActionObject> {
        self.0
            .actions
            .iter()
            .cloned()
            .map(TopicActionObject)
            .collect()
    }
}

/// A topic learned together with another.
#[derive(Debug)]
pub struct RelatedTopicObject(pub RelatedTopic);

#[graphql_object(name = "RelatedTopic", context = Context)]
impl RelatedTopicObject {
    /// The topic as it is written.
    fn topic(&self) -> &str {
        &self.0.label
    }

    fn key(&self) -> &str {
        &self.0.key
    }

    /// How strongly it goes with the asked topic: the share of the asked
    /// topic's uploads that taught it, times its specificity.
    fn score(&self) -> f64 {
        self.0.score
    }

    /// In how many of the asked topic's uploads (the newest 200 at most)
    /// it appeared.
    fn uploads(&self) -> i32 {
        i32::try_from(self.0.together).unwrap_or(i32::MAX)
    }
}

/// A topic a person says they know.
#[derive(Debug)]
pub struct DeclaredTopicObject(pub DeclaredTopic);

#[graphql_object(name = "DeclaredTopic", context = Context)]
impl DeclaredTopicObject {
    /// The topic as the person wrote it.
    fn topic(&self) -> &str {
        &self.0.label
    }

    /// The topic's key, as `experts` reads it.
    fn key(&self) -> &str {
        &self.0.key
    }

    /// When they said so; it ages from then as an upload would.
    fn declared_at(&self) -> DateTime<Utc> {
        self.0.declared
    }
}

/// How a query was read for `experts`.
#[derive(Debug)]
pub struct QueryReadingObject(pub QueryReading);

#[graphql_object(name = "QueryReading", context = Context)]
impl QueryReadingObject {
    /// The languages the query was read in (ISO 639-1): first that of the
    /// question's words when one was read ("Wer kennt sich mit
    /// Datenschutz aus?": German), then the one detected in the subject. A
    /// short subject is often detected as another language; one not read
    /// as English is read with English rules too. Every reading's learned
    /// topics count; a word nobody learned weighs only as the first
    /// reading gives it, and not when another reading of it was learned.
    fn languages(&self) -> &[String] {
        &self.0.languages
    }

    /// The topics the query is matched on, the largest share of the
    /// score first; those nobody learned come last. Besides the topics
    /// the query writes, the learned topics it reached through their
    /// meaning (their `similarity` set).
    fn topics(&self) -> Vec<ReadTopicObject> {
        self.0.topics.iter().cloned().map(ReadTopicObject).collect()
    }

    /// The model the query's meaning was read with (the learned topics
    /// nearest to the query's are matched too); null when the server
    /// finds topics by their words alone.
    fn meaning_model(&self) -> Option<&str> {
        self.0.meaning_model.as_deref()
    }

    /// The words read as the question rather than its subject ("who",
    /// "can", "help", "with"), as written: they are never topics, and
    /// meaning reaches nothing from them.
    fn asking(&self) -> &[String] {
        &self.0.asking
    }

    /// What the query asks about: the query less its question.
    fn subject(&self) -> &str {
        &self.0.subject
    }

    /// The words of the subject that became no topic (stop words,
    /// numbers, a letter alone), as written: what Kenning dropped before
    /// ranking anyone.
    fn dropped_words(&self) -> &[String] {
        &self.0.dropped
    }

    /// Whether somebody learned a topic the subject writes. False when
    /// nobody did: whoever `experts` lists then was reached through
    /// meaning alone.
    fn subject_known(&self) -> bool {
        self.0.subject_known
    }

    /// What `experts` answers the query: `KNOWN` when somebody scores 50
    /// or more ("this is the person"), `NEAREST` when nobody does but
    /// some score 10 or more, `NOBODY` otherwise.
    fn verdict(&self) -> AnswerVerdict {
        self.0.answer.verdict().into()
    }

    /// How many people `experts` ranks at 50 or more for the query, among
    /// its longest list (100).
    fn knowing(&self) -> i32 {
        i32::try_from(self.0.answer.knowing).unwrap_or(i32::MAX)
    }

    /// How many more score 10 to 50: the nearest Kenning has, not someone
    /// who knows.
    fn nearest(&self) -> i32 {
        i32::try_from(self.0.answer.nearest).unwrap_or(i32::MAX)
    }

    /// The topics of the query that nobody learned, as the query wrote
    /// them: they find nobody. A query all of whose topics are here is
    /// answered with an empty list.
    fn unknown_topics(&self) -> Vec<&str> {
        self.0
            .topics
            .iter()
            .filter(|t| t.people == 0)
            .map(|t| t.label.as_str())
            .collect()
    }
}

/// A topic read from a query.
#[derive(Debug)]
pub struct ReadTopicObject(pub ReadTerm);

#[graphql_object(name = "ReadTopic", context = Context)]
impl ReadTopicObject {
    /// The topic as the query wrote it, or, for a topic reached through
    /// its meaning, as people who learned it wrote it.
    fn topic(&self) -> &str {
        &self.0.label
    }

    /// The folded form it is matched under (lower case, each word
    /// stemmed): what `userTopics` and `experts` list as `key`.
    fn key(&self) -> &str {
        &self.0.key
    }

    /// How much the query asks for it: how often it says a word, one for
    /// a phrase.
    fn weight(&self) -> f64 {
        self.0.weight
    }

    /// How many people `experts` would rank on it: never one who hid it,
    /// nor one it does not rank (not ACTIVE, hidden, or not learned
    /// about); of a topic hundreds of them hold, everyone who learned it.
    fn people(&self) -> i32 {
        i32::try_from(self.0.people).unwrap_or(i32::MAX)
    }

    /// Whether anybody `experts` would rank on it holds it.
    fn learned(&self) -> bool {
        self.0.people > 0
    }

    /// Its share of the score, 0 to 1: its weight times its specificity
    /// (topics few people know count more) over those of the topics the
    /// query writes, whose shares add up to one. A word nobody learned
    /// counts as specific as a topic one person learned, a share nobody
    /// covers; a phrase nobody learned has none. A topic reached through
    /// its meaning adds its share on top (when no topic the query writes
    /// was learned, the shares of those reached add up to one).
    fn share(&self) -> f64 {
        self.0.share
    }

    /// Null for a topic the query writes; for a learned topic the query
    /// reached through its meaning (the query says "automobile", people
    /// learned "car"), how near the two are, the cosine similarity of
    /// their vectors (at most 1). Such a topic's weight is its
    /// similarity times half the weight of what reached it.
    fn similarity(&self) -> Option<f64> {
        self.0.similarity
    }
}
