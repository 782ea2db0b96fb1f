//! What a ranking reads: the standings, actions and choices of the people
//! who learned a query's topics, and how many people learned anything.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use super::standing::StoredStanding;
use crate::user::UserId;

/// How many people learned anything, and from how many actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Population {
    /// How many people learned anything.
    pub people: u64,
    /// How many actions they learned from, together.
    pub actions: u64,
}

/// What is known about the people who learned a query's topics.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evidence {
    /// The best standings on each query topic (all of them, or the best
    /// few hundred of a topic many people know).
    pub standings: Vec<StoredStanding>,
    /// How many people learned each topic (topics nobody learned may be
    /// left out).
    pub knowing: HashMap<String, u64>,
    /// The people who learned anything, and their actions.
    pub population: Population,
    /// The actions in which each query topic is most relevant (the best
    /// few hundred of a topic), for the documents' evidence.
    pub actions: Vec<ActionTopic>,
    /// Who hid which query topic: a person's standing and actions on a
    /// topic she hid do not rank her.
    pub hidden: HashSet<(UserId, String)>,
    /// Whose standings on which topic stand for what they say they know,
    /// not for what an upload taught ([`with_declared`](super::with_declared)).
    pub declared: HashSet<(UserId, String)>,
}

/// A topic of one action, with its relevance in the action's entity.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionTopic {
    /// The action.
    pub action: Uuid,
    /// Whose action it is.
    pub user: UserId,
    /// The topic's key.
    pub key: String,
    /// The topic's relevance in the entity (descriptor factors applied).
    pub relevance: f64,
}
