//! Sign-in links and sessions.

use chrono::{DateTime, Utc};
use kenning_domain::{user_signed_in, user_signed_out, Attribution};
use kenning_ports::{Redemption, SessionStore, StoreError, StoredLink, StoredSession};
use uuid::Uuid;

use crate::state::{IssuedLink, MemoryStore};

impl SessionStore for MemoryStore {
    fn insert_link(&self, link: &StoredLink) -> Result<(), StoreError> {
        self.lock().links.push(IssuedLink {
            link: link.clone(),
            used: None,
        });
        Ok(())
    }

    fn redeem_link(&self, secret_hash: &str, now: DateTime<Utc>) -> Result<Redemption, StoreError> {
        let mut state = self.lock();
        let Some(issued) = state
            .links
            .iter_mut()
            .find(|l| l.link.secret_hash == secret_hash)
        else {
            return Ok(Redemption::Unknown);
        };
        Ok(if issued.used.is_some() {
            Redemption::Used
        } else if now >= issued.link.expires {
            Redemption::Expired
        } else {
            issued.used = Some(now);
            Redemption::Redeemed(issued.link.user)
        })
    }

    fn open_session(&self, session: &StoredSession, by: &Attribution) -> Result<(), StoreError> {
        let mut state = self.lock();
        state.sessions.insert(session.id, session.clone());
        state.record(by, [user_signed_in(session.user.as_uuid(), session.method)]);
        Ok(())
    }

    fn session(&self, secret_hash: &str) -> Result<Option<StoredSession>, StoreError> {
        Ok(self
            .lock()
            .sessions
            .values()
            .find(|s| s.secret_hash == secret_hash)
            .cloned())
    }

    fn touch_session(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        if let Some(session) = self.lock().sessions.get_mut(&id) {
            session.last_seen = session.last_seen.max(at);
        }
        Ok(())
    }

    fn end_session(&self, id: Uuid, by: &Attribution) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let Some(ended) = state.sessions.remove(&id) else {
            return Ok(false);
        };
        state.record(by, [user_signed_out(ended.user.as_uuid())]);
        Ok(true)
    }

    fn prune_sessions(
        &self,
        idle_before: DateTime<Utc>,
        begun_before: DateTime<Utc>,
        links_before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let mut state = self.lock();
        let (sessions, links) = (state.sessions.len(), state.links.len());
        state
            .sessions
            .retain(|_, s| s.last_seen >= idle_before && s.created >= begun_before);
        state.links.retain(|l| l.link.expires >= links_before);
        Ok((sessions - state.sessions.len() + links - state.links.len()) as u64)
    }
}
