//! A complete in-memory implementation of Kenning's storage ports.
//!
//! It keeps the same contract as the database adapters (the contract suite
//! runs against all of them), so the use cases' own tests, the embedding
//! example and the expertise evaluation run on it without a database. It
//! is not a way around the database: nothing survives the process.

mod expertise;
mod learned;
mod privacy;
mod runs;
mod sessions;
mod state;
mod webhooks;

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use kenning_domain::{
    credential_issued, credential_revoked, group_changed, group_created, group_deleted,
    group_members_changed, user_changes, user_created, Attribution, AuditEntry, Change,
    CredentialKind, Email, Erasure, ExternalId, Group, GroupError, GroupFilter, GroupId, Limit,
    Offset, SearchText, Status, User, UserCursor, UserError, UserFilter, UserId, UserKey, UserName,
    NOBODY,
};
use kenning_ports::{
    AuditQuery, AuditTrail, CredentialStore, FilteredGroups, FilteredUsers, GroupStore, Membership,
    ModifyError, ModifyGroupError, StoreError, StoredCredential, UserPage, UserStore,
};
use uuid::Uuid;

pub use state::MemoryStore;
use state::State;

fn haystack(user: &User) -> Option<String> {
    user.profile().map(SearchText::haystack_of)
}

/// The parts of a user the memory store keeps apart from her, erased
/// under the lock that anonymizes her.
struct StateErasure<'a> {
    state: &'a mut State,
    id: UserId,
    /// Who anonymized her, for the groups' audit entries.
    by: &'a Attribution,
}

impl Erasure for StateErasure<'_> {
    type Error = std::convert::Infallible;

    fn erase_expertise(&mut self) -> Result<(), Self::Error> {
        self.state.expertise.erase(self.id);
        Ok(())
    }

    fn leave_groups(&mut self, at: DateTime<Utc>) -> Result<(), Self::Error> {
        let mut left = Vec::new();
        for group in self.state.groups.values_mut() {
            if group.remove_member(self.id, at) {
                let version = group.version() + 1;
                *group = group.clone().stored_at(version);
                left.push(group_members_changed(group.id().as_uuid()));
            }
        }
        left.sort_by_key(|change| change.resource_id);
        self.state.record(self.by, left);
        Ok(())
    }

    fn anonymize_use(&mut self) -> Result<(), Self::Error> {
        self.state.anonymize_use(self.id);
        Ok(())
    }
}

impl State {
    /// Records `changes`, made as `by` says, in the audit trail.
    pub(crate) fn record(&mut self, by: &Attribution, changes: impl IntoIterator<Item = Change>) {
        for change in changes {
            self.next_position += 1;
            let entry = AuditEntry {
                position: self.next_position,
                at: by.at,
                actor: by.actor.clone(),
                change,
            };
            webhooks::enqueue(self, &entry);
            self.audit.push(entry);
        }
    }

    /// Makes the entries of `user`'s own use of Kenning (her sign-ins and
    /// sign-outs) name nobody, in the trail and in the outbox, whose
    /// deliveries of them are then ordered as nobody's.
    pub(crate) fn anonymize_use(&mut self, user: UserId) {
        let user = user.as_uuid();
        let mut anonymized = HashSet::new();
        for entry in &mut self.audit {
            if entry.records_use_by(user) {
                anonymized.insert(entry.position);
                *entry = entry.clone().anonymized();
            }
        }
        for row in &mut self.outbox {
            if anonymized.contains(&row.position) {
                row.resource = NOBODY;
            }
        }
    }

    /// The users `text` matches, in listing order.
    fn matching(&self, text: &SearchText) -> Vec<(UserCursor, &User)> {
        let mut found: Vec<(UserCursor, &User)> = self
            .users
            .values()
            .filter(|u| match (text.needle(), haystack(u)) {
                (None, _) => true,
                (Some(_), Some(hay)) => text.matches(&hay),
                (Some(_), None) => false,
            })
            .map(|u| (UserCursor::of(u), u))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    }

