//! Fresh databases for tests: a SQLite file in a new temporary folder, or a
//! new PostgreSQL database on the server named by `KENNING_TEST_POSTGRES_URL`.
//! Each is removed when dropped.

use std::path::PathBuf;

use diesel::{Connection, PgConnection, RunQueryDsl};
use uuid::Uuid;

/// The environment variable holding the PostgreSQL admin URL for tests.
pub const POSTGRES_ENV: &str = "KENNING_TEST_POSTGRES_URL";

/// Which database a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A database that exists for one test.
#[derive(Debug)]
pub struct TestDatabase {
    url: String,
    cleanup: Cleanup,
}

#[derive(Debug)]
enum Cleanup {
    Folder(PathBuf),
    Postgres { admin_url: String, name: String },
}

/// The PostgreSQL admin URL, or `None` after saying loudly that the
/// PostgreSQL variant of `test` is skipped. Under cargo the variants are
/// ignored when the variable is unset (see `build.rs`); this is for a test
/// binary run by hand without it.
pub fn postgres_admin_url(test: &str) -> Option<String> {
    match std::env::var(POSTGRES_ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            eprintln!(
                "SKIPPED {test}: {POSTGRES_ENV} is not set, so this PostgreSQL test did not run"
            );
            None
        }
    }
}

/// `admin_url` with its database name replaced by `name`.
fn with_database(admin_url: &str, name: &str) -> String {
    let (base, query) = match admin_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (admin_url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].rfind('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// The collation of every PostgreSQL test database: a linguistic one
/// (ICU's English, where "é" sorts between "e" and "f" and case is
/// ignored at first), as the official image's `en_US.UTF-8` is, so that no
/// query may depend on a bytewise order without saying `COLLATE "C"`.
/// SQLite, which compares bytewise, runs the same tests.
pub const POSTGRES_COLLATION: &str = "LOCALE_PROVIDER icu ICU_LOCALE 'en-US'";

/// Creates the database `name` with [`POSTGRES_COLLATION`]; a server
/// without ICU makes this fail loudly, since the tests would then not
/// check what they say.
fn create_linguistic(admin: &mut PgConnection, name: &str) {
    diesel::sql_query(format!(
        "CREATE DATABASE {name} TEMPLATE template0 {POSTGRES_COLLATION}"
    ))
    .execute(admin)
    .unwrap_or_else(|e| {
        panic!(
            "create a test database with a linguistic collation ({POSTGRES_COLLATION}): {e}; \
             the PostgreSQL server needs ICU (PostgreSQL 15 or later)"
        )
    });
}

impl TestDatabase {
    /// A new, empty database; `None` for PostgreSQL when no server is named.
    pub fn fresh(backend: Backend, test: &str) -> Option<Self> {
        let id = Uuid::new_v4().simple().to_string();
        match backend {
            Backend::Sqlite => {
                let folder = std::env::temp_dir().join(format!("kenning-test-{id}"));
                std::fs::create_dir_all(&folder).expect("create a temporary folder");
                let url = format!("sqlite://{}", folder.join("kenning.db").display());
                Some(Self {
                    url,
                    cleanup: Cleanup::Folder(folder),
                })
            }
            Backend::Postgres => {
                let admin_url = postgres_admin_url(test)?;
                let name = format!("kenning_t_{id}");
                let mut admin = PgConnection::establish(&admin_url)
                    .unwrap_or_else(|e| panic!("{POSTGRES_ENV} is set but unusable: {e}"));
                create_linguistic(&mut admin, &name);
                Some(Self {
                    url: with_database(&admin_url, &name),
                    cleanup: Cleanup::Postgres { admin_url, name },
                })
            }
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Runs the statements `sql` on the database, on a connection of its
    /// own (beside any store open on it).
    pub fn execute(&self, sql: &str) {
        use diesel::connection::SimpleConnection;
        match self.url.strip_prefix("sqlite://") {
            Some(path) => diesel::SqliteConnection::establish(path)
                .unwrap()
                .batch_execute(sql)
                .unwrap(),
            None => PgConnection::establish(&self.url)
                .unwrap()
                .batch_execute(sql)
                .unwrap(),
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        match &self.cleanup {
            Cleanup::Folder(folder) => {
                let _ = std::fs::remove_dir_all(folder);
            }
            Cleanup::Postgres { admin_url, name } => {
                if let Ok(mut admin) = PgConnection::establish(admin_url) {
                    let _ =
                        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                            .execute(&mut admin);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn replaces_only_the_database_name() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/test", "x"),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            with_database("postgres://u:p@h/test?sslmode=disable", "x"),
            "postgres://u:p@h/x?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://h:5432", "x"),
            "postgres://h:5432/x"
        );
    }
}
