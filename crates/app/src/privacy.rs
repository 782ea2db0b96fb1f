//! A person's rights over what Kenning keeps about them, and the
//! organisation's rules on learning: the download of everything kept, the
//! person's switch, forgetting, the rules, the retention, and what people
//! ask that nobody knows.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{Duration, NaiveDate};
use kenning_domain::{
    AskedCount, AskedSubject, Attribution, AuditEntry, Learning, LearningRule, LearningRules,
    Status, User, UserId, ValidationErrors,
};
use kenning_ports::{AuditQuery, AuditTrail, Clock, GroupStore, PrivacyStore, UserStore};
use serde_json::{json, Value};

use crate::access::{Caller, Operation};
use crate::error::{Missing, ServiceError};
use crate::expertise::ExpertiseService;

/// Actions the retention forgets in one step (one transaction).
pub const RETENTION_BATCH: u32 = 500;
/// The most subjects a read of what people ask lists.
pub const ASKED_LISTED: u32 = 200;
/// Audit entries read at a time for a person's data.
const AUDIT_PAGE: u32 = 500;

/// The privacy use cases.
#[derive(Clone)]
pub struct PrivacyService {
    store: Arc<dyn PrivacyStore>,
    users: Arc<dyn UserStore>,
    groups: Arc<dyn GroupStore>,
    trail: Arc<dyn AuditTrail>,
    expertise: ExpertiseService,
    clock: Arc<dyn Clock>,
    actor: kenning_domain::Actor,
    /// Who calls: each use case asks whether they may.
    caller: Caller,
}

impl std::fmt::Debug for PrivacyService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivacyService").finish_non_exhaustive()
    }
}

