//! An answer as a person reads it: those who know and the nearest Kenning
//! has, each on a card with the person, the topics that matched and the
//! actions behind them, and how the question was read. Every door that
//! shows an answer renders this one, so none decides again who is shown.

use kenning_domain::{Expert, ExpertsLimit, GroupId, ScoredTopic, User, THE_PERSON};
use kenning_ports::ActionRecord;

use super::experts::QueryReading;
use super::service::ExpertiseService;
use crate::error::ServiceError;

/// How many topics of a person a card lists.
pub const TOPICS_PER_CARD: usize = 5;
/// How many actions explain each topic of a card.
pub const ACTIONS_PER_TOPIC: u32 = 3;
/// How many topics one answer explains with their actions, in all: every
/// topic of a first page's cards. Each is a read of the store, so an
/// answer of a hundred people costs no more reads than one of ten; the
/// cards further down list their topics without the actions.
const TOPICS_EXPLAINED: usize = ExpertsLimit::DEFAULT.get() as usize * TOPICS_PER_CARD;

/// The answer to a question, explained.
#[derive(Debug, Clone)]
pub struct Explained {
    /// How the question was read, with what the answer comes to.
    pub reading: QueryReading,
    /// Those who know: scoring 50 or more ([`THE_PERSON`]), best first.
    pub knowing: Vec<Card>,
    /// The nearest Kenning has: under 50, at or above the floor every
    /// door applies, best first.
    pub nearest: Vec<Card>,
    /// Whether as many people were listed as asked for: a longer list
    /// may hold more.
    pub full: bool,
}

/// One person of an answer.
#[derive(Debug, Clone)]
pub struct Card {
    /// Where they rank and why.
    pub expert: Expert,
    /// Who they are (never a deleted user: an answer names nobody
    /// erased).
    pub person: User,
    /// Their first topics of the question, the most telling first.
    pub topics: Vec<CardTopic>,
}

/// A topic of a card, with the actions that taught it.
#[derive(Debug, Clone)]
pub struct CardTopic {
    /// The topic, as the ranking scored it.
    pub topic: ScoredTopic,
    /// At most [`ACTIONS_PER_TOPIC`] of the person's actions that taught
    /// it; none for a topic the person says they know that no upload
    /// taught, and none past the answer's first fifty topics (a first
    /// page's ten cards of five).
    pub evidence: Vec<ActionRecord>,
}

impl Explained {
    /// Everyone listed, those who know first.
    pub fn cards(&self) -> impl Iterator<Item = &Card> {
        self.knowing.iter().chain(&self.nearest)
    }
}

impl ExpertiseService {
    /// The answer to `query` explained: the people
    /// [`experts_read`](Self::experts_read) lists (in `group` when
    /// given), split into those who know and the nearest, each with the
    /// actions behind their first topics.
    pub fn explained(
        &self,
        query: &str,
        limit: ExpertsLimit,
        group: Option<GroupId>,
    ) -> Result<Explained, ServiceError> {
        let (experts, reading) = self.experts_read(query, limit, group)?;
        let full = experts.len() == limit.get() as usize;
        let ids: Vec<_> = experts.iter().map(|e| e.user).collect();
        let people = self.people(&ids)?;
        let mut explained = TOPICS_EXPLAINED;
        let mut answer = Explained {
            reading,
            knowing: Vec::new(),
            nearest: Vec::new(),
            full,
        };
        for expert in experts {
            let Some(person) = people
                .iter()
                .find(|u| u.id() == expert.user && u.profile().is_some())
            else {
                continue;
            };
            let card = self.card(expert, person.clone(), &mut explained)?;
            if card.expert.score >= THE_PERSON {
                answer.knowing.push(card);
            } else {
                answer.nearest.push(card);
            }
        }
        Ok(answer)
    }

    /// The card of `expert`, its topics explained by the actions behind
    /// them while `explained` topics are left to the answer.
    fn card(
        &self,
        expert: Expert,
        person: User,
        explained: &mut usize,
    ) -> Result<Card, ServiceError> {
        let mut topics = Vec::new();
        for topic in expert.topics.iter().take(TOPICS_PER_CARD) {
            let evidence = if *explained > 0 && !topic.declared {
                *explained -= 1;
                self.actions_behind(expert.user, &topic.key, ACTIONS_PER_TOPIC)?
            } else {
                Vec::new()
            };
            topics.push(CardTopic {
                topic: topic.clone(),
                evidence,
            });
        }
        Ok(Card {
            expert,
            person,
            topics,
        })
    }
}
