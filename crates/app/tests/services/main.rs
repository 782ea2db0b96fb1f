//! The use cases on the in-memory store and a manual clock, without a
//! server, a database or HTTP in between: what each one does, checked
//! where it is decided.

// Test helpers stop the test with a message when a step fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod administrators;
mod audit;
mod authentication;
mod callers;
mod connectors;
mod declared;
mod hidden;
mod patch;
mod profiles;
mod purge;
mod remembered;
mod upload;

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use kenning_app::{ExpertiseService, UserService};
use kenning_clock::ManualClock;
use kenning_domain::{LanguageId, NewUserInput, Scoring, User};
use kenning_ports::TopicExtractor;
use kenning_store_memory::MemoryStore;

/// The moment every test starts at.
fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap()
}

/// A store and the clock the use cases share.
type World = (Arc<MemoryStore>, Arc<ManualClock>);

/// An empty store and a clock standing at [`start`].
fn world() -> World {
    (
        Arc::new(MemoryStore::new()),
        Arc::new(ManualClock::new(start())),
    )
}

/// A new ACTIVE user, Ada Lovelace at `email`.
fn person(users: &UserService, email: &str) -> User {
    users
        .create(NewUserInput {
            email: email.to_owned(),
            firstname: "Ada".to_owned(),
            lastname: "Lovelace".to_owned(),
            ..NewUserInput::default()
        })
        .unwrap()
}

/// The user use cases over the world's store, English by default.
fn users(world: &World) -> UserService {
    UserService::new(
        world.0.clone(),
        world.1.clone(),
        LanguageId::parse("en").unwrap(),
    )
}

/// The expertise use cases over the world's store under the default
/// scoring, reading texts with `extractor`.
fn expertise(world: &World, extractor: Arc<dyn TopicExtractor>) -> ExpertiseService {
    ExpertiseService::new(
        world.0.clone(),
        world.0.clone(),
        world.0.clone(),
        extractor,
        world.1.clone(),
        Scoring::default(),
    )
}
