//! What a request executes with, shared by the root types and the objects.

use kenning_app::{ExpertiseService, GroupService, Principal, UserService};
use kenning_domain::Scope;

use crate::error::ApiError;

/// What a request executes with: who is calling, the use cases, and the
/// largest offset `users` accepts (the schema's [`crate::Limits::max_offset`]).
#[derive(Debug, Clone)]
pub struct Context {
    pub principal: Principal,
    pub users: UserService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub max_offset: u32,
}

impl juniper::Context for Context {}

impl Context {
    /// The user use cases, if the caller holds `scope`; otherwise the
    /// scope error.
    pub(crate) fn allow(&self, scope: Scope) -> Result<&UserService, ApiError> {
        self.principal.require(scope)?;
        Ok(&self.users)
    }

    /// The expertise use cases, if the caller holds `expertise:read`;
    /// otherwise the scope error.
    pub(crate) fn expertise(&self) -> Result<&ExpertiseService, ApiError> {
        self.expertise_with(Scope::ExpertiseRead)
    }

    /// The expertise use cases, if the caller holds `scope` (a change to
    /// a person's profile asks `users:write`); otherwise the scope error.
    pub(crate) fn expertise_with(&self, scope: Scope) -> Result<&ExpertiseService, ApiError> {
        self.principal.require(scope)?;
        Ok(&self.expertise)
    }
}
