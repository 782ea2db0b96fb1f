//! Queuing a change of the audit trail for the webhook subscriptions that
//! want its kind, in the transaction that records it: one statement inserts
//! a delivery for every such subscription, failing ones included.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use kenning_domain::{Change, ChangeKind};

use crate::connection::DbConnection;
use crate::location::Backend;
use crate::rows::to_db_time;
use crate::sql::{Bind, Binder};

/// How a subscription's kinds are kept: one text, comma-separated; empty
/// for every kind.
pub(crate) const KIND_SEPARATOR: &str = ",";

/// The kinds of a subscription as stored.
pub(crate) fn kinds_text(kinds: &[ChangeKind]) -> String {
    kinds
        .iter()
        .map(ChangeKind::as_str)
        .collect::<Vec<_>>()
        .join(KIND_SEPARATOR)
}

/// The position the audit entry just inserted on `conn` got.
fn last_position(conn: &mut DbConnection) -> QueryResult<i64> {
    let last = match conn.backend() {
        Backend::Sqlite => "last_insert_rowid()",
        Backend::Postgres => "lastval()",
    };
    diesel::select(diesel::dsl::sql::<BigInt>(last)).get_result(conn)
}

/// Queues the change just recorded as an audit entry on `conn`, made at
/// `at`, for every subscription that wants its kind (failing ones too:
/// their events are kept).
pub(crate) fn enqueue(
    conn: &mut DbConnection,
    change: &Change,
    at: chrono::DateTime<chrono::Utc>,
) -> QueryResult<()> {
    let position = last_position(conn)?;
    let mut sql = Binder::new(conn.backend());
    let position = sql.int(position);
    let resource = sql.text(change.resource_id.to_string());
    let due = sql.bind(Bind::Moment(to_db_time(at)));
    let wanted = sql.text(format!("%,{},%", change.kind.as_str()));
    sql.statement(format!(
        "INSERT INTO webhook_outbox \
         (subscription_id, position, resource_id, attempts, next_attempt) \
         SELECT id, {position}, {resource}, 0, {due} FROM webhook_subscriptions \
         WHERE kinds = '' OR ',' || kinds || ',' LIKE {wanted}"
    ))
    .execute(conn)?;
    Ok(())
}
