//! The migrations, embedded per backend (`migrations/sqlite`,
//! `migrations/postgres`) and applied by [`Database::migrate`], which the
//! binary calls whenever it opens a database. On PostgreSQL they run under
//! an advisory lock, so instances that start together do not migrate
//! twice.

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

    use super::*;
    use crate::database::tests::{migrated_file, registered};
    use crate::location::Backend;
    use crate::search::sqlite::LISTING_GROUP_BITS;
    use crate::sql::{Binder, Statement};

    /// The migration that numbers SQLite's trigram index in listing
    /// groups, whose arithmetic on row numbers spells out
    /// [`LISTING_GROUP_BITS`].
    const LISTING_ORDER: &str =
        include_str!("../../../migrations/sqlite/2026-11-25-200000_search_listing_order/up.sql");

    /// The bits of one character's value in a listing group.
    const BUCKET_BITS: u32 = 6;

    /// The arithmetic of row numbers and listing groups that `sql` spells
    /// out, outside its comments and strings.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Arithmetic {
        /// The shifts of a row number or a listing group, by bits.
        group_shifts: Vec<u32>,
        /// The shifts that put a character's value in its place within a
        /// group (of `b1` to `b7`), by bits.
        bucket_shifts: Vec<u32>,
        /// The numbers as large as a group's places (offsets within a
        /// group: its last place, the one before).
        offsets: Vec<u64>,
    }

    fn arithmetic(sql: &str) -> Arithmetic {
        // Comments and quoted strings out: a comment names widths in
        // words, the buckets' string is digits.
        let mut code = String::new();
        let mut rest = sql;
        while let Some(at) = rest.find(['\'', '-']) {
            code.push_str(&rest[..at]);
            let tail = &rest[at..];
            if let Some(quoted) = tail.strip_prefix('\'') {
                rest = quoted.find('\'').map_or("", |end| &quoted[end + 1..]);
                code.push_str("''");
            } else if tail.starts_with("--") {
                rest = tail.find('\n').map_or("", |end| &tail[end..]);
            } else {
                code.push('-');
                rest = &tail[1..];
            }
        }
        code.push_str(rest);

        let mut found = Arithmetic::default();
        for shift in ["<<", ">>"] {
            for (at, _) in code.match_indices(shift) {
                let bits: String = code[at + 2..]
                    .trim_start()
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                let bits: u32 = bits.parse().unwrap();
                let operand = code[..at]
                    .trim_end()
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                    .next()
                    .unwrap();
                let is_bucket = operand.len() == 2
                    && operand.starts_with('b')
                    && operand[1..].chars().all(|c| c.is_ascii_digit());
                if is_bucket {
                    found.bucket_shifts.push(bits);
                } else {
                    found.group_shifts.push(bits);
                }
            }
        }
        for word in code.split(|c: char| !c.is_ascii_alphanumeric()) {
            if let Ok(number) = word.parse::<u64>() {
                if number >= 1 << 16 {
                    found.offsets.push(number);
                }
            }
        }
        found
    }

    /// Whether `found` agrees with [`LISTING_GROUP_BITS`]: every shift of a
    /// row number or a group is by it, every offset is a group's last
    /// place or the one before, and a group (of whole characters' values)
    /// with its places fits in a positive 64-bit row number.
    fn disagreements(found: &Arithmetic) -> Vec<String> {
        let places = 1u64 << LISTING_GROUP_BITS;
        let mut wrong = Vec::new();
        for bits in &found.group_shifts {
            if *bits != LISTING_GROUP_BITS {
                wrong.push(format!("a group shifted by {bits} bits"));
            }
        }
        for offset in &found.offsets {
            if *offset != places - 1 && *offset != places - 2 {
                wrong.push(format!("the offset {offset} within a group"));
            }
        }
        for bits in &found.bucket_shifts {
            let width = bits + BUCKET_BITS;
            if bits % BUCKET_BITS != 0 || width + LISTING_GROUP_BITS > 63 {
                wrong.push(format!("a character's value shifted by {bits} bits"));
            }
        }
        wrong
    }

    /// The migrations cannot name [`LISTING_GROUP_BITS`], and an applied
    /// migration is never edited: the width they spell out is checked
    /// here, in the migration that introduced it and in every other of
    /// either backend.
    #[test]
    fn the_migrations_spell_out_the_listing_group_width_of_the_code() {
        let listing_order = arithmetic(LISTING_ORDER);
        let places = (1u64 << LISTING_GROUP_BITS) - 1;
        assert_eq!(listing_order.group_shifts.len(), 4, "{listing_order:?}");
        assert_eq!(
            listing_order.offsets,
            [places, places - 1, places],
            "{listing_order:?}"
        );
        assert_eq!(
            listing_order.bucket_shifts,
            [36, 30, 24, 18, 12, 6],
            "{listing_order:?}"
        );
        assert_eq!(disagreements(&listing_order), Vec::<String>::new());

        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations");
        let mut read = 0;
        for backend in ["sqlite", "postgres"] {
            for migration in std::fs::read_dir(format!("{root}/{backend}")).unwrap() {
                for file in ["up.sql", "down.sql"] {
                    let path = migration.as_ref().unwrap().path().join(file);
                    let sql = std::fs::read_to_string(&path).unwrap();
                    let wrong = disagreements(&arithmetic(&sql));
                    assert!(wrong.is_empty(), "{}: {wrong:?}", path.display());
                    read += 1;
                }
            }
        }
        assert!(read > 50, "{read} migration files");
    }

    #[test]
    fn a_listing_group_width_that_disagrees_is_found() {
        let spelled = |bits: u32, offset: u64| {
            format!(
                "-- A row number is a listing group and a place (99 bits).\n\
                 SELECT (b1 << 36) + (b2 << 30), '0123456789', listing_group << {bits}, \
                 old.search_row >> {bits}, first + {offset}"
            )
        };
        let agreeing = spelled(LISTING_GROUP_BITS, (1 << LISTING_GROUP_BITS) - 1);
        assert_eq!(disagreements(&arithmetic(&agreeing)), Vec::<String>::new());
        let wider = spelled(LISTING_GROUP_BITS + 1, (1 << (LISTING_GROUP_BITS + 1)) - 1);
        assert_eq!(disagreements(&arithmetic(&wider)).len(), 3);
    }

    /// Users stored before the migration `search_listing_order`, some
    /// renamed, are numbered by it in listing groups that follow the
    /// listing order, and the trigram index is rebuilt to match.
    #[test]
    fn the_listing_order_migration_numbers_the_users_already_stored() {
        use diesel::sql_types::BigInt;
        use kenning_domain::User;

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
            (from..to)
                .map(|n| {
                    registered(
                        &format!("u{n}@example.com"),
                        ["Ada", "Éva", "Bo", "Zed"][n % 4],
                        ["Smith", "Smithson", "Ab1z", "Aéz", "Lee"][n % 5],
                    )
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
                assert!(reverted.len() < 20, "search_listing_order: {reverted:?}");
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
            Statement::plain(format!(
                "SELECT search_row >> {LISTING_GROUP_BITS} AS n FROM users \
                 ORDER BY lastname, firstname, id"
            )),
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
        use kenning_domain::User;

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
        let people: Vec<User> = ["active", "hidden", "resting"]
            .into_iter()
            .map(|name| registered(&format!("{name}@example.com"), name, "Learner"))
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
