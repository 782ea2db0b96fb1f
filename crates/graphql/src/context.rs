//! What a request executes with, shared by the root types and the objects.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use juniper::{DefaultScalarValue, Executor, LookAheadSelection};
use kenning_app::{
    AuditService, Caller, ExpertiseService, GroupService, Operation, Principal, PrivacyService,
    UserService, WebhookService,
};
use kenning_domain::{Actor, Channel, User, UserId};
use kenning_ports::Membership;

use crate::error::ApiError;

/// What a request executes with: who is calling, the use cases (their
/// changes recorded as the caller's), and the largest offset `users`
/// accepts (the schema's [`crate::Limits::max_offset`]).
#[derive(Debug, Clone)]
pub struct Context {
    /// Who is calling, as `app` decides what it may do.
    pub caller: Caller,
    pub users: UserService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub audit: AuditService,
    pub webhooks: WebhookService,
    pub privacy: PrivacyService,
    pub max_offset: u32,
    read_ahead: Arc<ReadAhead>,
}

/// The use cases a request calls, as the server set them up.
#[derive(Debug, Clone)]
pub struct Services {
    pub users: UserService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub audit: AuditService,
    pub webhooks: WebhookService,
    pub privacy: PrivacyService,
}

/// What a list's resolver read for its items' fields in one batch, each
/// entry taken by the field it was read for: the users of `experts`, the
/// groups of the users of a listing.
#[derive(Debug, Default)]
struct ReadAhead {
    users: Mutex<HashMap<UserId, User>>,
    groups: Mutex<HashMap<UserId, Vec<Membership>>>,
}

/// Whether the field `executor` resolves selects the fields `path` below
/// it, one level a name (under any alias).
pub(crate) fn asks_for(executor: &Executor<'_, '_, Context>, path: &[&str]) -> bool {
    fn below(selection: LookAheadSelection<'_, DefaultScalarValue>, path: &[&str]) -> bool {
        match path.split_first() {
            None => true,
            Some((name, rest)) => selection
                .children()
                .iter()
                .any(|child| child.field_original_name() == *name && below(*child, rest)),
        }
    }
    below(executor.look_ahead(), path)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each entry is inserted whole: a panic cannot leave half of one.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl juniper::Context for Context {}

impl Context {
    /// A request's context: `principal` calling the use cases, whose
    /// changes are recorded as made by its credential through GraphQL.
    pub fn new(principal: Principal, services: Services, max_offset: u32) -> Self {
        let actor = Actor::credential(principal.credential_id, &principal.name, Channel::GraphQl);
        Self {
            caller: Caller::Machine(principal),
            users: services.users.acting_as(actor.clone()),
            groups: services.groups.acting_as(actor.clone()),
            expertise: services.expertise.acting_as(actor.clone()),
            privacy: services.privacy.acting_as(actor),
            audit: services.audit,
            webhooks: services.webhooks,
            max_offset,
            read_ahead: Arc::default(),
        }
    }

    /// Reads the users `ids` in one batch, for [`user`](Self::user) to
    /// answer from.
    pub(crate) fn read_users_ahead(&self, ids: &[UserId]) -> Result<(), ApiError> {
        let found = self.users.get_many(ids)?;
        lock(&self.read_ahead.users).extend(found.into_iter().map(|u| (u.id(), u)));
        Ok(())
    }

    /// The user `id`: read ahead, or read now.
    pub(crate) fn user(&self, id: UserId) -> Result<User, ApiError> {
        match lock(&self.read_ahead.users).remove(&id) {
            Some(user) => Ok(user),
            None => Ok(self.users.get(id)?),
        }
    }

    /// Reads the groups of the users `ids` in one batch, for
    /// [`groups_of`](Self::groups_of) to answer from, when the caller may
    /// read groups at all.
    pub(crate) fn read_groups_ahead(&self, ids: &[UserId]) -> Result<(), ApiError> {
        if self.caller.require(Operation::ReadGroups).is_err() || ids.is_empty() {
            return Ok(());
        }
        let mut found = self.groups.groups_of_all(ids)?;
        let mut ahead = lock(&self.read_ahead.groups);
        for id in ids {
            ahead.insert(*id, found.remove(id).unwrap_or_default());
        }
        Ok(())
    }

    /// The groups of user `id`: read ahead, or read now.
    pub(crate) fn groups_of(&self, id: UserId) -> Result<Vec<Membership>, ApiError> {
        match lock(&self.read_ahead.groups).remove(&id) {
            Some(groups) => Ok(groups),
            None => Ok(self.groups.groups_of(id)?),
        }
    }

    /// The user use cases, if the caller may do `operation` (as
    /// [`Caller::require`] decides); otherwise the scope error.
    pub(crate) fn allow(&self, operation: Operation) -> Result<&UserService, ApiError> {
        self.caller.require(operation)?;
        Ok(&self.users)
    }

    /// The audit trail, if the caller may read it; otherwise the scope
    /// error.
    pub(crate) fn audit(&self) -> Result<&AuditService, ApiError> {
        self.caller.require(Operation::ReadAudit)?;
        Ok(&self.audit)
    }

    /// The webhook use cases, if the caller may manage them; otherwise
    /// the scope error.
    pub(crate) fn webhooks(&self) -> Result<&WebhookService, ApiError> {
        self.caller.require(Operation::ManageWebhooks)?;
        Ok(&self.webhooks)
    }

    /// The privacy use cases, if the caller may do `operation`; otherwise
    /// the scope error.
    pub(crate) fn privacy(&self, operation: Operation) -> Result<&PrivacyService, ApiError> {
        self.caller.require(operation)?;
        Ok(&self.privacy)
    }

    /// The expertise use cases, if the caller may read expertise;
    /// otherwise the scope error.
    pub(crate) fn expertise(&self) -> Result<&ExpertiseService, ApiError> {
        self.expertise_for(Operation::ReadExpertise)
    }

    /// The expertise use cases, if the caller may do `operation` (as
    /// [`Caller::require`] decides); otherwise the scope error.
    pub(crate) fn expertise_for(
        &self,
        operation: Operation,
    ) -> Result<&ExpertiseService, ApiError> {
        self.caller.require(operation)?;
        Ok(&self.expertise)
    }
}
