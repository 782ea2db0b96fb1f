//! Failures of the database as the ports see them: a unique violation is
//! `StoreError::Conflict` naming the field its index guards (PostgreSQL
//! names the index, SQLite the columns); any other failure is
//! `StoreError::Backend`, which keeps the database's error as its source.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use kenning_domain::{Email, ExternalId};
use kenning_ports::StoreError;

/// Which public field a unique index guards.
fn conflicting_field(info: &dyn diesel::result::DatabaseErrorInformation) -> Option<&'static str> {
    // PostgreSQL names the index; SQLite only says which columns.
    let said = format!(
        "{} {}",
        info.constraint_name().unwrap_or_default(),
        info.message()
    );
    if said.contains("user_name_key") {
        Some(kenning_domain::UserName::FIELD)
    } else if said.contains("email_key") {
        Some(Email::FIELD)
    } else if said.contains("external_id") {
        Some(ExternalId::FIELD)
    } else {
        None
    }
}

/// A diesel failure as the ports see it.
pub(crate) fn store_error(error: DieselError) -> StoreError {
    let field = match &error {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            conflicting_field(info.as_ref())
        }
        _ => None,
    };
    match field {
        Some(field) => StoreError::Conflict { field },
        None => StoreError::backend(error),
    }
}

/// Whether a unique index refused the write.
pub(crate) fn is_unique_violation(error: &DieselError) -> bool {
    matches!(
        error,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)
    )
}