    /// `Conflict` if `group` would share its externalId with another group.
    fn check_unique_group(&self, group: &Group) -> Result<(), StoreError> {
        let Some(external) = &group.attributes().external_id else {
            return Ok(());
        };
        let taken = self.groups.values().any(|other| {
            other.id() != group.id() && other.attributes().external_id.as_ref() == Some(external)
        });
        if taken {
            return Err(StoreError::Conflict {
                field: ExternalId::FIELD,
            });
        }
        Ok(())
    }

    /// `Conflict` if `user` would share a unique key with another live user.
    fn check_unique(&self, user: &User) -> Result<(), StoreError> {
        let Some(profile) = user.profile() else {
            return Ok(());
        };
        let email = profile.email.key();
        let external = profile.external_id.as_ref().map(ExternalId::as_str);
        let name = profile.user_name.as_ref().map(UserName::key);
        for other in self.users.values() {
            if other.id() == user.id() {
                continue;
            }
            let Some(p) = other.profile() else { continue };
            if p.email.key() == email {
                return Err(StoreError::Conflict {
                    field: Email::FIELD,
                });
            }
            if external.is_some() && p.external_id.as_ref().map(ExternalId::as_str) == external {
                return Err(StoreError::Conflict {
                    field: ExternalId::FIELD,
                });
            }
            if name.is_some() && p.user_name.as_ref().map(UserName::key) == name {
                return Err(StoreError::Conflict {
                    field: UserName::FIELD,
                });
            }
        }
        Ok(())
    }
}

impl UserStore for MemoryStore {
    fn insert(&self, user: &User, by: &Attribution) -> Result<(), StoreError> {
        let mut state = self.lock();
        if state.users.contains_key(&user.id()) {
            return Err(StoreError::backend_message(format!(
                "user {} exists",
                user.id()
            )));
        }
        state.check_unique(user)?;
        state.users.insert(user.id(), user.clone());
        state.record(by, [user_created(user)]);
        Ok(())
    }

    fn get(&self, id: UserId) -> Result<Option<User>, StoreError> {
        Ok(self.lock().users.get(&id).cloned())
    }

    fn get_many(&self, ids: &[UserId]) -> Result<Vec<User>, StoreError> {
        let state = self.lock();
        Ok(ids
            .iter()
            .filter_map(|id| state.users.get(id).cloned())
            .collect())
    }

    fn get_by_key(&self, key: &UserKey) -> Result<Option<User>, StoreError> {
        Ok(self
            .lock()
            .users
            .values()
            .find(|u| {
                !u.status().is_deleted()
                    && u.profile()
                        .is_some_and(|p| key.matches(&p.email, p.external_id.as_ref()))
            })
            .cloned())
    }

    fn search(
        &self,
        text: &SearchText,
        offset: Offset,
        limit: Limit,
    ) -> Result<Vec<User>, StoreError> {
        Ok(self
            .lock()
            .matching(text)
            .into_iter()
            .skip(offset.get() as usize)
            .take(limit.get() as usize)
            .map(|(_, u)| u.clone())
            .collect())
    }

    fn search_after(
        &self,
        text: &SearchText,
        after: Option<&UserCursor>,
        limit: Limit,
    ) -> Result<UserPage, StoreError> {
        let users = self
            .lock()
            .matching(text)
            .into_iter()
            .filter(|(key, _)| after.is_none_or(|after| key > after))
            .take(limit.get() as usize + 1)
            .map(|(_, u)| u.clone())
            .collect();
        Ok(UserPage::of_one_more(users, limit))
    }

