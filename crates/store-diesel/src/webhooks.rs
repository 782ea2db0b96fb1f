//! Webhook subscriptions and the outbox on disk. Changes are queued by
//! the audit trail's writes ([`crate::outbox`]); here they are leased,
//! a process at a time (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: the
//! write transaction), marked delivered or due again, counted and pruned.
//!
//! A lease takes, of each subscription and resource, only the oldest
//! delivery still waiting, so one resource's changes arrive in order; a
//! failing subscription's deliveries wait until it is resumed.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::dsl::count_star;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};
use kenning_domain::{ChangeKind, Subscription, SubscriptionState};
use kenning_ports::{Delivery, OutboxCounts, StoreError, WebhookStore};
use uuid::Uuid;

use crate::audit::entries_at;
use crate::connection::TxError;
use crate::database::Database;
use crate::location::Backend;
use crate::outbox::{kinds_text, KIND_SEPARATOR};
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{webhook_outbox, webhook_subscriptions};
use crate::sql::{Bind, Binder};

/// How many delivered deliveries one prune deletes at most.
const PRUNE_STEP: i64 = 1_000;

#[derive(Debug, Insertable, Queryable, Selectable)]
#[diesel(table_name = webhook_subscriptions)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct SubscriptionRow {
    id: String,
    url: String,
    kinds: String,
    secret: String,
    created: chrono::NaiveDateTime,
    failing_since: Option<chrono::NaiveDateTime>,
}

fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::backend_message(format!(
        "stored subscription has an invalid {what}: {value}"
    ))
}

impl SubscriptionRow {
    fn new(s: &Subscription) -> Self {
        Self {
            id: s.id.to_string(),
            url: s.url.clone(),
            kinds: kinds_text(&s.kinds),
            secret: s.secret.clone(),
            created: to_db_time(s.created),
            failing_since: match s.state {
                SubscriptionState::Active => None,
                SubscriptionState::Failing { since } => Some(to_db_time(since)),
            },
        }
    }

    fn into_subscription(self) -> Result<Subscription, StoreError> {
        let kinds = self
            .kinds
            .split(KIND_SEPARATOR)
            .filter(|k| !k.is_empty())
            .map(|k| k.parse::<ChangeKind>().map_err(|_| corrupt("kind", k)))
            .collect::<Result<_, _>>()?;
        Ok(Subscription {
            id: Uuid::parse_str(&self.id).map_err(|_| corrupt("id", &self.id))?,
            url: self.url,
            kinds,
            secret: self.secret,
            created: from_db_time(self.created),
            state: match self.failing_since {
                None => SubscriptionState::Active,
                Some(since) => SubscriptionState::Failing {
                    since: from_db_time(since),
                },
            },
        })
    }
}

/// A delivery as the lease returns it.
#[derive(Debug, QueryableByName)]
struct LeasedRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    subscription_id: String,
    #[diesel(sql_type = BigInt)]
    position: i64,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Timestamp>)]
    first_attempt: Option<chrono::NaiveDateTime>,
}

