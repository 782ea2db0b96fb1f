//! Rate limits per key: failed authentications per client address,
//! requests per credential, and requests to the web app per session (or
//! per client address, without one).
//!
//! Each key gets a GCRA (generic cell rate algorithm) bucket: `per_minute`
//! events may come at once, and then one every `60 s / per_minute`. A
//! bucket is one instant, its theoretical arrival time; a key whose
//! instant has passed is as good as new, so the table forgets it first
//! when it is full, and it never holds more than its capacity.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash, RandomState};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

/// The most keys one table remembers (about 50 bytes each).
const CAPACITY: usize = 100_000;

/// A rate limit per key.
#[derive(Debug)]
pub struct Limiter<K> {
    /// The time between two events at the sustained rate.
    interval: Duration,
    /// How far the arrival time may run ahead of now: the burst less one
    /// interval.
    tolerance: Duration,
    capacity: usize,
    arrivals: Mutex<HashMap<K, Instant>>,
}

impl<K: Hash + Eq + Copy> Limiter<K> {
    /// `per_minute` events a minute per key, as many at once; `None` for
    /// 0, which means no limit.
    pub fn per_minute(per_minute: u32, capacity: usize) -> Option<Self> {
        if per_minute == 0 {
            return None;
        }
        let interval = Duration::from_secs(60) / per_minute;
        Some(Self {
            interval,
            tolerance: interval * (per_minute - 1),
            capacity: capacity.max(1),
            arrivals: Mutex::new(HashMap::new()),
        })
    }

    /// How long `key` must wait before its next event at `now`, if it
    /// must.
    fn wait(&self, arrival: Option<Instant>, now: Instant) -> Option<Duration> {
        let arrival = arrival.map_or(now, |a| a.max(now));
        let ahead = arrival - now;
        (ahead > self.tolerance).then(|| ahead - self.tolerance)
    }

    /// Whether an event of `key` would be admitted at `now`, without
    /// counting one: `Err` holds how long to wait.
    pub fn check(&self, key: K, now: Instant) -> Result<(), Duration> {
        let arrivals = self.arrivals.lock().unwrap_or_else(|p| p.into_inner());
        match self.wait(arrivals.get(&key).copied(), now) {
            Some(wait) => Err(wait),
            None => Ok(()),
        }
    }

    /// Counts an event of `key` at `now` if it is admitted; `Err` holds
    /// how long to wait, and the refused event is not counted.
    pub fn admit(&self, key: K, now: Instant) -> Result<(), Duration> {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|p| p.into_inner());
        let current = arrivals.get(&key).copied();
        if let Some(wait) = self.wait(current, now) {
            return Err(wait);
        }
        if current.is_none() && arrivals.len() >= self.capacity {
            make_room(&mut arrivals, now);
        }
        let next = current.map_or(now, |a| a.max(now)) + self.interval;
        arrivals.insert(key, next);
        Ok(())
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.arrivals.lock().map(|a| a.len()).unwrap_or(0)
    }
}

/// Frees a slot in a full table: keys whose arrival time has passed are
/// forgotten (they are as good as new); if none has, the one closest to
/// passing is.
fn make_room<K: Hash + Eq + Copy>(arrivals: &mut HashMap<K, Instant>, now: Instant) {
    let before = arrivals.len();
    arrivals.retain(|_, arrival| *arrival > now);
    if arrivals.len() == before {
        let earliest = arrivals
            .iter()
            .min_by_key(|(_, arrival)| **arrival)
            .map(|(key, _)| *key);
        if let Some(key) = earliest {
            arrivals.remove(&key);
        }
    }
}

/// The client a failed authentication is charged to: its address, with
/// an IPv6 address reduced to its /64 network, which one host usually
/// holds whole.
pub fn client_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => {
            let mut segments = v6.segments();
            segments[4..].fill(0);
            IpAddr::from(segments)
        }
    }
}

/// Whom a request to the web app is counted against: the session it
/// presents, known by a keyed hash of its secret (the secret itself is
/// never kept), once the web app has verified it; or, before that and
/// when it presents none, its client's address, so that cookies nobody
/// holds get no buckets of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageCaller {
    /// A session, by [`Throttle::session_key`].
    Session(u64),
    /// A client without a session, by [`client_key`].
    Client(IpAddr),
}

