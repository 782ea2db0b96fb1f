//! `ExpertiseStore` on the memory store: actions recorded, standings
//! learned and read, under its one lock.

use std::collections::BTreeSet;
use std::collections::HashMap;

use kenning_domain::{
    commonest_labels, declared_topics_changed, hidden_topics_changed, ActionTopic, Attribution,
    DeclaredTopic, EntityTopic, Evidence, GroupId, Population, Scoring, StoredStanding, UserId,
};
use kenning_ports::{
    ActionRecord, Cooccurring, ExpertiseStore, NewAction, RecordError, Recorded, StoreError,
    TopicListChange,
};

use crate::learned::{Held, Learned, StoredAction};
use crate::state::{MemoryStore, State};

fn topic_standing(key: &str, user: UserId, held: &Held) -> StoredStanding {
    StoredStanding {
        user,
        key: key.to_owned(),
        label: held.labelled.label.label.clone(),
        standing: held.labelled.standing,
        shown: held.labelled.label.shown,
    }
}

fn population(learned: &Learned) -> Population {
    Population {
        people: learned.activity.len() as u64,
        actions: learned.actions_total,
    }
}

/// The `per_key` actions of visible users in which each of `keys` is most
/// relevant under `scoring`.
fn best_actions(
    state: &State,
    keys: &[String],
    per_key: u32,
    scoring: &Scoring,
    within: Option<GroupId>,
) -> Vec<ActionTopic> {
    let mut found = Vec::new();
    for key in keys {
        let Some(teaching) = state.expertise.teaching.get(key) else {
            continue;
        };
        let mut best: Vec<ActionTopic> = teaching
            .iter()
            .filter(|(_, user, _)| counts(state, user, within))
            .map(|(action, user, by_descriptor)| ActionTopic {
                action: *action,
                user: *user,
                key: key.clone(),
                relevance: EntityTopic {
                    key: key.clone(),
                    label: String::new(),
                    by_descriptor: *by_descriptor,
                    shown: false,
                }
                .relevance(scoring),
            })
            .collect();
        best.sort_by(|a, b| {
            b.relevance
                .total_cmp(&a.relevance)
                .then(b.action.cmp(&a.action))
        });
        best.truncate(per_key as usize);
        found.extend(best);
    }
    found
}

/// Whether `user` is ranked ([`kenning_domain::User::is_ranked`], as
/// learned about or not).
fn visible(state: &State, user: &UserId) -> bool {
    state
        .users
        .get(user)
        .is_some_and(|u| u.is_ranked(state.learns(user)))
}

/// Whether `user` is visible and, `within` a group, one of its members.
fn counts(state: &State, user: &UserId, within: Option<GroupId>) -> bool {
    visible(state, user)
        && within.is_none_or(|group| {
            state
                .groups
                .get(&group)
                .is_some_and(|g| g.attributes().members.contains(user))
        })
}

/// What [`ExpertiseStore::evidence`] reads, of the members of `within`
/// alone when given.
fn evidence_of(
    state: &State,
    keys: &[String],
    per_key: u32,
    actions_per_key: u32,
    scoring: &Scoring,
    within: Option<GroupId>,
) -> Evidence {
    let learned = &state.expertise;
    let mut standings = Vec::new();
    let mut knowing = HashMap::new();
    for key in keys {
        let Some(users) = learned.standings.get(key) else {
            continue;
        };
        knowing.insert(key.clone(), users.len() as u64);
        let mut best: Vec<(&UserId, &Held)> = users
            .iter()
            .filter(|(user, _)| counts(state, user, within))
            .collect();
        best.sort_by(|a, b| b.1.rank_key.total_cmp(&a.1.rank_key).then(b.0.cmp(a.0)));
        best.truncate(per_key as usize);
        standings.extend(
            best.into_iter()
                .map(|(user, held)| topic_standing(key, *user, held)),
        );
    }
    Evidence {
        standings,
        knowing,
        population: population(learned),
        actions: best_actions(state, keys, actions_per_key, scoring, within),
        hidden: learned
            .hidden
            .iter()
            .filter(|(_, key)| keys.contains(key))
            .cloned()
            .collect(),
        declared: std::collections::HashSet::new(),
    }
}