fn outbox_id(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

impl WebhookStore for Database {
    fn insert_subscription(&self, subscription: &Subscription) -> Result<(), StoreError> {
        let row = SubscriptionRow::new(subscription);
        self.write(|conn| {
            diesel::insert_into(webhook_subscriptions::table)
                .values(&row)
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn subscriptions(&self) -> Result<Vec<Subscription>, StoreError> {
        let rows: Vec<SubscriptionRow> = self.read(|conn| {
            webhook_subscriptions::table
                .order((
                    webhook_subscriptions::created.asc(),
                    webhook_subscriptions::id.asc(),
                ))
                .select(SubscriptionRow::as_select())
                .load(conn)
        })?;
        rows.into_iter()
            .map(SubscriptionRow::into_subscription)
            .collect()
    }

    fn delete_subscription(&self, id: Uuid) -> Result<bool, StoreError> {
        let key = id.to_string();
        let deleted = self.write(|conn| {
            diesel::delete(webhook_outbox::table.filter(webhook_outbox::subscription_id.eq(&key)))
                .execute(conn)?;
            diesel::delete(webhook_subscriptions::table.find(&key))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(deleted == 1)
    }

    fn set_subscription_state(
        &self,
        id: Uuid,
        state: SubscriptionState,
    ) -> Result<bool, StoreError> {
        let key = id.to_string();
        let failing_since = match state {
            SubscriptionState::Active => None,
            SubscriptionState::Failing { since } => Some(to_db_time(since)),
        };
        let changed = self.write(|conn| {
            let changed = diesel::update(webhook_subscriptions::table.find(&key))
                .set(webhook_subscriptions::failing_since.eq(failing_since))
                .execute(conn)?;
            if changed == 1 && state == SubscriptionState::Active {
                diesel::update(
                    webhook_outbox::table
                        .filter(webhook_outbox::subscription_id.eq(&key))
                        .filter(webhook_outbox::delivered.is_null()),
                )
                .set((
                    webhook_outbox::next_attempt.eq(to_db_time(DateTime::<Utc>::UNIX_EPOCH)),
                    webhook_outbox::lease_until.eq(None::<chrono::NaiveDateTime>),
                ))
                .execute(conn)?;
            }
            Ok::<_, TxError>(changed)
        })?;
        Ok(changed == 1)
    }

    fn lease_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        max: u32,
    ) -> Result<Vec<Delivery>, StoreError> {
        let leased = self.write(|conn| {
            let mut sql = Binder::new(conn.backend());
            let now = sql.bind(Bind::Moment(to_db_time(now)));
            let until = sql.bind(Bind::Moment(to_db_time(lease_until)));
            let max = sql.int(i64::from(max));
            // Others' leases are skipped, not waited for, on PostgreSQL;
            // SQLite writes one transaction at a time anyway.
            let skip_locked = match sql.backend() {
                Backend::Postgres => "FOR UPDATE OF o SKIP LOCKED",
                Backend::Sqlite => "",
            };
            let rows: Vec<LeasedRow> = sql
                .statement(format!(
                    "UPDATE webhook_outbox SET lease_until = {until} WHERE id IN ( \
                       SELECT o.id FROM webhook_outbox o \
                       JOIN webhook_subscriptions s ON s.id = o.subscription_id \
                       WHERE o.delivered IS NULL AND s.failing_since IS NULL \
                         AND o.next_attempt <= {now} \
                         AND (o.lease_until IS NULL OR o.lease_until <= {now}) \
                         AND NOT EXISTS (SELECT 1 FROM webhook_outbox e \
                           WHERE e.subscription_id = o.subscription_id \
                             AND e.resource_id = o.resource_id \
                             AND e.delivered IS NULL AND e.id < o.id) \
                       ORDER BY o.id LIMIT {max} {skip_locked}) \
                     RETURNING id, subscription_id, position, attempts, first_attempt"
                ))
                .load(conn)?;
            let positions: Vec<i64> = rows.iter().map(|r| r.position).collect();
            let subscriptions: Vec<String> =
                rows.iter().map(|r| r.subscription_id.clone()).collect();
            let subscribed: Vec<SubscriptionRow> = webhook_subscriptions::table
                .filter(webhook_subscriptions::id.eq_any(&subscriptions))
                .select(SubscriptionRow::as_select())
                .load(conn)?;
            let entries = entries_at(conn, &positions)?;
            Ok::<_, TxError>((rows, subscribed, entries))
        });
        let (mut rows, subscribed, entries) = leased?;
        rows.sort_by_key(|r| r.id);
        let subscriptions: HashMap<String, Subscription> = subscribed
            .into_iter()
            .map(|row| {
                let id = row.id.clone();
                row.into_subscription().map(|s| (id, s))
            })
            .collect::<Result<_, _>>()?;
        let entries: HashMap<u64, _> = entries.into_iter().map(|e| (e.position, e)).collect();
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let subscription = subscriptions.get(&row.subscription_id)?.clone();
                let entry = entries.get(&u64::try_from(row.position).ok()?)?.clone();
                Some(Delivery {
                    id: u64::try_from(row.id).ok()?,
                    subscription,
                    entry,
                    attempts: u32::try_from(row.attempts).unwrap_or_default(),
                    first_attempt: row.first_attempt.map(from_db_time),
                })
            })
            .collect())
    }

    fn delivered(&self, id: u64, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::update(webhook_outbox::table.find(outbox_id(id)))
                .set((
                    webhook_outbox::delivered.eq(Some(to_db_time(at))),
                    webhook_outbox::lease_until.eq(None::<chrono::NaiveDateTime>),
                ))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn retry_delivery(
        &self,
        id: u64,
        attempts: u32,
        first_attempt: DateTime<Utc>,
        next_attempt: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::update(webhook_outbox::table.find(outbox_id(id)))
                .set((
                    webhook_outbox::attempts.eq(i32::try_from(attempts).unwrap_or(i32::MAX)),
                    webhook_outbox::first_attempt.eq(Some(to_db_time(first_attempt))),
                    webhook_outbox::next_attempt.eq(to_db_time(next_attempt)),
                    webhook_outbox::lease_until.eq(None::<chrono::NaiveDateTime>),
                ))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn outbox_counts(&self) -> Result<Vec<OutboxCounts>, StoreError> {
        let (ids, pending, delivered, failed) = self.read(|conn| {
            let ids: Vec<String> = webhook_subscriptions::table
                .order((
                    webhook_subscriptions::created.asc(),
                    webhook_subscriptions::id.asc(),
                ))
                .select(webhook_subscriptions::id)
                .load(conn)?;
            let pending: Vec<(String, i64)> = webhook_outbox::table
                .filter(webhook_outbox::delivered.is_null())
                .group_by(webhook_outbox::subscription_id)
                .select((webhook_outbox::subscription_id, count_star()))
                .load(conn)?;
            let delivered: Vec<(String, i64)> = webhook_outbox::table
                .filter(webhook_outbox::delivered.is_not_null())
                .group_by(webhook_outbox::subscription_id)
                .select((webhook_outbox::subscription_id, count_star()))
                .load(conn)?;
            let failed: Vec<(String, i64)> = webhook_outbox::table
                .filter(webhook_outbox::delivered.is_null())
                .filter(webhook_outbox::attempts.gt(0))
                .group_by(webhook_outbox::subscription_id)
                .select((webhook_outbox::subscription_id, count_star()))
                .load(conn)?;
            Ok((ids, pending, delivered, failed))
        })?;
        let pending: HashMap<String, i64> = pending.into_iter().collect();
        let delivered: HashMap<String, i64> = delivered.into_iter().collect();
        let failed: HashMap<String, i64> = failed.into_iter().collect();
        ids.into_iter()
            .map(|id| {
                let count = |of: &HashMap<String, i64>| {
                    u64::try_from(of.get(&id).copied().unwrap_or_default()).unwrap_or_default()
                };
                Ok(OutboxCounts {
                    subscription: Uuid::parse_str(&id).map_err(|_| corrupt("id", &id))?,
                    pending: count(&pending),
                    delivered: count(&delivered),
                    failed: count(&failed),
                })
            })
            .collect()
    }

    fn prune_outbox(&self, keep_delivered: u32) -> Result<u64, StoreError> {
        let pruned = self.write(|conn| {
            let oldest: Vec<i64> = webhook_outbox::table
                .filter(webhook_outbox::delivered.is_not_null())
                .order((webhook_outbox::delivered.desc(), webhook_outbox::id.desc()))
                .offset(i64::from(keep_delivered))
                .limit(PRUNE_STEP)
                .select(webhook_outbox::id)
                .load(conn)?;
            diesel::delete(webhook_outbox::table.filter(webhook_outbox::id.eq_any(&oldest)))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(u64::try_from(pruned).unwrap_or_default())
    }
}
