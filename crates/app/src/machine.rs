//! A script calling with a credential, once the credential was checked.

use kenning_domain::{CredentialKind, Scope};
use uuid::Uuid;

use crate::error::ServiceError;

/// A script calling with a credential (an access token or an API key),
/// once the credential was checked: only
/// [`crate::Gate::authenticate`] makes one, so a door holds a machine
/// only for a credential someone presented. The gate makes it the caller
/// of a request to GraphQL or SCIM ([`crate::Gate::for_token`]) or the
/// connector of an upload ([`crate::Gate::connector`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    kind: CredentialKind,
    credential_id: Uuid,
    name: String,
    scopes: Vec<Scope>,
}

impl Machine {
    /// The machine of the credential `credential_id` of `kind`, issued
    /// under `name` with `scopes`, once checked.
    pub(crate) fn checked(
        kind: CredentialKind,
        credential_id: Uuid,
        name: String,
        scopes: Vec<Scope>,
    ) -> Self {
        Self {
            kind,
            credential_id,
            name,
            scopes,
        }
    }

    /// Whether the credential presented was an access token or an API
    /// key.
    pub fn kind(&self) -> CredentialKind {
        self.kind
    }

    /// The id of the credential that was presented.
    pub fn credential_id(&self) -> Uuid {
        self.credential_id
    }

    /// The name the credential was issued under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The scopes the credential carries.
    pub fn scopes(&self) -> &[Scope] {
        &self.scopes
    }

    /// `Forbidden` unless the credential carries `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ServiceError> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(ServiceError::Forbidden(format!(
                "this operation needs the scope {scope}"
            )))
        }
    }
}
