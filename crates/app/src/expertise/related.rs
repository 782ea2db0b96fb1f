//! The topics that go with one: learned together in the uploads of the
//! people `experts` ranks, less what each of them hides.

use kenning_domain::{related_topics, RelatedTopic, RelatedTopicsLimit, UserId};

use super::service::{internal, items, ExpertiseService};
use crate::access::Operation;
use crate::error::ServiceError;

/// How many of the newest actions that taught a topic are read to find the
/// topics that go with it.
const RELATED_SAMPLE: u32 = 200;

impl ExpertiseService {
    /// At most `limit` of the topics most often learned together with
    /// `topic` (a topic key or any text that reads as one: a
    /// [`TopicText`](kenning_domain::TopicText)), the most telling first:
    /// those that go with it more than with everything else. Only what
    /// `experts` would rank counts: the uploads of people it ranks, less
    /// the topics each of them hides.
    pub fn related_topics(
        &self,
        topic: &str,
        limit: RelatedTopicsLimit,
    ) -> Result<Vec<RelatedTopic>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        let key = self.topic_key(topic)?;
        self.related(&key, limit, &[])
    }

    /// [`related_topics`](Self::related_topics) as `user`'s profile shows
    /// them: less every topic `user` hides, and none when the profile
    /// shows no topics ([`user_topics`](Self::user_topics)) or `topic` is
    /// one `user` hides. `NotFound` when no user has the id.
    pub fn related_topics_of(
        &self,
        user: UserId,
        topic: &str,
        limit: RelatedTopicsLimit,
    ) -> Result<Vec<RelatedTopic>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        let person = self.require_user(user)?;
        let key = self.topic_key(topic)?;
        if !self.shows_topics_of(&person)? {
            return Ok(Vec::new());
        }
        let hidden = self.store.hidden_of(user).map_err(internal)?;
        if hidden.contains(&key) {
            return Ok(Vec::new());
        }
        self.related(&key, limit, &hidden)
    }

    /// At most `limit` readable topics related to the topic `key`, none of
    /// `left_out`.
    fn related(
        &self,
        key: &str,
        limit: RelatedTopicsLimit,
        left_out: &[String],
    ) -> Result<Vec<RelatedTopic>, ServiceError> {
        let found = self
            .store
            .cooccurring(key, RELATED_SAMPLE)
            .map_err(internal)?;
        let keys: Vec<String> = found.topics.iter().map(|(k, _, _)| k.clone()).collect();
        let knowing = self.store.people_on(&keys).map_err(internal)?;
        let population = self.store.population().map_err(internal)?;
        // Every related topic ranked, then the best readable ones: tagging
        // stops once the limit is reached.
        Ok(related_topics(
            key,
            &found.topics,
            found.actions,
            &knowing,
            population,
            usize::MAX,
        )
        .into_iter()
        .filter(|t| !left_out.contains(&t.key) && self.extractor.readable(&t.label))
        .take(items(limit.get()))
        .collect())
    }
}
