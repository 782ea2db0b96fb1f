//! The credential store: tokens and API keys, each kept with the hash of
//! its secret, never the secret, and its scopes space-separated.
//!
//! `insert_first` stores the first credential of a kind only while the kind
//! has none; a unique index on first credentials keeps two instances that
//! start together from both storing one. An issue and a revocation each
//! record their audit entry in their transaction.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::{
    credential_issued, credential_revoked, Attribution, CredentialKind, Scope, UserId,
};
use kenning_ports::{CredentialStore, StoreError, StoredCredential};
use uuid::Uuid;

use crate::connection::TxError;
use crate::database::Database;
use crate::errors::is_unique_violation;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::credentials;

/// A credential as stored; scopes are kept space-separated.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = credentials)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct CredentialRow {
    id: String,
    kind: String,
    name: String,
    scopes: String,
    secret_hash: String,
    created: NaiveDateTime,
    revoked: Option<NaiveDateTime>,
    first_of_kind: bool,
    issued_by: Option<String>,
    expires: Option<NaiveDateTime>,
}

impl CredentialRow {
    fn new(credential: &StoredCredential, first_of_kind: bool) -> Self {
        Self {
            id: credential.id.to_string(),
            kind: credential.kind.as_str().to_owned(),
            name: credential.name.clone(),
            scopes: credential
                .scopes
                .iter()
                .map(Scope::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            secret_hash: credential.secret_hash.clone(),
            created: to_db_time(credential.created),
            revoked: credential.revoked.map(to_db_time),
            first_of_kind,
            issued_by: credential.issued_by.map(|user| user.to_string()),
            expires: credential.expires.map(to_db_time),
        }
    }

    fn into_credential(self) -> Result<StoredCredential, StoreError> {
        let corrupt = |what: &str| {
            StoreError::backend_message(format!(
                "stored credential {} has an invalid {what}",
                self.id
            ))
        };
        let kind = match self.kind.as_str() {
            "token" => CredentialKind::AccessToken,
            "apikey" => CredentialKind::ApiKey,
            _ => return Err(corrupt("kind")),
        };
        let scopes = self
            .scopes
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<Scope>, _>>()
            .map_err(|_| corrupt("scope"))?;
        let issued_by = self
            .issued_by
            .as_deref()
            .map(|id| Uuid::parse_str(id).map(UserId::from_uuid))
            .transpose()
            .map_err(|_| corrupt("issuer"))?;
        Ok(StoredCredential {
            id: Uuid::parse_str(&self.id).map_err(|_| corrupt("id"))?,
            kind,
            name: self.name,
            scopes,
            secret_hash: self.secret_hash,
            created: from_db_time(self.created),
            revoked: self.revoked.map(from_db_time),
            issued_by,
            expires: self.expires.map(from_db_time),
        })
    }
}

impl CredentialStore for Database {
    fn insert(&self, credential: &StoredCredential, by: &Attribution) -> Result<(), StoreError> {
        let row = CredentialRow::new(credential, false);
        self.write(|conn| {
            diesel::insert_into(credentials::table)
                .values(&row)
                .execute(conn)?;
            crate::audit::record(conn, by, &[credential_issued(credential.id)])
                .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn insert_first(
        &self,
        credential: &StoredCredential,
        by: &Attribution,
    ) -> Result<bool, StoreError> {
        let row = CredentialRow::new(credential, true);
        let stored: Result<bool, TxError> = self.write(|conn| {
            let existing: i64 = credentials::table
                .filter(credentials::kind.eq(&row.kind))
                .count()
                .get_result(conn)?;
            if existing > 0 {
                return Ok(false);
            }
            diesel::insert_into(credentials::table)
                .values(&row)
                .execute(conn)?;
            crate::audit::record(conn, by, &[credential_issued(credential.id)])?;
            Ok(true)
        });
        match stored {
            // Another instance stored its first credential in between; the
            // unique index on first credentials refused this one.
            Err(TxError::Db(error)) if is_unique_violation(&error) => Ok(false),
            other => Ok(other?),
        }
    }

    fn find(&self, kind: CredentialKind, id: Uuid) -> Result<Option<StoredCredential>, StoreError> {
        let row: Option<CredentialRow> = self.read(|conn| {
            credentials::table
                .filter(credentials::kind.eq(kind.as_str()))
                .filter(credentials::id.eq(id.to_string()))
                .select(CredentialRow::as_select())
                .first(conn)
                .optional()
        })?;
        row.map(CredentialRow::into_credential).transpose()
    }

    fn list(&self, kind: CredentialKind) -> Result<Vec<StoredCredential>, StoreError> {
        let rows: Vec<CredentialRow> = self.read(|conn| {
            credentials::table
                .filter(credentials::kind.eq(kind.as_str()))
                .order((credentials::created.asc(), credentials::id.asc()))
                .select(CredentialRow::as_select())
                .load(conn)
        })?;
        rows.into_iter()
            .map(CredentialRow::into_credential)
            .collect()
    }

    fn revoke(&self, kind: CredentialKind, id: Uuid, by: &Attribution) -> Result<bool, StoreError> {
        let now = to_db_time(by.at);
        let changed = self.write(|conn| {
            let changed = diesel::update(
                credentials::table
                    .filter(credentials::kind.eq(kind.as_str()))
                    .filter(credentials::id.eq(id.to_string()))
                    .filter(credentials::revoked.is_null()),
            )
            .set(credentials::revoked.eq(now))
            .execute(conn)?;
            if changed == 1 {
                crate::audit::record(conn, by, &[credential_revoked(id)])?;
            }
            Ok::<_, TxError>(changed)
        })?;
        Ok(changed == 1)
    }
}
