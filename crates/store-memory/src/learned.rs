//! Everything learned from uploads, as the store holds it: the actions,
//! each user's labelled standing on each topic, and the counts kept beside them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use kenning_domain::{DeclaredTopic, EntityTopic, LabelledStanding, Scoring, UserId};
use uuid::Uuid;

/// An action as recorded, with the topics it taught.
#[derive(Debug, Clone)]
pub(crate) struct StoredAction {
    pub(crate) id: Uuid,
    pub(crate) user: UserId,
    pub(crate) entity_type: String,
    pub(crate) action_type: String,
    pub(crate) action_date: DateTime<Utc>,
    pub(crate) alias: Option<String>,
    pub(crate) received: DateTime<Utc>,
    /// The topics it taught: none when it was not learned from.
    pub(crate) topics: Vec<EntityTopic>,
    /// Whether it was learned from (and counted).
    pub(crate) taught: bool,
}

/// A user's labelled standing on one topic, as stored, with its rank key.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    pub(crate) labelled: LabelledStanding,
    pub(crate) rank_key: f64,
}

/// Everything learned from uploads.
#[derive(Debug, Default)]
pub(crate) struct Learned {
    pub(crate) actions: Vec<StoredAction>,
    /// Per topic key, each user's label, standing, its rank key and
    /// whether it is shown.
    pub(crate) standings: HashMap<String, HashMap<UserId, Held>>,
    /// Each user's number of actions.
    pub(crate) activity: HashMap<UserId, u64>,
    /// Per topic key, the actions that taught it: id, user and the topic's
    /// relevance per descriptor.
    pub(crate) teaching: HashMap<String, Vec<(Uuid, UserId, [f64; 3])>>,
    /// The sum of `activity`, kept with it.
    pub(crate) actions_total: u64,
    /// The topics each user hid from their profile and ranking.
    pub(crate) hidden: BTreeSet<(UserId, String)>,
    /// The topics each user says they know, by (user, key).
    pub(crate) declared: BTreeMap<(UserId, String), DeclaredTopic>,
    pub(crate) fingerprint: Option<String>,
}

impl Learned {
    pub(crate) fn erase(&mut self, user: UserId) {
        self.actions.retain(|a| a.user != user);
        self.hidden.retain(|(u, _)| *u != user);
        self.declared.retain(|(u, _), _| *u != user);
        if let Some(actions) = self.activity.remove(&user) {
            self.actions_total -= actions;
        }
        self.teaching.retain(|_, actions| {
            actions.retain(|(_, u, _)| *u != user);
            !actions.is_empty()
        });
        self.standings.retain(|_, users| {
            users.remove(&user);
            !users.is_empty()
        });
    }

    pub(crate) fn learn(&mut self, user: UserId, action: &StoredAction, scoring: &Scoring) {
        for topic in &action.topics {
            let users = self.standings.entry(topic.key.clone()).or_default();
            let before = users.remove(&user).map(|held| held.labelled);
            let labelled = LabelledStanding::learn(
                before,
                topic,
                &action.action_type,
                action.action_date,
                scoring,
            );
            let rank_key = labelled.standing.rank_key(scoring);
            users.insert(user, Held { labelled, rank_key });
        }
    }
}