/// The limits of one process.
#[derive(Debug)]
pub struct Throttle {
    /// Failed authentications per client address.
    pub failures: Option<Limiter<IpAddr>>,
    /// Requests per credential.
    pub requests: Option<Limiter<Uuid>>,
    /// Requests to the web app per caller, at the rate of a credential's.
    pub pages: Option<Limiter<PageCaller>>,
    /// The key of [`Throttle::session_key`]'s hash, random per process,
    /// so that no one can choose secrets that share a bucket.
    sessions: RandomState,
    /// The sessions the web app verified, by [`Throttle::session_key`]:
    /// the newest [`CAPACITY`], the oldest forgotten first.
    verified: Mutex<Verified>,
}

/// A bounded set of session keys, forgetting the oldest first.
#[derive(Debug, Default)]
struct Verified {
    keys: HashSet<PageCaller>,
    order: VecDeque<PageCaller>,
}

impl Throttle {
    /// `failures_per_minute` failed authentications per client address and
    /// `requests_per_minute` requests per credential, and as many to the
    /// web app per session or client; 0 turns a limit off.
    pub fn new(failures_per_minute: u32, requests_per_minute: u32) -> Self {
        Self {
            failures: Limiter::per_minute(failures_per_minute, CAPACITY),
            requests: Limiter::per_minute(requests_per_minute, CAPACITY),
            pages: Limiter::per_minute(requests_per_minute, CAPACITY),
            sessions: RandomState::new(),
            verified: Mutex::default(),
        }
    }

    /// The bucket of the session whose secret is `secret`.
    pub fn session_key(&self, secret: &str) -> PageCaller {
        PageCaller::Session(self.sessions.hash_one(secret))
    }

    /// Whom a request presenting `session` (when it presents one) from
    /// `client` is counted against: the session once verified, else the
    /// client's address (the session when the address is unknown).
    pub fn page_caller(&self, session: Option<&str>, client: Option<IpAddr>) -> Option<PageCaller> {
        let session = session.map(|secret| self.session_key(secret));
        match (session, client) {
            (Some(key), Some(client)) if !self.is_verified(key) => Some(PageCaller::Client(client)),
            (Some(key), _) => Some(key),
            (None, client) => client.map(PageCaller::Client),
        }
    }

    fn is_verified(&self, key: PageCaller) -> bool {
        self.verified
            .lock()
            .is_ok_and(|verified| verified.keys.contains(&key))
    }

    /// Remembers that the web app verified the session `secret`: its
    /// requests have its own bucket from now on.
    pub fn verified(&self, secret: &str) {
        let key = self.session_key(secret);
        let Ok(mut verified) = self.verified.lock() else {
            return;
        };
        if verified.keys.insert(key) {
            verified.order.push_back(key);
            if verified.order.len() > CAPACITY {
                if let Some(oldest) = verified.order.pop_front() {
                    verified.keys.remove(&oldest);
                }
            }
        }
    }
}

/// `wait` in whole seconds, rounded up and at least one: a `Retry-After`.
pub fn retry_after(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let limiter = Limiter::per_minute(3, 10).unwrap();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.admit(1, t0), Ok(()));
        }
        let wait = limiter.admit(1, t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(20));
        assert_eq!(limiter.check(1, t0), Err(wait));
        // Another key has its own bucket.
        assert_eq!(limiter.admit(2, t0), Ok(()));
        // One interval later one more event passes, and only one.
        let t1 = t0 + Duration::from_secs(20);
        assert_eq!(limiter.check(1, t1), Ok(()));
        assert_eq!(limiter.admit(1, t1), Ok(()));
        assert!(limiter.admit(1, t1).is_err());
    }

    #[test]
    fn a_session_is_one_bucket_and_a_wait_is_whole_seconds() {
        let throttle = Throttle::new(1, 1);
        assert_eq!(throttle.session_key("s1"), throttle.session_key("s1"));
        assert_ne!(throttle.session_key("s1"), throttle.session_key("s2"));
        assert_eq!(retry_after(Duration::from_millis(1)), 1);
        assert_eq!(retry_after(Duration::from_millis(20_001)), 21);
        assert_eq!(retry_after(Duration::ZERO), 1);
    }

    #[test]
    fn zero_means_no_limit() {
        assert!(Limiter::<u8>::per_minute(0, 10).is_none());
    }

    #[test]
    fn the_table_never_outgrows_its_capacity() {
        let limiter = Limiter::per_minute(1, 4).unwrap();
        let t0 = Instant::now();
        for key in 0..1000u32 {
            assert_eq!(limiter.admit(key, t0), Ok(()));
            assert!(limiter.len() <= 4);
        }
        // Once their times have passed, old keys make room first.
        let later = t0 + Duration::from_secs(120);
        assert_eq!(limiter.admit(5000, later), Ok(()));
        assert_eq!(limiter.len(), 1);
    }

    #[test]
    fn ipv6_clients_are_counted_by_network() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(client_key(v4), v4);
    }
}
