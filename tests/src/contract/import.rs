//! The diesel store's bulk load, `Database::import_users`: no port has it,
//! so it is checked on the two databases alone.

use std::sync::Arc;

use kenning_ports::{PrivacyStore, StoreError, UserStore};
use kenning_store_diesel::Database;

use super::{adapters, new_user};

fn an_import_stores_every_user_or_none(store: Arc<Database>) {
    // More users than one INSERT statement carries.
    let users: Vec<_> = (0..2_345)
        .map(|n| new_user(&format!("p{n}@example.com"), "P", &format!("{n}"), None))
        .collect();
    store.import_users(&users).unwrap();
    for user in [&users[0], &users[1_234], &users[2_344]] {
        assert_eq!(store.get(user.id()).unwrap().as_ref(), Some(user));
    }

    let fresh = new_user("fresh@example.com", "F", "Fresh", None);
    let taken = new_user("P7@example.com", "T", "Taken", None);
    assert_eq!(
        store.import_users(&[fresh.clone(), taken]),
        Err(StoreError::Conflict { field: "email" })
    );
    assert_eq!(store.get(fresh.id()).unwrap(), None, "all or none");

    // Under opt-in, imported people are learned about once refreshed.
    let opt_in = kenning_domain::LearningRule::NewPeopleOptedOut;
    store
        .set_learning_rule(&opt_in, true, &super::by())
        .unwrap();
    store.import_users(std::slice::from_ref(&fresh)).unwrap();
    store.refresh_learning().unwrap();
    let learning = store.learning_of(fresh.id()).unwrap().unwrap();
    assert!(!learning.learns, "an imported newcomer follows the rules");
}

#[test]
fn an_import_stores_every_user_or_none_on_sqlite() {
    if let Some((store, _db)) = adapters::sqlite("import_sqlite") {
        an_import_stores_every_user_or_none(store);
    }
}

#[test]
#[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]
fn an_import_stores_every_user_or_none_on_postgres() {
    if let Some((store, _db)) = adapters::postgres("import_postgres") {
        an_import_stores_every_user_or_none(store);
    }
}
