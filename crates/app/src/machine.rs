//! A script calling with a credential, once the credential was checked.

use kenning_domain::Scope;
use uuid::Uuid;

use crate::error::ServiceError;

/// A script calling with a credential (an access token or an API key),
/// once the credential was checked: the [`crate::Caller::Machine`] of a
/// request to GraphQL or SCIM, and the connector of an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The id of the credential that was presented.
    pub credential_id: Uuid,
    /// The name the credential was issued under.
    pub name: String,
    /// The scopes the credential carries.
    pub scopes: Vec<Scope>,
}

impl Machine {
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
