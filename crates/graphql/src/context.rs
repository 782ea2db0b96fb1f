//! What a request executes with, shared by the root types and the objects.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use juniper::{DefaultScalarValue, Executor, LookAheadSelection};
use kenning_app::{Gate, Machine, ServiceError, UseCases};
use kenning_domain::{Actor, Channel, User, UserId};
use kenning_ports::Membership;

use crate::error::ApiError;

/// What a request executes with: the use cases as the caller calls them
/// (each refuses what the caller's scopes do not allow, their changes
/// recorded as the caller's), and the largest offset `users` accepts (the
/// schema's [`crate::Limits::max_offset`]).
#[derive(Debug, Clone)]
pub struct Context {
    pub(crate) use_cases: UseCases,
    pub max_offset: u32,
    read_ahead: Arc<ReadAhead>,
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
    /// A request's context: `machine` calling the use cases behind
    /// `gate`, its changes recorded as made by its credential through
    /// GraphQL. `Unauthenticated` when `machine` is no access token.
    pub fn new(machine: Machine, gate: &Gate, max_offset: u32) -> Result<Self, ServiceError> {
        let actor = Actor::credential(machine.credential_id(), machine.name(), Channel::GraphQl);
        Ok(Self {
            use_cases: gate.called_by(gate.for_token(machine)?, actor),
            max_offset,
            read_ahead: Arc::default(),
        })
    }

    /// Reads the people `ids` an answer names in one batch, for
    /// [`person`](Self::person) to answer from.
    pub(crate) fn read_people_ahead(&self, ids: &[UserId]) -> Result<(), ApiError> {
        let found = self.use_cases.expertise.people(ids)?;
        lock(&self.read_ahead.users).extend(found.into_iter().map(|u| (u.id(), u)));
        Ok(())
    }

    /// The person `id` an answer names: read ahead, or read now.
    pub(crate) fn person(&self, id: UserId) -> Result<User, ApiError> {
        match lock(&self.read_ahead.users).remove(&id) {
            Some(user) => Ok(user),
            None => Ok(self.use_cases.expertise.person(id)?),
        }
    }

    /// Reads the groups of the users `ids` in one batch, for
    /// [`groups_of`](Self::groups_of) to answer from, when the caller may
    /// read groups at all.
    pub(crate) fn read_groups_ahead(&self, ids: &[UserId]) -> Result<(), ApiError> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut found = match self.use_cases.groups.groups_of_all(ids) {
            Ok(found) => found,
            // Not for this caller: each user's `groups` says so.
            Err(ServiceError::Forbidden(_)) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
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
            None => Ok(self.use_cases.groups.groups_of(id)?),
        }
    }
}
