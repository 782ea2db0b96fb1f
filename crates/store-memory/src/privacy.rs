//! The privacy store in memory: the rules, people's choices, forgetting,
//! a person's actions, and the counts of what people ask that nobody
//! knows.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use kenning_domain::{
    learning_rule_changed, user_exported, user_forgotten, user_learning_changed, AskedCount,
    AskedSubject, Attribution, GroupId, Learning, LearningRule, LearningRules, RuleInForce,
    Scoring, Status, UserId,
};
use kenning_ports::{PrivacyStore, StoreError, StoredAction};

use crate::state::{MemoryStore, State};

impl State {
    fn rules(&self) -> LearningRules {
        LearningRules::new(self.privacy.rules.clone())
    }

    fn groups_of(&self, user: &UserId) -> Vec<GroupId> {
        self.groups
            .values()
            .filter(|g| g.attributes().members.contains(user))
            .map(|g| g.id())
            .collect()
    }

    /// Whether `user` is learned about under the rules in force.
    pub(crate) fn learns(&self, user: &UserId) -> bool {
        let choice = self.privacy.choices.get(user).copied();
        if self.privacy.rules.is_empty() {
            // No rule: the choice alone decides, without reading the groups.
            return choice != Some(false);
        }
        self.rules().learns(choice, &self.groups_of(user))
    }

    /// Whether an upload of these types may teach.
    pub(crate) fn teaches(&self, entity_type: &str, action_type: &str) -> bool {
        self.rules().teaches(entity_type, action_type)
    }

    fn live(&self, user: &UserId) -> bool {
        self.users
            .get(user)
            .is_some_and(|u| !matches!(u.status(), Status::Deleted { .. }))
    }

    fn learning(&self, user: &UserId) -> Option<Learning> {
        self.live(user).then(|| Learning {
            choice: self.privacy.choices.get(user).copied(),
            learns: self.learns(user),
        })
    }
}

impl PrivacyStore for MemoryStore {
    fn learning_rules(&self) -> Result<LearningRules, StoreError> {
        Ok(self.lock().rules())
    }

    fn set_learning_rule(
        &self,
        rule: &LearningRule,
        set: bool,
        by: &Attribution,
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let rules = &mut state.privacy.rules;
        let present = rules.iter().any(|r| r.rule == *rule);
        if present == set {
            return Ok(false);
        }
        if set {
            let kind = rule.parts().0;
            if rule.is_single() {
                rules.retain(|r| r.rule.parts().0 != kind);
            }
            rules.push(RuleInForce {
                rule: rule.clone(),
                set_by: by.actor.clone(),
                set_at: by.at,
            });
        } else {
            rules.retain(|r| r.rule != *rule);
        }
        state.record(by, [learning_rule_changed(rule, set)]);
        Ok(true)
    }

    fn learning_of(&self, user: UserId) -> Result<Option<Learning>, StoreError> {
        Ok(self.lock().learning(&user))
    }

    fn set_learning_choice(
        &self,
        user: UserId,
        choice: Option<bool>,
        by: &Attribution,
    ) -> Result<Option<Learning>, StoreError> {
        let mut state = self.lock();
        let Some(before) = state.learning(&user) else {
            return Ok(None);
        };
        if before.choice != choice {
            match choice {
                Some(choice) => state.privacy.choices.insert(user, choice),
                None => state.privacy.choices.remove(&user),
            };
            state.record(by, [user_learning_changed(user.as_uuid())]);
        }
        Ok(state.learning(&user))
    }

    fn forget(&self, user: UserId, by: &Attribution) -> Result<bool, StoreError> {
        let mut state = self.lock();
        if !state.live(&user) {
            return Ok(false);
        }
        state.expertise.erase(user);
        state.anonymize_use(user);
        state.record(by, [user_forgotten(user.as_uuid())]);
        Ok(true)
    }

