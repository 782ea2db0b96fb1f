//! Where groups live.

use std::collections::HashMap;

use kenning_domain::{
    Attribution, DisplayName, ExternalId, Group, GroupError, GroupFilter, GroupId, UserId,
};

use crate::errors::StoreError;

/// A page of the groups a [`GroupFilter`] asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilteredGroups {
    /// How many groups match in all.
    pub total: u64,
    /// The page, by name (without regard to case), then id.
    pub groups: Vec<Group>,
}

/// A group by its id and names, without its members: one a user belongs
/// to, or one offered to choose from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// The group.
    pub group: GroupId,
    /// Its name.
    pub display_name: DisplayName,
    /// Its id in the identity provider.
    pub external_id: Option<ExternalId>,
}

/// Why [`GroupStore::modify_group`] or
/// [`GroupStore::delete_group`] did not store a change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModifyGroupError {
    /// No group has the id.
    #[error("no group has this id")]
    NotFound,
    /// The change refused itself; nothing was written.
    #[error("{0}")]
    Rejected(GroupError),
    /// The store failed, or the change broke a unique key.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where groups live.
///
/// Contract (checked by the contract suite for every adapter):
/// - a group's externalId is unique among groups ([`StoreError::Conflict`]
///   on `externalId`, also when two writes race);
/// - [`modify_group`](GroupStore::modify_group) and
///   [`delete_group`](GroupStore::delete_group) are atomic per group;
/// - a user that is anonymized leaves every group in the same atomic step
///   (each group it left counts one version more);
/// - every write records what it changed in the audit trail
///   ([`crate::AuditTrail`]) under its [`Attribution`], in the same atomic
///   step ([`kenning_domain::group_created`], [`kenning_domain::group_changed`],
///   [`kenning_domain::group_deleted`]).
pub trait GroupStore: Send + Sync {
    /// Stores a new group with its members, made as `by` says.
    fn insert_group(&self, group: &Group, by: &Attribution) -> Result<(), StoreError>;
    /// The group with this id.
    fn group(&self, id: GroupId) -> Result<Option<Group>, StoreError>;
    /// Loads the group, lets `change` alter it and stores the result with
    /// one version more, as one atomic step; nothing is written when
    /// `change` refuses.
    fn modify_group(
        &self,
        id: GroupId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut Group) -> Result<(), GroupError>,
    ) -> Result<Group, ModifyGroupError>;
    /// Deletes the group (not its members), only if it is at version
    /// `expected` when given ([`ModifyGroupError::Rejected`] otherwise), as
    /// one atomic step.
    fn delete_group(
        &self,
        id: GroupId,
        expected: Option<u64>,
        by: &Attribution,
    ) -> Result<(), ModifyGroupError>;
    /// The groups `filter` asks for, by name then id, the first `skip` left
    /// out, at most `count`; with how many match in all.
    fn groups(
        &self,
        filter: &GroupFilter,
        skip: u64,
        count: u32,
    ) -> Result<FilteredGroups, StoreError>;
    /// The first `count` groups by name (without regard to case) then id,
    /// without their members: one read, whatever the groups' sizes.
    fn group_names(&self, count: u32) -> Result<Vec<Membership>, StoreError>;
    /// The groups each of `users` belongs to, by name then id, in one
    /// read however many users are asked for; a user in no group (or
    /// unknown) has no entry.
    fn groups_of(&self, users: &[UserId]) -> Result<HashMap<UserId, Vec<Membership>>, StoreError>;
}