/// Stores one action in `state`, as [`ExpertiseStore::record`] does.
fn record_in(
    state: &mut State,
    action: &NewAction,
    scoring: &Scoring,
) -> Result<Recorded, RecordError> {
    let user = state
        .users
        .values()
        .find(|u| {
            u.status().learns()
                && u.profile().map(|p| p.email.key()).as_deref() == Some(&action.user_email_key)
        })
        .map(|u| u.id())
        .ok_or(RecordError::UnknownUser)?;
    if let Some(alias) = &action.alias {
        if let Some(stored) = state
            .expertise
            .actions
            .iter()
            .find(|a| a.alias.as_ref() == Some(alias))
        {
            return Err(RecordError::DuplicateAlias {
                action: stored.id,
                received: stored.received,
            });
        }
    }
    let taught = state.learns(&user) && state.teaches(&action.entity_type, &action.action_type);
    let stored = StoredAction {
        id: action.id,
        user,
        entity_type: action.entity_type.clone(),
        action_type: action.action_type.clone(),
        action_date: action.action_date,
        alias: action.alias.clone(),
        received: action.received,
        topics: if taught {
            action.topics.clone()
        } else {
            Vec::new()
        },
        taught,
    };
    if !taught {
        state.expertise.actions.push(stored);
        return Ok(Recorded { user, taught });
    }
    state.expertise.learn(user, &stored, scoring);
    for topic in &stored.topics {
        state
            .expertise
            .teaching
            .entry(topic.key.clone())
            .or_default()
            .push((stored.id, user, topic.by_descriptor));
    }
    state.expertise.actions.push(stored);
    *state.expertise.activity.entry(user).or_default() += 1;
    state.expertise.actions_total += 1;
    Ok(Recorded { user, taught })
}

impl ExpertiseStore for MemoryStore {
    fn record_all(
        &self,
        actions: &[NewAction],
        scoring: &Scoring,
    ) -> Result<Vec<Result<Recorded, RecordError>>, StoreError> {
        let mut state = self.lock();
        Ok(actions
            .iter()
            .map(|action| record_in(&mut state, action, scoring))
            .collect())
    }

    fn best_actions_on(
        &self,
        keys: &[String],
        per_key: u32,
        scoring: &Scoring,
    ) -> Result<Vec<ActionTopic>, StoreError> {
        Ok(best_actions(&self.lock(), keys, per_key, scoring, None))
    }

    fn evidence(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
    ) -> Result<Evidence, StoreError> {
        Ok(evidence_of(
            &self.lock(),
            keys,
            per_key,
            actions_per_key,
            scoring,
            None,
        ))
    }

    fn evidence_within(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
        group: GroupId,
    ) -> Result<Evidence, StoreError> {
        let state = self.lock();
        Ok(evidence_of(
            &state,
            keys,
            per_key,
            actions_per_key,
            scoring,
            Some(group),
        ))
    }

    fn population(&self) -> Result<Population, StoreError> {
        Ok(population(&self.lock().expertise))
    }

    fn people_on(&self, keys: &[String]) -> Result<HashMap<String, u64>, StoreError> {
        let state = self.lock();
        Ok(keys
            .iter()
            .filter_map(|key| {
                let users = state.expertise.standings.get(key)?;
                Some((key.clone(), users.len() as u64))
            })
            .collect())
    }

    fn learned_keys(&self) -> Result<Vec<String>, StoreError> {
        let state = self.lock();
        let mut keys: Vec<String> = state.expertise.standings.keys().cloned().collect();
        keys.sort_unstable();
        Ok(keys)
    }

    fn labels_of(&self, keys: &[String]) -> Result<HashMap<String, String>, StoreError> {
        let state = self.lock();
        Ok(keys
            .iter()
            .filter_map(|key| {
                let label = state
                    .expertise
                    .standings
                    .get(key)?
                    .values()
                    .map(|held| &held.labelled.label.label)
                    .min()?;
                Some((key.clone(), label.clone()))
            })
            .collect())
    }

    fn cooccurring(&self, key: &str, sample: u32) -> Result<Cooccurring, StoreError> {
        let state = self.lock();
        let hid =
            |user: UserId, key: &str| state.expertise.hidden.contains(&(user, key.to_owned()));
        let mut teaching: Vec<&StoredAction> = state
            .expertise
            .actions
            .iter()
            .filter(|a| a.topics.iter().any(|t| t.key == key))
            .filter(|a| visible(&state, &a.user) && !hid(a.user, key))
            .collect();
        teaching.sort_by(|a, b| b.action_date.cmp(&a.action_date).then(a.id.cmp(&b.id)));
        teaching.truncate(sample as usize);
        let mut counts: HashMap<(&str, &str), u64> = HashMap::new();
        for action in &teaching {
            let shown = |t: &&EntityTopic| t.key != key && t.shown && !hid(action.user, &t.key);
            for topic in action.topics.iter().filter(shown) {
                *counts.entry((&topic.key, &topic.label)).or_default() += 1;
            }
        }
        Ok(Cooccurring {
            actions: teaching.len() as u64,
            topics: commonest_labels(
                counts
                    .into_iter()
                    .map(|((k, label), n)| (k.to_owned(), label.to_owned(), n)),
            ),
        })
    }