    fn filter(
        &self,
        filter: Option<&UserFilter>,
        skip: u64,
        count: u32,
    ) -> Result<FilteredUsers, StoreError> {
        let state = self.lock();
        let mut found: Vec<(UserCursor, &User)> = state
            .users
            .values()
            .filter(|u| match filter {
                Some(filter) => filter.matches(u),
                None => u.is_provisioned(),
            })
            .map(|u| (UserCursor::of(u), u))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let found: Vec<&User> = found.into_iter().map(|(_, u)| u).collect();
        Ok(FilteredUsers {
            total: found.len() as u64,
            users: found
                .into_iter()
                .skip(usize::try_from(skip).unwrap_or(usize::MAX))
                .take(count as usize)
                .cloned()
                .collect(),
        })
    }

    fn live_users(&self, users: &[UserId]) -> Result<Vec<UserId>, StoreError> {
        let state = self.lock();
        Ok(users
            .iter()
            .filter(|id| {
                state
                    .users
                    .get(id)
                    .is_some_and(|u| !u.status().is_deleted())
            })
            .copied()
            .collect())
    }

    fn modify(
        &self,
        id: UserId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut User) -> Result<(), UserError>,
    ) -> Result<User, ModifyError> {
        let mut state = self.lock();
        let mut user = state.users.get(&id).cloned().ok_or(ModifyError::NotFound)?;
        let version = user.version();
        change(&mut user).map_err(ModifyError::Rejected)?;
        let user = user.stored_at(version + 1);
        state.check_unique(&user)?;
        if let Some(old) = state.users.insert(id, user.clone()) {
            state.record(by, user_changes(&old, &user));
            let erasure = &mut StateErasure {
                state: &mut state,
                id,
                by,
            };
            let Ok(()) = user.erase_if_anonymized(&old, erasure);
        }
        Ok(user)
    }

    fn due_for_purge(&self, now: DateTime<Utc>, max: u32) -> Result<Vec<UserId>, StoreError> {
        let state = self.lock();
        let mut due: Vec<(DateTime<Utc>, UserId)> = state
            .users
            .values()
            .filter_map(|u| match u.status() {
                Status::PendingDeletion { scheduled_for } if scheduled_for <= now => {
                    Some((scheduled_for, u.id()))
                }
                _ => None,
            })
            .collect();
        due.sort();
        Ok(due
            .into_iter()
            .take(max as usize)
            .map(|(_, id)| id)
            .collect())
    }

    /// Nothing to do: an anonymized user's old values were dropped with the
    /// value `modify` replaced, and nothing is kept in files.
    fn compact_after_erasure(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

impl CredentialStore for MemoryStore {
    fn insert(&self, credential: &StoredCredential, by: &Attribution) -> Result<(), StoreError> {
        let mut state = self.lock();
        state.credentials.push(credential.clone());
        state.record(by, [credential_issued(credential.id)]);
        Ok(())
    }

    fn insert_first(
        &self,
        credential: &StoredCredential,
        by: &Attribution,
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        if state.credentials.iter().any(|c| c.kind == credential.kind) {
            return Ok(false);
        }
        state.credentials.push(credential.clone());
        state.record(by, [credential_issued(credential.id)]);
        Ok(true)
    }

    fn find(&self, kind: CredentialKind, id: Uuid) -> Result<Option<StoredCredential>, StoreError> {
        Ok(self
            .lock()
            .credentials
            .iter()
            .find(|c| c.kind == kind && c.id == id)
            .cloned())
    }

    fn list(&self, kind: CredentialKind) -> Result<Vec<StoredCredential>, StoreError> {
        let mut listed: Vec<StoredCredential> = self
            .lock()
            .credentials
            .iter()
            .filter(|c| c.kind == kind)
            .cloned()
            .collect();
        listed.sort_by_key(|c| (c.created, c.id));
        Ok(listed)
    }

    fn revoke(&self, kind: CredentialKind, id: Uuid, by: &Attribution) -> Result<bool, StoreError> {
        let mut state = self.lock();
        match state
            .credentials
            .iter_mut()
            .find(|c| c.kind == kind && c.id == id && c.revoked.is_none())
        {
            Some(c) => {
                c.revoked = Some(by.at);
                state.record(by, [credential_revoked(id)]);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl GroupStore for MemoryStore {
    fn insert_group(&self, group: &Group, by: &Attribution) -> Result<(), StoreError> {
        let mut state = self.lock();
        state.check_unique_group(group)?;
        state.groups.insert(group.id(), group.clone());
        state.record(by, [group_created(group)]);
        Ok(())
    }

    fn group(&self, id: GroupId) -> Result<Option<Group>, StoreError> {
        Ok(self.lock().groups.get(&id).cloned())
    }

    fn modify_group(
        &self,
        id: GroupId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut Group) -> Result<(), GroupError>,
    ) -> Result<Group, ModifyGroupError> {
        let mut state = self.lock();
        let mut group = state
            .groups
            .get(&id)
            .cloned()
            .ok_or(ModifyGroupError::NotFound)?;
        let version = group.version();
        change(&mut group).map_err(ModifyGroupError::Rejected)?;
        let group = group.stored_at(version + 1);
        state.check_unique_group(&group)?;
        if let Some(before) = state.groups.insert(id, group.clone()) {
            state.record(by, group_changed(&before, &group));
        }
        Ok(group)
    }

    fn delete_group(
        &self,
        id: GroupId,
        expected: Option<u64>,
        by: &Attribution,
    ) -> Result<(), ModifyGroupError> {
        let mut state = self.lock();
        let group = state.groups.get(&id).ok_or(ModifyGroupError::NotFound)?;
        if let Some(version) = expected {
            group
                .expect_version(version)
                .map_err(ModifyGroupError::Rejected)?;
        }
        state.groups.remove(&id);
        state.record(by, [group_deleted(id.as_uuid())]);
        Ok(())
    }

    fn groups(
        &self,
        filter: &GroupFilter,
        skip: u64,
        count: u32,
    ) -> Result<FilteredGroups, StoreError> {
        let state = self.lock();
        let mut found: Vec<&Group> = state
            .groups
            .values()
            .filter(|g| filter.matches(g))
            .collect();
        found.sort_by_key(|g| (g.attributes().display_name.key(), g.id()));
        Ok(FilteredGroups {
            total: found.len() as u64,
            groups: found
                .into_iter()
                .skip(usize::try_from(skip).unwrap_or(usize::MAX))
                .take(count as usize)
                .cloned()
                .collect(),
        })
    }

    fn groups_of(&self, users: &[UserId]) -> Result<HashMap<UserId, Vec<Membership>>, StoreError> {
        let state = self.lock();
        let mut found: Vec<&Group> = state.groups.values().collect();
        found.sort_by_key(|g| (g.attributes().display_name.key(), g.id()));
        let mut of: HashMap<UserId, Vec<Membership>> = HashMap::new();
        for group in found {
            for user in users {
                if group.attributes().members.contains(user) {
                    of.entry(*user).or_default().push(Membership {
                        group: group.id(),
                        display_name: group.attributes().display_name.clone(),
                        external_id: group.attributes().external_id.clone(),
                    });
                }
            }
        }
        Ok(of)
    }
}

impl AuditTrail for MemoryStore {
    fn audit_entries(&self, query: &AuditQuery, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        Ok(self
            .lock()
            .audit
            .iter()
            .rev()
            .filter(|entry| query.matches(entry))
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .cloned()
            .collect())
    }

    fn prune_audit(&self, before: DateTime<Utc>, max: u32) -> Result<u32, StoreError> {
        let mut state = self.lock();
        // An entry a delivery still waits for stays until it is delivered.
        let kept: std::collections::HashSet<u64> = state
            .audit
            .iter()
            .filter(|e| e.at < before && webhooks::awaited(&state, e.position))
            .map(|e| e.position)
            .collect();
        let mut pruned = 0;
        state.audit.retain(|entry| {
            let old = entry.at < before && pruned < max && !kept.contains(&entry.position);
            pruned += u32::from(old);
            !old
        });
        Ok(pruned)
    }
}
