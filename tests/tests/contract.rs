//! The storage contract, run against every adapter.

use std::sync::Arc;

use kenning_store_diesel::Database;
use kenning_store_memory::MemoryStore;
use kenning_tests::contract_suite;
use kenning_tests::db::{Backend, TestDatabase};

fn diesel_store(backend: Backend, test: &str) -> Option<(Arc<Database>, TestDatabase)> {
    let db = TestDatabase::fresh(backend, test)?;
    let store = Database::connect(db.url()).unwrap();
    store.migrate().unwrap();
    Some((Arc::new(store), db))
}

mod memory {
    use super::*;

    contract_suite!(|_test: &str| Some((Arc::new(MemoryStore::new()), ())));
}

mod sqlite {
    use super::*;

    contract_suite!(|test: &str| diesel_store(Backend::Sqlite, test));
}

mod postgres {
    use super::*;

    contract_suite!(
        [#[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]]
        |test: &str| diesel_store(Backend::Postgres, test)
    );
}
