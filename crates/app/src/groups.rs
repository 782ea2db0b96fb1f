//! The group use cases: create, read, list, replace and delete groups of
//! users.

use std::collections::HashMap;
use std::sync::Arc;

use kenning_domain::{
    Actor, Attribution, Email, FieldViolation, Group, GroupAttributes, GroupError, GroupFilter,
    GroupId, GroupInput, Rule, UserId, UserKey, ValidationErrors,
};
use kenning_ports::{Clock, FilteredGroups, GroupStore, Membership, ModifyGroupError, UserStore};
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::administrators::Administrators;
use crate::error::{Missing, Resource, ServiceError};
use crate::stale::retry_stale;

/// Creates, reads, changes and deletes groups.
#[derive(Clone)]
pub struct GroupService {
    groups: Arc<dyn GroupStore>,
    users: Arc<dyn UserStore>,
    clock: Arc<dyn Clock>,
    /// Who the changes made through this service are recorded as made by.
    actor: Actor,
    /// Who calls: each use case asks whether they may.
    caller: Caller,
    /// Who administers Kenning: their group's members and external id are
    /// changed only by a caller who may change who administers.
    administrators: Administrators,
}

impl std::fmt::Debug for GroupService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupService")
            .field("actor", &self.actor)
            .finish_non_exhaustive()
    }
}

impl From<ModifyGroupError> for ServiceError {
    fn from(e: ModifyGroupError) -> Self {
        match e {
            ModifyGroupError::NotFound => ServiceError::NotFound(Missing::Group),
            ModifyGroupError::Rejected(GroupError::Forbidden(why)) => ServiceError::Forbidden(why),
            ModifyGroupError::Rejected(_) => ServiceError::StaleVersion {
                resource: Resource::Group,
            },
            ModifyGroupError::Store(e) => ServiceError::of_store(Resource::Group, e),
        }
    }
}