    fn standings_of(&self, user: UserId) -> Result<Vec<StoredStanding>, StoreError> {
        Ok(self
            .lock()
            .expertise
            .standings
            .iter()
            .filter_map(|(key, users)| users.get(&user).map(|held| topic_standing(key, user, held)))
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

    fn set_hidden(
        &self,
        user: UserId,
        keys: &[&str],
        hidden: bool,
        most: usize,
        by: &Attribution,
    ) -> Result<TopicListChange, StoreError> {
        let mut state = self.lock();
        let held =
            |state: &State, key: &str| state.expertise.hidden.contains(&(user, key.to_owned()));
        let changing: BTreeSet<&str> = keys
            .iter()
            .copied()
            .filter(|key| held(&state, key) != hidden)
            .collect();
        if changing.is_empty() {
            return Ok(TopicListChange::Unchanged);
        }
        if hidden {
            let hides = state
                .expertise
                .hidden
                .iter()
                .filter(|(u, _)| *u == user)
                .count();
            if hides + changing.len() > most {
                return Ok(TopicListChange::Full);
            }
        }
        for key in changing {
            let pair = (user, key.to_owned());
            if hidden {
                state.expertise.hidden.insert(pair);
            } else {
                state.expertise.hidden.remove(&pair);
            }
        }
        state.record(by, [hidden_topics_changed(user.as_uuid())]);
        Ok(TopicListChange::Changed)
    }

    fn set_declared(
        &self,
        user: UserId,
        key: &str,
        topic: Option<&DeclaredTopic>,
        most: usize,
        by: &Attribution,
    ) -> Result<TopicListChange, StoreError> {
        let mut state = self.lock();
        let pair = (user, key.to_owned());
        let declared = &mut state.expertise.declared;
        let changed = match topic {
            None => declared.remove(&pair).is_some(),
            Some(_) if declared.contains_key(&pair) => false,
            Some(_) if declared.keys().filter(|(u, _)| *u == user).count() >= most => {
                return Ok(TopicListChange::Full);
            }
            Some(topic) => declared.insert(pair, topic.clone()).is_none(),
        };
        if !changed {
            return Ok(TopicListChange::Unchanged);
        }
        state.record(by, [declared_topics_changed(user.as_uuid())]);
        Ok(TopicListChange::Changed)
    }

    fn declared_of(&self, user: UserId) -> Result<Vec<DeclaredTopic>, StoreError> {
        Ok(self
            .lock()
            .expertise
            .declared
            .iter()
            .filter(|((u, _), _)| *u == user)
            .map(|(_, topic)| topic.clone())
            .collect())
    }

    fn declared_on(
        &self,
        keys: &[String],
        per_key: u32,
    ) -> Result<Vec<(String, UserId, DeclaredTopic)>, StoreError> {
        let state = self.lock();
        let mut found = Vec::new();
        for key in keys {
            let mut on: Vec<(String, UserId, DeclaredTopic)> = state
                .expertise
                .declared
                .iter()
                .filter(|((_, k), _)| speaks_of(k, key))
                .map(|((user, _), topic)| (key.clone(), *user, topic.clone()))
                .collect();
            on.sort_by_key(|d| std::cmp::Reverse(d.2.declared));
            on.truncate(usize::try_from(per_key).unwrap_or(usize::MAX));
            found.extend(on);
        }
        Ok(found)
    }

    fn hidden_of(&self, user: UserId) -> Result<Vec<String>, StoreError> {
        Ok(self
            .lock()
            .expertise
            .hidden
            .iter()
            .filter(|(u, _)| *u == user)
            .map(|(_, key)| key.clone())
            .collect())
    }
}

/// Whether the declared key `declared` is `key` or holds it as whole
/// words.
fn speaks_of(declared: &str, key: &str) -> bool {
    declared == key || format!(" {declared} ").contains(&format!(" {key} "))
}
