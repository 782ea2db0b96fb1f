//! The adapters the contract runs against: each gives a fresh, empty store
//! for the test named, and what must live as long as the test (the
//! database it made), or `None` when its backend is not there.

use std::sync::Arc;

use kenning_store_diesel::Database;
use kenning_store_memory::MemoryStore;

use crate::db::{Backend, TestDatabase};

pub(super) fn memory(_test: &str) -> Option<(Arc<MemoryStore>, ())> {
    Some((Arc::new(MemoryStore::new()), ()))
}

pub(super) fn sqlite(test: &str) -> Option<(Arc<Database>, TestDatabase)> {
    diesel_store(Backend::Sqlite, test)
}

pub(super) fn postgres(test: &str) -> Option<(Arc<Database>, TestDatabase)> {
    diesel_store(Backend::Postgres, test)
}

fn diesel_store(backend: Backend, test: &str) -> Option<(Arc<Database>, TestDatabase)> {
    let db = TestDatabase::fresh(backend, test)?;
    let store = Database::connect(db.url()).unwrap();
    store.migrate().unwrap();
    Some((Arc::new(store), db))
}
