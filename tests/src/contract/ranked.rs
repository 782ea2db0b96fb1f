//! The diesel store keeps whether each learner is ranked on her learner
//! row (`learners.ranked`), written by the database's triggers so that a
//! change of the hidden mark, which only SQL makes, reaches it too. The
//! triggers say the rule in SQL; these checks hold them to the domain's
//! statement of it, [`User::ranks`], for every status, hidden mark and
//! learning answer: when a user row changes under a learner, and when a
//! learner is first written under a user row.

use std::sync::Arc;

use diesel::sql_types::{Bool, Text};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl, SqliteConnection};
use kenning_domain::{Status, User};
use kenning_store_diesel::Database;

use super::{adapters, new_user};
use crate::db::TestDatabase;

#[derive(QueryableByName)]
struct Mark {
    #[diesel(sql_type = Text)]
    user_id: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Bool)]
    is_hidden: bool,
    #[diesel(sql_type = Bool)]
    learns: bool,
    #[diesel(sql_type = Bool)]
    ranked: bool,
}

/// Every learner's mark beside what the domain says of her user row.
fn marks(db: &TestDatabase) -> Vec<Mark> {
    let sql = "SELECT l.user_id, u.status, u.is_hidden, u.learns, l.ranked \
               FROM learners l JOIN users u ON u.id = l.user_id ORDER BY l.user_id";
    let url = db.url();
    match url.strip_prefix("sqlite://") {
        Some(path) => diesel::sql_query(sql)
            .load(&mut SqliteConnection::establish(path).unwrap())
            .unwrap(),
        None => diesel::sql_query(sql)
            .load(&mut PgConnection::establish(url).unwrap())
            .unwrap(),
    }
}

/// Every status, hidden mark and learning answer a user row may hold.
fn states() -> Vec<(&'static str, bool, bool)> {
    let statuses = [
        Status::ACTIVE,
        Status::DEACTIVATED,
        Status::PENDING_DELETION,
        Status::DELETED,
    ];
    let mut states = Vec::new();
    for status in statuses {
        for hidden in [false, true] {
            for learns in [false, true] {
                states.push((status, hidden, learns));
            }
        }
    }
    states
}

fn set_user(id: &str, (status, hidden, learns): (&str, bool, bool)) -> String {
    format!(
        "UPDATE users SET status = '{status}', is_hidden = {hidden}, learns = {learns} \
         WHERE id = '{id}';\n"
    )
}

fn add_learner(id: &str) -> String {
    format!("INSERT INTO learners (user_id, actions) VALUES ('{id}', 1);\n")
}

fn assert_marks_follow_the_domain(db: &TestDatabase, expected_learners: usize) {
    let marks = marks(db);
    assert_eq!(marks.len(), expected_learners);
    for mark in marks {
        assert_eq!(
            mark.ranked,
            User::ranks(&mark.status, mark.is_hidden, mark.learns),
            "{} {} hidden={} learns={}",
            mark.user_id,
            mark.status,
            mark.is_hidden,
            mark.learns
        );
    }
}

fn marks_follow_the_domain(store: Arc<Database>, db: &TestDatabase) {
    let states = states();
    let users: Vec<User> = (0..2 * states.len())
        .map(|n| new_user(&format!("p{n}@example.com"), "P", &format!("n{n}"), None))
        .collect();
    store.import_users(&users).unwrap();
    let ids: Vec<String> = users.iter().map(|u| u.id().to_string()).collect();
    let (changed, later) = ids.split_at(states.len());

    // Learners first, then their user rows change: each change reaches
    // the mark, away from ranked and back.
    db.execute(&changed.iter().map(|id| add_learner(id)).collect::<String>());
    assert_marks_follow_the_domain(db, changed.len());
    let reversed: Vec<_> = states.iter().rev().copied().collect();
    for order in [&states, &reversed] {
        let sql: String = changed
            .iter()
            .zip(order)
            .map(|(id, state)| set_user(id, *state))
            .collect();
        db.execute(&sql);
        assert_marks_follow_the_domain(db, changed.len());
    }

    // User rows first, then a learner each: the new learner takes the
    // mark of her user row as it stands.
    let sql: String = later
        .iter()
        .zip(&states)
        .map(|(id, state)| set_user(id, *state) + &add_learner(id))
        .collect();
    db.execute(&sql);
    assert_marks_follow_the_domain(db, ids.len());
}

#[test]
fn learners_marks_follow_the_domain_on_sqlite() {
    if let Some((store, db)) = adapters::sqlite("ranked_sqlite") {
        marks_follow_the_domain(store, &db);
    }
}

#[test]
#[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]
fn learners_marks_follow_the_domain_on_postgres() {
    if let Some((store, db)) = adapters::postgres("ranked_postgres") {
        marks_follow_the_domain(store, &db);
    }
}
