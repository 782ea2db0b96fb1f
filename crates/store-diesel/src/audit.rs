//! The audit trail on disk: each write of a user, a group or a credential
//! records its changes here in its own transaction ([`record`]), and
//! [`AuditTrail`] reads them back, newest first, and prunes old ones.
//!
//! A write that is refused or rolled back records nothing. [`record`] also
//! queues each change for the webhooks ([`crate::outbox`]). An entry's
//! position is never reused (SQLite `AUTOINCREMENT`, PostgreSQL
//! `BIGSERIAL`), so a position serves as a cursor. Reads filter in SQL;
//! pruning deletes the oldest entries first, a bounded step at a time, and
//! keeps those a webhook delivery still waits for.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use kenning_domain::{Actor, Attribution, AuditEntry, Change, ChangeKind, Channel, NOBODY};
use kenning_ports::{AuditQuery, AuditTrail, StoreError};
use uuid::Uuid;

use crate::connection::{DbConnection, TxError};
use crate::database::Database;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{audit_entries, webhook_outbox};

/// How the field names of a change are kept: one text, comma-separated
/// (field names hold no commas).
const FIELD_SEPARATOR: &str = ",";

#[derive(Debug, Insertable)]
#[diesel(table_name = audit_entries)]
struct NewEntryRow<'a> {
    at: chrono::NaiveDateTime,
    kind: &'static str,
    resource_id: String,
    credential_id: Option<String>,
    actor_name: &'a str,
    channel: &'static str,
    fields: String,
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = audit_entries)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct EntryRow {
    position: i64,
    at: chrono::NaiveDateTime,
    kind: String,
    resource_id: String,
    credential_id: Option<String>,
    actor_name: String,
    channel: String,
    fields: String,
}

fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::backend_message(format!("stored audit entry has an invalid {what}: {value}"))
}

impl EntryRow {
    fn into_entry(self) -> Result<AuditEntry, StoreError> {
        let uuid = |what: &str, raw: &str| Uuid::parse_str(raw).map_err(|_| corrupt(what, raw));
        let channel = Channel::ALL
            .into_iter()
            .find(|c| c.as_str() == self.channel)
            .ok_or_else(|| corrupt("channel", &self.channel))?;
        let kind: ChangeKind = self.kind.parse().map_err(|_| corrupt("kind", &self.kind))?;
        Ok(AuditEntry {
            position: u64::try_from(self.position)
                .map_err(|_| corrupt("position", &self.position.to_string()))?,
            at: from_db_time(self.at),
            actor: Actor {
                credential_id: self
                    .credential_id
                    .as_deref()
                    .map(|raw| uuid("credential id", raw))
                    .transpose()?,
                name: self.actor_name,
                channel,
            },
            change: Change {
                kind,
                resource_id: uuid("resource id", &self.resource_id)?,
                fields: self
                    .fields
                    .split(FIELD_SEPARATOR)
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned)
                    .collect(),
            },
        })
    }
}

/// The audit entries at `positions`, in no particular order; those
/// pruned meanwhile are missing.
pub(crate) fn entries_at(
    conn: &mut DbConnection,
    positions: &[i64],
) -> Result<Vec<AuditEntry>, StoreError> {
    let rows: Vec<EntryRow> = audit_entries::table
        .filter(audit_entries::position.eq_any(positions))
        .select(EntryRow::as_select())
        .load(conn)
        .map_err(crate::errors::store_error)?;
    rows.into_iter().map(EntryRow::into_entry).collect()
}

/// Records `changes`, made as `by` says, in the transaction of `conn`, and
/// queues each for the webhook subscriptions that want it.
pub(crate) fn record(
    conn: &mut DbConnection,
    by: &Attribution,
    changes: &[Change],
) -> QueryResult<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let credential_id = by.actor.credential_id.map(|id| id.to_string());
    let rows: Vec<NewEntryRow> = changes
        .iter()
        .map(|change| NewEntryRow {
            at: to_db_time(by.at),
            kind: change.kind.as_str(),
            resource_id: change.resource_id.to_string(),
            credential_id: credential_id.clone(),
            actor_name: &by.actor.name,
            channel: by.actor.channel.as_str(),
            fields: change.fields.join(FIELD_SEPARATOR),
        })
        .collect();
    for (row, change) in rows.iter().zip(changes) {
        diesel::insert_into(audit_entries::table)
            .values(row)
            .execute(conn)?;
        crate::outbox::enqueue(conn, change, by.at)?;
    }
    Ok(())
}

