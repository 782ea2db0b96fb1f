//! The migrations, embedded per backend (`migrations/sqlite`,
//! `migrations/postgres`) and applied at start.

use diesel::RunQueryDsl;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use crate::connection::DbConnection;
use crate::database::Database;
use crate::location::OpenError;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// An arbitrary key for the PostgreSQL advisory lock held while migrating,
/// so that instances starting together do not migrate twice.
const MIGRATION_LOCK_KEY: i64 = 0x6b65_6e6e_696e_6701;

impl Database {
    /// Applies the migrations that have not run yet; returns how many ran.
    pub fn migrate(&self) -> Result<usize, OpenError> {
        let failed = |e: &dyn std::fmt::Display| OpenError::Migrate(e.to_string());
        let mut conn = self.pooled().map_err(|e| failed(&e))?;
        match &mut *conn {
            DbConnection::Sqlite(conn) => {
                let ran = conn
                    .run_pending_migrations(SQLITE_MIGRATIONS)
                    .map_err(|e| failed(&e))?;
                Ok(ran.len())
            }
            DbConnection::Postgres(conn) => {
                diesel::sql_query(format!("SELECT pg_advisory_lock({MIGRATION_LOCK_KEY})"))
                    .execute(conn)
                    .map_err(|e| failed(&e))?;
                let ran = conn
                    .run_pending_migrations(POSTGRES_MIGRATIONS)
                    .map(|ran| ran.len())
                    .map_err(|e| failed(&e));
                let unlocked =
                    diesel::sql_query(format!("SELECT pg_advisory_unlock({MIGRATION_LOCK_KEY})"))
                        .execute(conn)
                        .map_err(|e| failed(&e));
                let ran = ran?;
                unlocked?;
                Ok(ran)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::database::tests::migrated_file;
    use crate::location::Backend;
    use crate::sql::{Binder, Statement};

    /// Users stored before the migration `search_listing_order`, some
    /// renamed, are numbered by it in listing groups that follow the
    /// listing order, and the trigram index is rebuilt to match.
    #[test]
    fn the_listing_order_migration_numbers_the_users_already_stored() {
        use diesel::sql_types::BigInt;
        use kenning_domain::{LanguageId, NewUser, NewUserInput, User, UserId};

        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let numbers = |db: &Database, statement: Statement| -> Vec<i64> {
            db.read(|conn| statement.load::<Row>(conn))
                .unwrap()
                .into_iter()
                .map(|row| row.n)
                .collect()
        };
        // `sql` followed by the placeholder of `value`.
        let bound = |sql: &str, value: String| {
            let mut binder = Binder::new(Backend::Sqlite);
            let value = binder.text(value);
            binder.statement(format!("{sql} {value}"))
        };
        let users = |from: usize, to: usize| -> Vec<User> {
            let language = LanguageId::parse("en").unwrap();
            (from..to)
                .map(|n| {
                    let input = NewUserInput {
                        email: format!("u{n}@example.com"),
                        firstname: ["Ada", "Éva", "Bo", "Zed"][n % 4].to_owned(),
                        lastname: ["Smith", "Smithson", "Ab1z", "Aéz", "Lee"][n % 5].to_owned(),
                        ..NewUserInput::default()
                    };
                    let new = NewUser::parse(input, &language).unwrap();
                    User::register(UserId::from_uuid(uuid::Uuid::new_v4()), new, Utc::now())
                })
                .collect()
        };

        let (folder, db) = migrated_file("kenning-listing-order");
        let reverted = {
            let mut conn = db.pooled().unwrap();
            let DbConnection::Sqlite(conn) = &mut *conn else {
                unreachable!("a SQLite file");
            };
            // Back to before it: the later migrations first.
            let mut reverted = Vec::new();
            while reverted.last().map(String::as_str) != Some("20261125200000") {
                let version = conn.revert_last_migration(SQLITE_MIGRATIONS).unwrap();
                reverted.push(version.to_string());
                assert!(reverted.len() < 10, "search_listing_order: {reverted:?}");
            }
            reverted.len()
        };
        // Numbered as they come, then renamed, under the earlier triggers.
        db.import_users(&users(0, 200)).unwrap();
        db.read(|conn| {
            Statement::plain(
                "UPDATE users SET lastname = 'Zz' || lastname, \
                     search_text = search_text || ' zz' WHERE rowid % 7 = 0",
            )
            .execute(conn)
        })
        .unwrap();
        assert_eq!(db.migrate().unwrap(), reverted);

        let groups = numbers(
            &db,
            Statement::plain(
                "SELECT search_row >> 21 AS n FROM users ORDER BY lastname, firstname, id",
            ),
        );
        assert_eq!(groups.len(), 200);
        assert!(groups.windows(2).all(|w| w[0] <= w[1]), "{groups:?}");
        assert!(
            groups.windows(2).any(|w| w[0] < w[1]),
            "one group: {groups:?}"
        );
        let distinct = numbers(
            &db,
            Statement::plain("SELECT count(DISTINCT search_row) AS n FROM users"),
        );
        assert_eq!(distinct, [200]);
        for text in ["smith", " zz", "éva", "ab1"] {
            let mut indexed = numbers(
                &db,
                bound(
                    "SELECT rowid AS n FROM users_search WHERE users_search MATCH",
                    format!("\"{text}\""),
                ),
            );
            let mut held = numbers(
                &db,
                bound(
                    "SELECT search_row AS n FROM users WHERE search_text LIKE",
                    format!("%{text}%"),
                ),
            );
            indexed.sort_unstable();
            held.sort_unstable();
            assert!(!held.is_empty(), "{text}");
            assert_eq!(indexed, held, "{text}");
        }
        drop(db);
        std::fs::remove_dir_all(folder).unwrap();
    }

    /// Learners stored before the migration `ranked_learners` are marked
    /// by it as their users stand: ACTIVE and not hidden is ranked,
    /// hidden or deactivated is not.
    #[test]
    fn the_ranked_migration_marks_the_learners_already_stored() {
        use diesel::sql_types::Text;
        use kenning_domain::{LanguageId, NewUser, NewUserInput, User, UserId};

        #[derive(diesel::QueryableByName)]
        struct Ranked {
            #[diesel(sql_type = Text)]
            email: String,
        }
        let (folder, db) = migrated_file("kenning-ranked-learners");
        // Back to before the ranked migration, through any that came after.
        let reverted = {
            let mut conn = db.pooled().unwrap();
            let DbConnection::Sqlite(conn) = &mut *conn else {
                unreachable!("a SQLite file");
            };
            let mut reverted = 0;
            loop {
                let version = conn.revert_last_migration(SQLITE_MIGRATIONS).unwrap();
                reverted += 1;
                if version.to_string() == "20261128000000" {
                    break reverted;
                }
            }
        };
        let language = LanguageId::parse("en").unwrap();
        let people: Vec<User> = ["active", "hidden", "resting"]
            .into_iter()
            .map(|name| {
                let input = NewUserInput {
                    email: format!("{name}@example.com"),
                    firstname: name.to_owned(),
                    lastname: "Learner".to_owned(),
                    ..NewUserInput::default()
                };
                let new = NewUser::parse(input, &language).unwrap();
                User::register(UserId::from_uuid(uuid::Uuid::new_v4()), new, Utc::now())
            })
            .collect();
        db.import_users(&people).unwrap();
        for sql in [
            "INSERT INTO learners (user_id, actions) SELECT id, 1 FROM users",
            "UPDATE users SET is_hidden = TRUE WHERE email = 'hidden@example.com'",
            "UPDATE users SET status = 'DEACTIVATED' WHERE email = 'resting@example.com'",
        ] {
            db.read(|conn| Statement::plain(sql).execute(conn)).unwrap();
        }
        assert_eq!(db.migrate().unwrap(), reverted);

        let ranked: Vec<String> = db
            .read(|conn| {
                Statement::plain(
                    "SELECT u.email FROM learners l JOIN users u ON u.id = l.user_id \
                     WHERE l.ranked ORDER BY u.email",
                )
                .load::<Ranked>(conn)
            })
            .unwrap()
            .into_iter()
            .map(|row| row.email)
            .collect();
        assert_eq!(ranked, ["active@example.com"]);
        drop(db);
        std::fs::remove_dir_all(folder).unwrap();
    }
}
