//! Subscriptions and the outbox in memory: every recorded change is queued
//! for the subscriptions that want it under the same lock as the change.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use kenning_domain::{AuditEntry, Subscription, SubscriptionState};
use kenning_ports::{Delivery, OutboxCounts, StoreError, WebhookStore};
use uuid::Uuid;

use crate::state::{MemoryStore, OutboxRow, State};

/// Queues `entry` for every subscription that wants its kind.
pub(crate) fn enqueue(state: &mut State, entry: &AuditEntry) {
    let wanting: Vec<Uuid> = state
        .subscriptions
        .iter()
        .filter(|s| s.wants(entry.change.kind))
        .map(|s| s.id)
        .collect();
    for subscription in wanting {
        state.next_delivery += 1;
        state.outbox.push(OutboxRow {
            id: state.next_delivery,
            subscription,
            position: entry.position,
            resource: entry.change.resource_id,
            attempts: 0,
            first_attempt: None,
            next_attempt: entry.at,
            lease_until: None,
            delivered: None,
        });
    }
}

/// Whether the audit entry at `position` still waits to be delivered, so
/// pruning the trail must keep it.
pub(crate) fn awaited(state: &State, position: u64) -> bool {
    state
        .outbox
        .iter()
        .any(|row| row.position == position && row.delivered.is_none())
}

impl WebhookStore for MemoryStore {
    fn insert_subscription(&self, subscription: &Subscription) -> Result<(), StoreError> {
        self.lock().subscriptions.push(subscription.clone());
        Ok(())
    }

    fn subscriptions(&self) -> Result<Vec<Subscription>, StoreError> {
        Ok(self.lock().subscriptions.clone())
    }

    fn delete_subscription(&self, id: Uuid) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let before = state.subscriptions.len();
        state.subscriptions.retain(|s| s.id != id);
        state.outbox.retain(|row| row.subscription != id);
        Ok(state.subscriptions.len() < before)
    }

    fn set_subscription_state(&self, id: Uuid, to: SubscriptionState) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let Some(subscription) = state.subscriptions.iter_mut().find(|s| s.id == id) else {
            return Ok(false);
        };
        subscription.state = to;
        if to == SubscriptionState::Active {
            for row in state
                .outbox
                .iter_mut()
                .filter(|r| r.subscription == id && r.delivered.is_none())
            {
                row.next_attempt = DateTime::<Utc>::MIN_UTC;
                row.lease_until = None;
            }
        }
        Ok(true)
    }

    fn lease_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        max: u32,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut state = self.lock();
        let active: HashSet<Uuid> = state
            .subscriptions
            .iter()
            .filter(|s| s.state == SubscriptionState::Active)
            .map(|s| s.id)
            .collect();
        let mut seen: HashSet<(Uuid, Uuid)> = HashSet::new();
        let mut taken = Vec::new();
        for at in 0..state.outbox.len() {
            let row = &state.outbox[at];
            if row.delivered.is_some() || !active.contains(&row.subscription) {
                continue;
            }
            // Only the oldest waiting delivery of a resource may go.
            if !seen.insert((row.subscription, row.resource)) {
                continue;
            }
            let free = row.lease_until.is_none_or(|until| until <= now);
            if row.next_attempt <= now && free && taken.len() < max as usize {
                taken.push(at);
            }
        }
        let mut leased = Vec::with_capacity(taken.len());
        for at in taken {
            state.outbox[at].lease_until = Some(lease_until);
            let row = state.outbox[at].clone();
            let subscription = state
                .subscriptions
                .iter()
                .find(|s| s.id == row.subscription)
                .cloned();
            let entry = state
                .audit
                .iter()
                .find(|e| e.position == row.position)
                .cloned();
            if let (Some(subscription), Some(entry)) = (subscription, entry) {
                leased.push(Delivery {
                    id: row.id,
                    subscription,
                    entry,
                    attempts: row.attempts,
                    first_attempt: row.first_attempt,
                });
            }
        }
        Ok(leased)
    }

    fn delivered(&self, id: u64, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut state = self.lock();
        if let Some(row) = state.outbox.iter_mut().find(|r| r.id == id) {
            row.delivered = Some(at);
            row.lease_until = None;
        }
        Ok(())
    }

    fn retry_delivery(
        &self,
        id: u64,
        attempts: u32,
        first_attempt: DateTime<Utc>,
        next_attempt: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut state = self.lock();
        if let Some(row) = state.outbox.iter_mut().find(|r| r.id == id) {
            row.attempts = attempts;
            row.first_attempt = Some(first_attempt);
            row.next_attempt = next_attempt;
            row.lease_until = None;
        }
        Ok(())
    }

    fn outbox_counts(&self) -> Result<Vec<OutboxCounts>, StoreError> {
        let state = self.lock();
        Ok(state
            .subscriptions
            .iter()
            .map(|s| {
                let of = state.outbox.iter().filter(|r| r.subscription == s.id);
                let delivered = of.clone().filter(|r| r.delivered.is_some()).count();
                let failed = of
                    .clone()
                    .filter(|r| r.delivered.is_none() && r.attempts > 0)
                    .count();
                let pending = of.count() - delivered;
                OutboxCounts {
                    subscription: s.id,
                    pending: pending as u64,
                    delivered: delivered as u64,
                    failed: failed as u64,
                }
            })
            .collect())
    }

    fn prune_outbox(&self, keep_delivered: u32) -> Result<u64, StoreError> {
        let mut state = self.lock();
        let delivered: Vec<u64> = state
            .outbox
            .iter()
            .filter(|r| r.delivered.is_some())
            .map(|r| r.id)
            .collect();
        let excess = delivered.len().saturating_sub(keep_delivered as usize);
        let dropped: HashSet<u64> = delivered.into_iter().take(excess).collect();
        state.outbox.retain(|r| !dropped.contains(&r.id));
        Ok(dropped.len() as u64)
    }
}
