//! The diesel store's statements read indexes, not whole tables, once the
//! database knows its data (statistics gathered, as the databases' own
//! maintenance does).

use std::sync::Arc;

use kenning_store_diesel::Database;

use super::{adapters, new_user};
use crate::db::TestDatabase;

fn plan_of<'a>(plans: &'a [kenning_store_diesel::QueryPlan], statement: &str) -> &'a str {
    plans
        .iter()
        .find(|p| p.statement.starts_with(statement))
        .map(|p| p.plan.as_str())
        .unwrap_or_else(|| panic!("no plan for {statement}"))
}

fn statements_read_indexes(store: Arc<Database>, db: &TestDatabase) {
    // Enough people that reading a whole table costs more than an index.
    let users: Vec<_> = (0..50_000)
        .map(|n| new_user(&format!("p{n}@example.com"), "P", &format!("n{n}"), None))
        .collect();
    store.import_users(&users).unwrap();
    let url = db.url();
    db.execute("ANALYZE");
    let plans = store.query_plans().unwrap();
    let all = format!("{plans:#?}");
    assert!(
        plan_of(&plans, "upload").contains("users_email_key_live"),
        "{all}"
    );
    assert!(
        plan_of(&plans, "userByEmail").contains("users_email_key_live"),
        "{all}"
    );
    assert!(
        plan_of(&plans, "userByExternalId").contains("users_external_id_live"),
        "{all}"
    );
    assert!(
        plan_of(&plans, "search, step 1").contains("users_listing"),
        "{all}"
    );
    let by_name = plan_of(&plans, "filter: userName eq");
    assert!(by_name.contains("users_user_name_key_live"), "{all}");
    assert!(by_name.contains("users_email_key_live"), "{all}");
    assert!(
        plan_of(&plans, "filter: emails.value eq").contains("users_email_key_live"),
        "{all}"
    );
    assert!(
        plan_of(&plans, "filter: externalId eq").contains("users_external_id_live"),
        "{all}"
    );
    if url.starts_with("sqlite") {
        // Read from the index alone: no look-up of a table row.
        let best = plan_of(&plans, "experts");
        assert!(
            best.contains("USING COVERING INDEX standings_topic_rank"),
            "{all}"
        );
        assert!(
            best.contains("USING COVERING INDEX learners_ranked"),
            "{all}"
        );
    }
    for listing in ["by cursor, search step 1", "by cursor, listing without"] {
        assert!(plan_of(&plans, listing).contains("users_listing"), "{all}");
    }
    for step in [
        "search, step 2: the trigram index",
        "search, step 2 for a whole e-mail address",
        "by cursor, search step 2: the trigram index",
        "by cursor, search step 2 for a whole e-mail address",
    ] {
        let trigrams = plan_of(&plans, step);
        if url.starts_with("sqlite") {
            assert!(trigrams.contains("VIRTUAL TABLE INDEX"), "{all}");
            assert!(trigrams.contains("users_search_row"), "{all}");
        } else {
            assert!(trigrams.contains("users_search_trigrams"), "{all}");
        }
    }
}

#[test]
fn statements_read_indexes_on_sqlite() {
    if let Some((store, db)) = adapters::sqlite("plans_sqlite") {
        statements_read_indexes(store, &db);
    }
}

#[test]
#[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]
fn statements_read_indexes_on_postgres() {
    if let Some((store, db)) = adapters::postgres("plans_postgres") {
        statements_read_indexes(store, &db);
    }
}