    fn expire_before(
        &self,
        before: DateTime<Utc>,
        max: u32,
        scoring: &Scoring,
    ) -> Result<u32, StoreError> {
        let mut state = self.lock();
        let learned = &mut state.expertise;
        let mut old: Vec<(DateTime<Utc>, uuid::Uuid)> = learned
            .actions
            .iter()
            .filter(|a| a.action_date < before)
            .map(|a| (a.action_date, a.id))
            .collect();
        old.sort();
        old.truncate(max as usize);
        let doomed: HashSet<uuid::Uuid> = old.iter().map(|(_, id)| *id).collect();
        let people: HashSet<UserId> = learned
            .actions
            .iter()
            .filter(|a| doomed.contains(&a.id))
            .map(|a| a.user)
            .collect();
        learned.actions.retain(|a| !doomed.contains(&a.id));
        learned.teaching.retain(|_, actions| {
            actions.retain(|(id, _, _)| !doomed.contains(id));
            !actions.is_empty()
        });
        learned.standings.retain(|_, users| {
            users.retain(|user, _| !people.contains(user));
            !users.is_empty()
        });
        let left: Vec<_> = learned
            .actions
            .iter()
            .filter(|a| people.contains(&a.user))
            .cloned()
            .collect();
        for person in &people {
            if let Some(counted) = learned.activity.remove(person) {
                learned.actions_total -= counted;
            }
        }
        for action in &left {
            learned.learn(action.user, action, scoring);
            if action.taught {
                *learned.activity.entry(action.user).or_default() += 1;
                learned.actions_total += 1;
            }
        }
        Ok(u32::try_from(doomed.len()).unwrap_or(u32::MAX))
    }

    fn actions_of(&self, user: UserId) -> Result<Vec<StoredAction>, StoreError> {
        let state = self.lock();
        let mut found: Vec<StoredAction> = state
            .expertise
            .actions
            .iter()
            .filter(|a| a.user == user)
            .map(|a| {
                let mut topics: Vec<String> = a.topics.iter().map(|t| t.key.clone()).collect();
                topics.sort();
                StoredAction {
                    id: a.id,
                    entity_type: a.entity_type.clone(),
                    action_type: a.action_type.clone(),
                    action_date: a.action_date,
                    alias: a.alias.clone(),
                    received: a.received,
                    topics,
                }
            })
            .collect();
        found.sort_by(|a, b| a.action_date.cmp(&b.action_date).then(a.id.cmp(&b.id)));
        Ok(found)
    }

    fn record_export(&self, user: UserId, by: &Attribution) -> Result<(), StoreError> {
        self.lock().record(by, [user_exported(user.as_uuid())]);
        Ok(())
    }

    fn count_asked(
        &self,
        day: NaiveDate,
        subject: &AskedSubject,
        asks: u64,
    ) -> Result<(), StoreError> {
        let mut state = self.lock();
        let counted = state
            .privacy
            .asked
            .entry((day, subject.key.clone(), subject.holders))
            .or_insert_with(|| (subject.label.clone(), 0));
        counted.0 = subject.label.clone();
        counted.1 += asks;
        Ok(())
    }

    fn asked_since(&self, since: NaiveDate, max: u32) -> Result<Vec<AskedCount>, StoreError> {
        let state = self.lock();
        let mut by_subject: BTreeMap<(String, u8), AskedCount> = BTreeMap::new();
        for ((day, key, holders), (label, asks)) in
            state.privacy.asked.range((since, String::new(), 0)..)
        {
            let count = by_subject
                .entry((key.clone(), *holders))
                .or_insert_with(|| AskedCount {
                    subject: AskedSubject {
                        key: key.clone(),
                        label: label.clone(),
                        holders: *holders,
                    },
                    asks: 0,
                    last: *day,
                });
            count.asks += asks;
            if *day >= count.last {
                count.last = *day;
                count.subject.label = label.clone();
            }
        }
        let mut counts: Vec<AskedCount> = by_subject.into_values().collect();
        counts.sort_by(|a, b| b.asks.cmp(&a.asks).then(a.subject.key.cmp(&b.subject.key)));
        counts.truncate(max as usize);
        Ok(counts)
    }

    fn prune_asked(&self, before: NaiveDate) -> Result<u64, StoreError> {
        let mut state = self.lock();
        let count = state.privacy.asked.len();
        state.privacy.asked.retain(|(day, _, _), _| *day >= before);
        Ok((count - state.privacy.asked.len()) as u64)
    }
}