impl GroupService {
    /// The service over `groups`, whose members are `users`; `clock` says
    /// when groups change. Its changes are recorded as made by
    /// [`Actor::embedded`] until [`acting_as`](Self::acting_as) names
    /// someone, and it serves the operator until
    /// [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(
        groups: Arc<dyn GroupStore>,
        users: Arc<dyn UserStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            groups,
            users,
            clock,
            actor: Actor::embedded(),
            caller: Caller::operator(),
            administrators: Administrators::nobody(),
        }
    }

    /// The service guarding the group of `administrators` (none until
    /// given).
    #[must_use]
    pub fn with_administrators(mut self, administrators: Administrators) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        self.administrators = administrators;
        self
    }

    /// The same service, its changes recorded in the audit trail as made
    /// by `actor`.
    pub fn acting_as(&self, actor: Actor) -> Self {
        if !self.caller.is_operator() {
            return self.clone();
        }
        Self {
            actor,
            ..self.clone()
        }
    }

    /// The same service for `caller`: each use case refuses what they may
    /// not do (reading groups needs `users:read`, and a person may read
    /// them; changing them needs `users:write`).
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// A change made now by this service's actor.
    fn attribution(&self) -> Attribution {
        Attribution::new(self.actor.clone(), self.clock.now())
    }

    /// The attributes `input` gives, every member a user that is not
    /// deleted (`ValidationError` on `members` otherwise).
    fn attributes(&self, input: GroupInput) -> Result<GroupAttributes, ServiceError> {
        let attributes = GroupAttributes::parse(input)?;
        let members: Vec<_> = attributes.members.iter().copied().collect();
        let live = self.users.live_users(&members)?;
        if live.len() < members.len() {
            return Err(
                ValidationErrors::from(FieldViolation::new("members", Rule::NotAUser)).into(),
            );
        }
        Ok(attributes)
    }

    /// `Conflict` on `externalId` when the external id `attributes` give
    /// group `own` (`None`: a new group) is another group's id: a group
    /// named by id ([`crate::AdministratorsGroup`]) would then have a
    /// look-alike, and the name of the administrators' group must stay
    /// one group's. Group ids are never reused, so the check holds.
    fn refuse_another_groups_id(
        &self,
        own: Option<GroupId>,
        attributes: &GroupAttributes,
    ) -> Result<(), ServiceError> {
        let Some(external) = &attributes.external_id else {
            return Ok(());
        };
        let Ok(uuid) = Uuid::try_parse(external.as_str().trim()) else {
            return Ok(());
        };
        let named = GroupId::from_uuid(uuid);
        if own != Some(named) && self.groups.group(named)?.is_some() {
            return Err(ServiceError::Conflict {
                resource: Resource::Group,
                field: "externalId",
            });
        }
        Ok(())
    }

    /// A new group.
    pub fn create(&self, input: GroupInput) -> Result<Group, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let attributes = self.attributes(input)?;
        self.refuse_another_groups_id(None, &attributes)?;
        self.administrators
            .guard_group_change(&self.caller, None, Some(&attributes))?;
        let by = self.attribution();
        let group = Group::create(GroupId::from_uuid(Uuid::new_v4()), attributes, by.at);
        self.groups
            .insert_group(&group, &by)
            .map_err(|e| ServiceError::of_store(Resource::Group, e))?;
        Ok(group)
    }

    /// The group with this id; `NotFound` when there is none.
    pub fn get(&self, id: GroupId) -> Result<Group, ServiceError> {
        self.caller.require(Operation::ReadGroups)?;
        self.read(id)
    }

    fn read(&self, id: GroupId) -> Result<Group, ServiceError> {
        self.groups
            .group(id)?
            .ok_or(ServiceError::NotFound(Missing::Group))
    }

    /// The groups `filter` asks for, by name then id, the first `skip` left
    /// out, at most `count`; with how many match in all.
    pub fn list(
        &self,
        filter: &GroupFilter,
        skip: u64,
        count: u32,
    ) -> Result<FilteredGroups, ServiceError> {
        self.caller.require(Operation::ReadGroups)?;
        Ok(self.groups.groups(filter, skip, count)?)
    }

    /// Makes the group's name, external id and members what `input` says,
    /// in one atomic step, only if the group is still at version
    /// `expected` (when given; `StaleVersion` otherwise).
    pub fn replace(
        &self,
        id: GroupId,
        expected: Option<u64>,
        input: GroupInput,
    ) -> Result<Group, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let attributes = self.attributes(input)?;
        self.refuse_another_groups_id(Some(id), &attributes)?;
        let by = self.attribution();
        Ok(self.groups.modify_group(id, &by, &mut |group| {
            if let Some(version) = expected {
                group.expect_version(version)?;
            }
            self.administrators
                .guard_group_change(&self.caller, Some(group), Some(&attributes))
                .map_err(|refused| GroupError::Forbidden(refused.to_string()))?;
            group.replace(attributes.clone(), by.at);
            Ok(())
        })?)
    }

    /// Changes the group into what `change` makes of it as read (SCIM's
    /// `PATCH`): `change` sees the group as stored and answers its new
    /// attributes, which replace it ([`replace`](Self::replace)) only at
    /// the version read, so a change made meanwhile is never overwritten
    /// with what was read before it. With `expected`, a group at another
    /// version is `StaleVersion`; without, a group that changed between
    /// the read and the write is read and changed again, up to
    /// [`PATCH_ATTEMPTS`](crate::PATCH_ATTEMPTS) reads. An error of `change` ends it.
    pub fn patch<E: From<ServiceError>>(
        &self,
        id: GroupId,
        expected: Option<u64>,
        mut change: impl FnMut(&Group) -> Result<GroupInput, E>,
    ) -> Result<Group, E> {
        self.caller.require(Operation::WriteUsers)?;
        retry_stale(expected, || {
            let current = self.read(id)?;
            let input = change(&current)?;
            let version = expected.unwrap_or(current.version());
            Ok(self.replace(id, Some(version), input))
        })
    }

    /// Adds the user whose e-mail address is `email` to the group `id`,
    /// as [`patch`](Self::patch) changes it (a member already stays one):
    /// `ValidationError` on `email` when it is no address, `NotFound` of
    /// a user when no user has it (a deleted user has none, and is in no
    /// group).
    pub fn add_member_by_email(&self, id: GroupId, email: &str) -> Result<Group, ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        let email = Email::parse(email).map_err(ValidationErrors::from)?;
        let user = self
            .users
            .get_by_key(&UserKey::Email(email))?
            .ok_or(ServiceError::NotFound(Missing::User))?;
        let member = user.id().as_uuid().to_string();
        self.patch(id, None, |group: &Group| {
            let mut input = GroupInput::from(group);
            if !input.members.contains(&member) {
                input.members.push(member.clone());
            }
            Ok::<_, ServiceError>(input)
        })
    }

    /// Takes `member` out of the group `id`, as [`patch`](Self::patch)
    /// changes it (one who is not a member: nothing changes).
    pub fn remove_member(&self, id: GroupId, member: UserId) -> Result<Group, ServiceError> {
        let member = member.as_uuid().to_string();
        self.patch(id, None, |group: &Group| {
            let mut input = GroupInput::from(group);
            input.members.retain(|m| *m != member);
            Ok::<_, ServiceError>(input)
        })
    }

    /// The first `count` groups by name then id, their names without
    /// their members: what a choice of groups offers.
    pub fn names(&self, count: u32) -> Result<Vec<Membership>, ServiceError> {
        self.caller.require(Operation::ReadGroups)?;
        Ok(self.groups.group_names(count)?)
    }

    /// The groups `user` belongs to, by name then id.
    pub fn groups_of(&self, user: UserId) -> Result<Vec<Membership>, ServiceError> {
        self.caller.require(Operation::ReadGroups)?;
        Ok(self
            .groups
            .groups_of(&[user])?
            .remove(&user)
            .unwrap_or_default())
    }

    /// The groups each of `users` belongs to, by name then id, in one
    /// read; a user in no group has no entry.
    pub fn groups_of_all(
        &self,
        users: &[UserId],
    ) -> Result<HashMap<UserId, Vec<Membership>>, ServiceError> {
        self.caller.require(Operation::ReadGroups)?;
        Ok(self.groups.groups_of(users)?)
    }

    /// Deletes the group (its members stay users), only if it is at
    /// version `expected` when given, in one atomic step.
    pub fn delete(&self, id: GroupId, expected: Option<u64>) -> Result<(), ServiceError> {
        self.caller.require(Operation::WriteUsers)?;
        // The administrators' group is named by its id or its external id,
        // and neither can become another group's without this guard: what
        // is read here is still it when deleted.
        let group = self.read(id)?;
        self.administrators
            .guard_group_change(&self.caller, Some(&group), None)?;
        Ok(self
            .groups
            .delete_group(id, expected, &self.attribution())?)
    }
}