impl PrivacyService {
    /// The service over `store`, reading people's profiles and expertise
    /// through `expertise` (which must have been given the same store with
    /// [`ExpertiseService::with_privacy`], so that its questions are
    /// counted here). It serves the operator until
    /// [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(
        store: Arc<dyn PrivacyStore>,
        users: Arc<dyn UserStore>,
        groups: Arc<dyn GroupStore>,
        trail: Arc<dyn AuditTrail>,
        expertise: ExpertiseService,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            store,
            users,
            groups,
            trail,
            expertise,
            clock,
            actor: kenning_domain::Actor::embedded(),
            caller: Caller::operator(),
        }
    }

    /// The same service for `caller`: a person reads the rules, and reads
    /// and changes their own data and learning only; setting the rules and
    /// reading the subjects asked are an administrator's (or a token's
    /// with `users:write`, `users:read`).
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// The same service, its changes recorded as made by `actor`.
    pub fn acting_as(&self, actor: kenning_domain::Actor) -> Self {
        if !self.caller.is_operator() {
            return self.clone();
        }
        Self {
            actor,
            ..self.clone()
        }
    }

    fn attribution(&self) -> Attribution {
        Attribution::new(self.actor.clone(), self.clock.now())
    }

    /// The live user `id`: `NotFound` for none or a deleted one.
    fn live(&self, id: UserId) -> Result<User, ServiceError> {
        match self.users.get(id)? {
            Some(user) if !matches!(user.status(), Status::Deleted { .. }) => Ok(user),
            _ => Err(ServiceError::NotFound(Missing::User)),
        }
    }

    /// The rules in force, with who set each and when.
    pub fn rules(&self) -> Result<LearningRules, ServiceError> {
        self.caller.require(Operation::ReadLearningRules)?;
        self.read_rules()
    }

    fn read_rules(&self) -> Result<LearningRules, ServiceError> {
        Ok(self.store.learning_rules()?)
    }

    /// Sets the rule of `kind` with `value` (`set`) or lifts it, and
    /// returns the rules in force after. A group's rule needs the group;
    /// a rule set already, or lifted already, changes nothing.
    pub fn set_rule(
        &self,
        kind: &str,
        value: Option<&str>,
        set: bool,
    ) -> Result<LearningRules, ServiceError> {
        self.caller.require(Operation::SetLearningRules)?;
        let rule = LearningRule::parse(kind, value).map_err(ValidationErrors::from)?;
        if let LearningRule::GroupOff(group) = &rule {
            if set && self.groups.group(*group)?.is_none() {
                return Err(ServiceError::NotFound(Missing::Group));
            }
        }
        self.store
            .set_learning_rule(&rule, set, &self.attribution())?;
        self.read_rules()
    }

    /// Whether `user` is learned about, and their own choice.
    pub fn learning_of(&self, user: UserId) -> Result<Learning, ServiceError> {
        self.caller.require(Operation::ReadDataOf(user))?;
        self.read_learning(user)
    }

    fn read_learning(&self, user: UserId) -> Result<Learning, ServiceError> {
        self.store
            .learning_of(user)?
            .ok_or(ServiceError::NotFound(Missing::User))
    }

    /// Sets `user`'s own choice (`None`: the organisation's default); what
    /// the rules make of it.
    pub fn set_learning(
        &self,
        user: UserId,
        choice: Option<bool>,
    ) -> Result<Learning, ServiceError> {
        self.caller.require(Operation::ChangeLearningOf(user))?;
        self.store
            .set_learning_choice(user, choice, &self.attribution())?
            .ok_or(ServiceError::NotFound(Missing::User))
    }

    /// Erases what was learned about `user`: every action and standing
    /// (the account, its profile and its choice stay).
    pub fn forget(&self, user: UserId) -> Result<(), ServiceError> {
        self.caller.require(Operation::ChangeLearningOf(user))?;
        if !self.store.forget(user, &self.attribution())? {
            return Err(ServiceError::NotFound(Missing::User));
        }
        self.compact("forgot what was learned about a person")
    }

    /// Has the store compact itself after an erasure, so that what was
    /// erased does not stay readable in its files
    /// ([`UserStore::compact_after_erasure`]).
    fn compact(&self, done: &str) -> Result<(), ServiceError> {
        self.users.compact_after_erasure().map_err(|e| {
            ServiceError::Internal(format!(
                "{done}, but the store could not be compacted afterwards, so the erased \
                 values may still be in its files: {}",
                crate::error::chain(&e)
            ))
        })
    }

    /// Forgets the actions older than the retention, in steps of
    /// [`RETENTION_BATCH`], until none is left or `max_steps` ran; how many
    /// it forgot. Nothing without a retention.
    pub fn forget_expired(&self, max_steps: u32) -> Result<u64, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        let Some(days) = self.read_rules()?.retention_days() else {
            return Ok(0);
        };
        let before = self.clock.now() - Duration::days(i64::from(days));
        let mut forgotten = 0;
        for _ in 0..max_steps {
            let step =
                self.store
                    .expire_before(before, RETENTION_BATCH, self.expertise.scoring())?;
            forgotten += u64::from(step);
            if step < RETENTION_BATCH {
                break;
            }
        }
        if forgotten > 0 {
            self.compact(&format!("forgot {forgotten} action(s) past the retention"))?;
        }
        Ok(forgotten)
    }

    /// The subjects asked in the last `days` days that nobody holds, or
    /// one person alone, the most asked first; `days` from 1 to the 90 the
    /// counts are kept ([`AskedSubject::span`]).
    pub fn asked(&self, days: i64) -> Result<Vec<AskedCount>, ServiceError> {
        self.caller.require(Operation::ReadAskedSubjects)?;
        let days = AskedSubject::span(days).map_err(ValidationErrors::from)?;
        self.expertise.flush_asked();
        let since = self.clock.now().date_naive() - Duration::days(i64::from(days));
        Ok(self.store.asked_since(since, ASKED_LISTED)?)
    }

    /// Writes the counts of subjects asked gathered in memory, then
    /// deletes those older than they are kept ([`AskedSubject::KEPT_DAYS`]);
    /// how many it deleted.
    pub fn prune_asked(&self) -> Result<u64, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        self.expertise.flush_asked();
        let before: NaiveDate =
            self.clock.now().date_naive() - Duration::days(AskedSubject::KEPT_DAYS);
        Ok(self.store.prune_asked(before)?)
    }

    /// Every entry of the audit trail about `user`, oldest first.
    fn audit_of(&self, user: UserId) -> Result<Vec<AuditEntry>, ServiceError> {
        let mut entries = Vec::new();
        let mut before = None;
        loop {
            let query = AuditQuery {
                before,
                resource_id: Some(user.as_uuid()),
                ..AuditQuery::default()
            };
            let page = self.trail.audit_entries(&query, AUDIT_PAGE)?;
            let last = page.last().map(|e| e.position);
            let full = page.len() == AUDIT_PAGE as usize;
            entries.extend(page);
            match last {
                Some(position) if full => before = Some(position),
                _ => break,
            }
        }
        entries.reverse();
        Ok(entries)
    }

    /// Everything Kenning keeps about `user`, as one JSON document: the
    /// profile, groups, learning, topics with their scores and the actions
    /// behind each, hidden topics, the topics they say they know, every
    /// action, and the audit entries
    /// about them. The hand-out is recorded in the audit trail (who asked,
    /// not what was in it).
    pub fn export(&self, user: UserId) -> Result<Value, ServiceError> {
        self.caller.require(Operation::ReadDataOf(user))?;
        let person = self.live(user)?;
        let groups = self
            .groups
            .groups_of(&[user])?
            .remove(&user)
            .unwrap_or_default();
        let learning = self.read_learning(user)?;
        let hidden = self.expertise.hidden_topics(user)?;
        let declared = self.expertise.declarations_kept(user)?;
        let topics = self.expertise.scored_standings(user)?;
        let actions = self.store.actions_of(user)?;
        // Looked up by value, never by an order a store's collation chose.
        let hidden_set: HashSet<&String> = hidden.iter().collect();
        let mut taught_by: HashMap<&str, Vec<String>> = HashMap::new();
        for action in &actions {
            for key in &action.topics {
                taught_by
                    .entry(key.as_str())
                    .or_default()
                    .push(action.id.to_string());
            }
        }
        let audit = self.audit_of(user)?;
        self.store.record_export(user, &self.attribution())?;
        Ok(json!({
            "exportedAt": self.clock.now().to_rfc3339(),
            "user": crate::export::profile(&person),
            "groups": groups.iter().map(|m| json!({
                "id": m.group.to_string(),
                "displayName": m.display_name.as_str(),
            })).collect::<Vec<_>>(),
            "learning": {
                "choice": learning.choice,
                "learns": learning.learns,
            },
            "topics": topics.iter().map(|(key, label, score)| {
                json!({
                    "key": key,
                    "label": label,
                    "score": score,
                    "hidden": hidden_set.contains(key),
                    "actions": taught_by.get(key.as_str()).cloned().unwrap_or_default(),
                })
            }).collect::<Vec<_>>(),
            "hiddenTopics": hidden,
            "declaredTopics": declared.iter().map(|t| json!({
                "key": t.key,
                "label": t.label,
                "declaredAt": t.declared.to_rfc3339(),
            })).collect::<Vec<_>>(),
            "actions": actions.iter().map(|a| json!({
                "id": a.id.to_string(),
                "entityType": a.entity_type,
                "actionType": a.action_type,
                "actionDate": a.action_date.to_rfc3339(),
                "alias": a.alias,
                "received": a.received.to_rfc3339(),
                "topics": a.topics,
            })).collect::<Vec<_>>(),
            "audit": audit.iter().map(|e| json!({
                "at": e.at.to_rfc3339(),
                "kind": e.change.kind.as_str(),
                "fields": e.change.fields,
                "by": {
                    "name": e.actor.name,
                    "channel": e.actor.channel.as_str(),
                    "credentialId": e.actor.credential_id.map(|id| id.to_string()),
                },
            })).collect::<Vec<_>>(),
        }))
    }
}
