//! What a person says they know: topics their uploads did not teach,
//! added, read and withdrawn by the person alone, and read by `experts`
//! as one upload about each.

use kenning_domain::{
    Attribution, DeclaredTopic, FieldViolation, GroupId, QueryTerm, Rule, TopicText, UserId,
    MAX_DECLARED_TOPICS,
};
use kenning_ports::TopicListChange;

use super::service::{internal, ExpertiseService};
use crate::access::Operation;
use crate::error::ServiceError;

/// The public name of the list of topics a person says they know, as a
/// refusal names it.
const DECLARED_TOPICS: &str = "declaredTopics";
/// How many declarations of one topic `experts` reads at most, the
/// newest first.
const DECLARED_PER_TOPIC: u32 = 100;

impl ExpertiseService {
    /// Records that `user` says they know `topic` (a short text, as
    /// [`TopicText`] reads it), and returns every topic they say they
    /// know. Only the person themselves may (signed in); at most
    /// [`MAX_DECLARED_TOPICS`] (`declaredTopics`, `TooMany`, until they
    /// withdraw one). Saying a topic again changes nothing.
    pub fn declare_topic(
        &self,
        user: UserId,
        topic: &str,
    ) -> Result<Vec<DeclaredTopic>, ServiceError> {
        self.caller.require(Operation::DeclareTopicsOf(user))?;
        self.require_user(user)?;
        let label = TopicText::parse(topic)?.as_str().to_owned();
        let key = self.topic_key(&label)?;
        let now = self.clock.now();
        let declared = DeclaredTopic {
            key: key.clone(),
            label,
            declared: now,
        };
        let by = Attribution::new(self.actor.clone(), now);
        match self
            .store
            .set_declared(user, &key, Some(&declared), MAX_DECLARED_TOPICS, &by)
            .map_err(internal)?
        {
            TopicListChange::Changed | TopicListChange::Unchanged => {}
            TopicListChange::Full => {
                return Err(FieldViolation::new(
                    DECLARED_TOPICS,
                    Rule::TooMany {
                        max: MAX_DECLARED_TOPICS,
                    },
                )
                .into())
            }
        }
        self.store.declared_of(user).map_err(internal)
    }

    /// Withdraws what `user` said they know of the topic `key` (as
    /// [`declared_topics`](Self::declared_topics) lists it); returns what
    /// they still say they know. Only the person themselves may.
    pub fn withdraw_topic(
        &self,
        user: UserId,
        key: &str,
    ) -> Result<Vec<DeclaredTopic>, ServiceError> {
        self.caller.require(Operation::DeclareTopicsOf(user))?;
        self.require_user(user)?;
        let by = Attribution::new(self.actor.clone(), self.clock.now());
        self.store
            .set_declared(user, key, None, MAX_DECLARED_TOPICS, &by)
            .map_err(internal)?;
        self.store.declared_of(user).map_err(internal)
    }

    /// The topics `user` says they know, by key: to whoever may read
    /// their profile ([`user_topics`](Self::user_topics) shows theirs),
    /// none while it shows nothing. `NotFound` when no user has the id.
    pub fn declared_topics(&self, user: UserId) -> Result<Vec<DeclaredTopic>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        let person = self.require_user(user)?;
        if !self.shows_topics_of(&person)? {
            return Ok(Vec::new());
        }
        self.store.declared_of(user).map_err(internal)
    }

    /// Every topic `user` says they know, whether their profile shows or
    /// not: what their data download holds.
    pub(crate) fn declarations_kept(
        &self,
        user: UserId,
    ) -> Result<Vec<DeclaredTopic>, ServiceError> {
        self.caller.require(Operation::ReadDataOf(user))?;
        self.store.declared_of(user).map_err(internal)
    }

    /// Who says they know each of `terms`' topics, of the people
    /// `experts` ranks (and of the members of `group` alone when given):
    /// a declaration speaks of a topic when its key is the topic's or
    /// holds it as whole words, so that "COBOL batch jobs" is found by
    /// "COBOL" too; each is read under the topic asked, labelled as the
    /// person wrote it when it is their whole declaration.
    pub(super) fn declared_on(
        &self,
        terms: &[QueryTerm],
        group: Option<GroupId>,
    ) -> Result<Vec<(UserId, DeclaredTopic)>, ServiceError> {
        let keys: Vec<String> = terms.iter().map(|t| t.key.clone()).collect();
        let declared = self
            .store
            .declared_on(&keys, DECLARED_PER_TOPIC)
            .map_err(internal)?;
        if declared.is_empty() {
            return Ok(Vec::new());
        }
        let ranked = self.ranked_among(declared.iter().map(|(_, u, _)| *u), group)?;
        Ok(declared
            .into_iter()
            .filter(|(_, user, _)| ranked.contains(user))
            .map(|(asked, user, topic)| {
                let label = if asked == topic.key {
                    topic.label
                } else {
                    terms
                        .iter()
                        .find(|t| t.key == asked)
                        .map_or_else(|| asked.clone(), |t| t.label.clone())
                };
                let read = DeclaredTopic {
                    key: asked,
                    label,
                    declared: topic.declared,
                };
                (user, read)
            })
            .collect())
    }

    /// Those of `users` `experts` ranks (members of `group` alone when
    /// given).
    fn ranked_among(
        &self,
        users: impl Iterator<Item = UserId>,
        group: Option<GroupId>,
    ) -> Result<Vec<UserId>, ServiceError> {
        let mut users: Vec<UserId> = users.collect();
        users.sort_unstable();
        users.dedup();
        if let Some(group) = group {
            let memberships = self.groups.groups_of(&users).map_err(internal)?;
            users.retain(|u| {
                memberships
                    .get(u)
                    .is_some_and(|of| of.iter().any(|m| m.group == group))
            });
        }
        // One read of the people; one who is gone meanwhile is no one's
        // answer, not an error of the search.
        let mut ranked = Vec::with_capacity(users.len());
        for person in self.users.get_many(&users).map_err(internal)? {
            if person.is_ranked(self.learns(person.id())?) {
                ranked.push(person.id());
            }
        }
        Ok(ranked)
    }
}
