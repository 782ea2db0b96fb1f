//! Actions and standings held in memory.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use kenning_domain::{EntityTopic, Scoring, Standing, Status, TopicStanding, UserId};
use kenning_ports::{ActionRecord, ExpertiseStore, NewAction, RecordError, StoreError};
use uuid::Uuid;

use crate::MemoryStore;

#[derive(Debug, Clone)]
struct StoredAction {
    id: Uuid,
    user: UserId,
    entity_type: String,
    action_type: String,
    action_date: DateTime<Utc>,
    alias: Option<String>,
    topics: Vec<EntityTopic>,
}

/// Everything learned from uploads.
#[derive(Debug, Default)]
pub(crate) struct Learned {
    actions: Vec<StoredAction>,
    standings: HashMap<(UserId, String), (String, Standing)>,
    fingerprint: Option<String>,
}

impl Learned {
    pub(crate) fn erase(&mut self, user: UserId) {
        self.actions.retain(|a| a.user != user);
        self.standings.retain(|(u, _), _| *u != user);
    }

    fn learn(&mut self, user: UserId, action: &StoredAction, scoring: &Scoring) {
        for topic in &action.topics {
            let contribution = scoring.contribution(&action.action_type, topic);
            let entry = self
                .standings
                .entry((user, topic.key.clone()))
                .or_insert_with(|| {
                    (
                        topic.label.clone(),
                        Standing {
                            score: 0.0,
                            as_of: action.action_date,
                        },
                    )
                });
            entry.0.clone_from(&topic.label);
            entry.1 = entry.1.add(contribution, action.action_date, scoring);
        }
    }
}

fn topic_standing(
    ((user, key), (label, standing)): (&(UserId, String), &(String, Standing)),
) -> TopicStanding {
    TopicStanding {
        user: *user,
        key: key.clone(),
        label: label.clone(),
        standing: *standing,
    }
}

impl ExpertiseStore for MemoryStore {
    fn record(&self, action: &NewAction, scoring: &Scoring) -> Result<UserId, RecordError> {
        let mut state = self.lock();
        let user = state
            .users
            .values()
            .find(|u| {
                matches!(u.status(), Status::Active | Status::Deactivated)
                    && u.profile().map(|p| p.email.key()).as_deref() == Some(&action.user_email_key)
            })
            .map(|u| u.id())
            .ok_or(RecordError::UnknownUser)?;
        if let Some(alias) = &action.alias {
            if state
                .expertise
                .actions
                .iter()
                .any(|a| a.alias.as_ref() == Some(alias))
            {
                return Err(RecordError::DuplicateAlias);
            }
        }
        let stored = StoredAction {
            id: action.id,
            user,
            entity_type: action.entity_type.clone(),
            action_type: action.action_type.clone(),
            action_date: action.action_date,
            alias: action.alias.clone(),
            topics: action.topics.clone(),
        };
        state.expertise.learn(user, &stored, scoring);
        state.expertise.actions.push(stored);
        Ok(user)
    }

    fn standings_on(&self, keys: &[String]) -> Result<Vec<TopicStanding>, StoreError> {
        let state = self.lock();
        let visible = |user: &UserId| {
            state
                .users
                .get(user)
                .is_some_and(|u| u.status() == Status::Active && !u.is_hidden())
        };
        Ok(state
            .expertise
            .standings
            .iter()
            .filter(|((user, key), _)| keys.contains(key) && visible(user))
            .map(topic_standing)
            .collect())
    }

    fn standings_of(&self, user: UserId) -> Result<Vec<TopicStanding>, StoreError> {
        Ok(self
            .lock()
            .expertise
            .standings
            .iter()
            .filter(|((u, _), _)| *u == user)
            .map(topic_standing)
            .collect())
    }

    fn actions_on(
        &self,
        user: UserId,
        key: &str,
        scoring: &Scoring,
        max: u32,
    ) -> Result<Vec<ActionRecord>, StoreError> {
        let state = self.lock();
        let mut found: Vec<ActionRecord> = state
            .expertise
            .actions
            .iter()
            .filter(|a| a.user == user)
            .filter_map(|a| {
                let topic = a.topics.iter().find(|t| t.key == key)?;
                Some(ActionRecord {
                    id: a.id,
                    entity_type: a.entity_type.clone(),
                    action_type: a.action_type.clone(),
                    action_date: a.action_date,
                    alias: a.alias.clone(),
                    relevance: topic.relevance(scoring),
                })
            })
            .collect();
        found.sort_by(|a, b| b.action_date.cmp(&a.action_date).then(a.id.cmp(&b.id)));
        found.truncate(max as usize);
        Ok(found)
    }

    fn rebuild_if_changed(&self, scoring: &Scoring) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let fingerprint = scoring.fingerprint();
        if state.expertise.fingerprint.as_deref() == Some(fingerprint.as_str()) {
            return Ok(false);
        }
        let learned = &mut state.expertise;
        learned.standings.clear();
        let actions = std::mem::take(&mut learned.actions);
        for action in &actions {
            learned.learn(action.user, action, scoring);
        }
        learned.actions = actions;
        learned.fingerprint = Some(fingerprint);
        Ok(true)
    }
}
