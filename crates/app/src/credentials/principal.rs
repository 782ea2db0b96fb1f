//! Who is calling, once a credential has been checked.

use kenning_domain::Scope;
use uuid::Uuid;

use crate::error::ServiceError;

/// Who is calling, once a credential has been checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The id of the credential that was presented.
    pub credential_id: Uuid,
    /// The name the credential was issued under.
    pub name: String,
    /// The scopes the credential carries.
    pub scopes: Vec<Scope>,
}

impl Principal {
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