/// Makes the entries of the own use of Kenning of the user `key` (as
/// stored; her sign-ins and sign-outs, see
/// [`AuditEntry::records_use_by`]) name nobody, as
/// [`AuditEntry::anonymized`] says, in the transaction of `conn`; their
/// deliveries in the outbox are then ordered as nobody's.
pub(crate) fn anonymize_use(conn: &mut DbConnection, key: &str) -> QueryResult<()> {
    let kinds: Vec<&str> = ChangeKind::ALL
        .into_iter()
        .filter(ChangeKind::records_personal_use)
        .map(|kind| kind.as_str())
        .collect();
    let positions: Vec<i64> = audit_entries::table
        .filter(audit_entries::resource_id.eq(key))
        .filter(audit_entries::kind.eq_any(&kinds))
        .select(audit_entries::position)
        .load(conn)?;
    if positions.is_empty() {
        return Ok(());
    }
    let nobody = Actor::anonymous();
    diesel::update(audit_entries::table.filter(audit_entries::position.eq_any(&positions)))
        .set((
            audit_entries::resource_id.eq(NOBODY.to_string()),
            audit_entries::credential_id.eq(None::<String>),
            audit_entries::actor_name.eq(&nobody.name),
            audit_entries::channel.eq(nobody.channel.as_str()),
        ))
        .execute(conn)?;
    diesel::update(webhook_outbox::table.filter(webhook_outbox::position.eq_any(&positions)))
        .set(webhook_outbox::resource_id.eq(NOBODY.to_string()))
        .execute(conn)?;
    Ok(())
}

impl AuditTrail for Database {
    fn audit_entries(&self, query: &AuditQuery, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        let rows: Vec<EntryRow> = self.read(|conn| {
            let mut q = audit_entries::table.into_boxed();
            if let Some(before) = query.before {
                q = q.filter(audit_entries::position.lt(i64::try_from(before).unwrap_or(i64::MAX)));
            }
            if let Some(id) = query.resource_id {
                q = q.filter(audit_entries::resource_id.eq(id.to_string()));
            }
            if let Some(id) = query.credential_id {
                q = q.filter(audit_entries::credential_id.eq(id.to_string()));
            }
            if let Some(kind) = query.resource_kind {
                let names: Vec<&str> = ChangeKind::ALL
                    .into_iter()
                    .filter(|k| k.resource() == kind)
                    .map(|k| k.as_str())
                    .collect();
                q = q.filter(audit_entries::kind.eq_any(names));
            }
            if !query.kinds.is_empty() {
                let names: Vec<&str> = query.kinds.iter().map(ChangeKind::as_str).collect();
                q = q.filter(audit_entries::kind.eq_any(names));
            }
            if let Some(from) = query.from {
                q = q.filter(audit_entries::at.ge(to_db_time(from)));
            }
            if let Some(until) = query.until {
                q = q.filter(audit_entries::at.lt(to_db_time(until)));
            }
            q.order(audit_entries::position.desc())
                .limit(i64::from(limit))
                .select(EntryRow::as_select())
                .load(conn)
        })?;
        rows.into_iter().map(EntryRow::into_entry).collect()
    }

    fn prune_audit(&self, before: DateTime<Utc>, max: u32) -> Result<u32, StoreError> {
        let before = to_db_time(before);
        let pruned = self.write(|conn| {
            // An entry a delivery still waits for stays until delivered.
            let awaited = webhook_outbox::table
                .filter(webhook_outbox::delivered.is_null())
                .select(webhook_outbox::position);
            let oldest: Vec<i64> = audit_entries::table
                .filter(audit_entries::at.lt(before))
                .filter(diesel::dsl::not(audit_entries::position.eq_any(awaited)))
                .order(audit_entries::position.asc())
                .limit(i64::from(max))
                .select(audit_entries::position)
                .load(conn)?;
            diesel::delete(audit_entries::table.filter(audit_entries::position.eq_any(&oldest)))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(u32::try_from(pruned).unwrap_or(max))
    }
}
