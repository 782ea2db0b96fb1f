//! What a request executes with, shared by the root types and the objects.

use kenning_app::{ExpertiseService, Principal, UserService};
use kenning_domain::Scope;

use crate::error::ApiError;

/// What a request executes with: who is calling and the use cases.
#[derive(Debug, Clone)]
pub struct Context {
    pub principal: Principal,
    pub users: UserService,
    pub expertise: ExpertiseService,
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
        self.principal.require(Scope::ExpertiseRead)?;
        Ok(&self.expertise)
    }
}
