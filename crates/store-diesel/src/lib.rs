//! Kenning's storage on a relational database through diesel: an embedded
//! SQLite file for a team, PostgreSQL when several stateless instances share
//! one database. The backend is chosen from the URL scheme.
//!
//! Both backends run the same query code on one connection type
//! (`DbConnection`, diesel's derived `MultiConnection`); what differs
//! is the connection setup, the write transaction (SQLite takes the write
//! lock up front with `BEGIN IMMEDIATE`, so its busy timeout applies), the
//! raw SQL and the migration set.

mod checkpoints;
mod connection;
mod credentials;
mod expertise;
mod filter;
mod groups;
mod kept;
mod plans;
mod rarity;
mod rows;
mod schema;
mod search;
mod sql;
mod trigrams;
mod users;

pub use plans::QueryPlan;

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::{QueryResult, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use kenning_domain::{Email, ExternalId};
use kenning_ports::StoreError;
use r2d2::{Pool, PooledConnection};
use scheduled_thread_pool::ScheduledThreadPool;

use crate::connection::{DbConnection, Manager, SessionSettings};
use crate::rarity::Rarity;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// How long a caller waits for a free pooled connection.
const POOL_TIMEOUT: Duration = Duration::from_secs(10);
/// An arbitrary key for the PostgreSQL advisory lock held while migrating,
/// so that instances starting together do not migrate twice.
const MIGRATION_LOCK_KEY: i64 = 0x6b65_6e6e_696e_6701;

/// Why [`Database::connect`] or [`Database::migrate`] failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "unsupported database URL scheme `{0}`: use sqlite://PATH, a file path, or postgres://..."
    )]
    UnsupportedScheme(String),
    #[error("an in-memory SQLite database would not be shared by the connection pool; use a file")]
    InMemorySqlite,
    #[error("cannot create the folder {path}: {source}")]
    CreateFolder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open the {backend} database: {message}")]
    Connect {
        backend: &'static str,
        message: String,
    },
    #[error("cannot apply migrations: {0}")]
    Migrate(String),
    #[error("cannot resolve the database path {path}: {source}")]
    Resolve {
        path: String,
        source: std::io::Error,
    },
}

/// Where a database URL points.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Sqlite(String),
    Postgres(String),
}

fn target(url: &str) -> Result<Target, OpenError> {
    let url = url.trim();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Target::Postgres(url.to_owned()));
    }
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    if path.is_empty() || path == ":memory:" || path.starts_with("file::memory:") {
        return Err(OpenError::InMemorySqlite);
    }
    // `scheme://...` that is none of ours; a Windows drive letter or a
    // relative path with a colon later on is still a path.
    if let Some((scheme, _)) = url.split_once("://") {
        if path == url {
            return Err(OpenError::UnsupportedScheme(scheme.to_owned()));
        }
    }
    Ok(Target::Sqlite(path.to_owned()))
}

/// Where a database URL points, as the operator should see it: a SQLite
/// path made absolute against the working directory (the file that will be
/// opened), a PostgreSQL URL without its password or parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The path given to SQLite: absolute, unless it is a `file:` URI or
    /// the working directory is not UTF-8, which are kept as given.
    Sqlite(String),
    /// The full PostgreSQL URL, credentials included; `Display` leaves them out.
    Postgres(String),
}

impl Location {
    /// Reads a database URL (see [`Database::connect_with`]) and resolves a
    /// relative SQLite path against the working directory.
    pub fn parse(url: &str) -> Result<Self, OpenError> {
        match target(url)? {
            Target::Postgres(url) => Ok(Location::Postgres(url)),
            Target::Sqlite(path) if path.starts_with("file:") => Ok(Location::Sqlite(path)),
            Target::Sqlite(path) => match std::path::absolute(&path) {
                Ok(absolute) => Ok(Location::Sqlite(
                    absolute.into_os_string().into_string().unwrap_or(path),
                )),
                Err(source) => Err(OpenError::Resolve { path, source }),
            },
        }
    }

    /// The backend's name for people: `SQLite` or `PostgreSQL`.
    pub(crate) fn backend(&self) -> &'static str {
        match self {
            Location::Sqlite(_) => "SQLite",
            Location::Postgres(_) => "PostgreSQL",
        }
    }

    /// Whether there is a database to open: the SQLite file exists.
    /// Connecting never creates a PostgreSQL database, so that is always
    /// taken to exist (a missing one fails to connect).
    pub fn exists(&self) -> bool {
        match self {
            Location::Sqlite(path) => Path::new(path).is_file(),
            Location::Postgres(_) => true,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => f.write_str(path),
            Location::Postgres(url) => f.write_str(&without_secrets(url)),
        }
    }
}

/// A `postgres://` URL without the password and the parameters after `?`
/// (which may hold a password too), for messages and logs.
fn without_secrets(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{user}@{host}")
        }
        None => authority.to_owned(),
    };
    if path.is_empty() {
        format!("{scheme}://{authority}")
    } else {
        format!("{scheme}://{authority}/{path}")
    }
}

/// Tries one connection first, so that a wrong URL fails at once with the
/// driver's reason (on one line) instead of after the pool's timeout.
fn check(location: &Location) -> Result<(), OpenError> {
    connection::establish(location)
        .map(drop)
        .map_err(|e| OpenError::Connect {
            backend: location.backend(),
            message: e
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        })
}

/// The answer of SQLite's `PRAGMA wal_checkpoint`.
#[derive(Debug, diesel::QueryableByName)]
struct Checkpoint {
    /// 1 when a reader or writer kept the checkpoint from completing.
    #[diesel(sql_type = diesel::sql_types::Integer)]
    busy: i32,
}

/// The tables that hold, or held, a user's personal data or what was
/// learned from its uploads.
const PERSONAL_TABLES: &str = "users, actions, action_topics, standings, learners, topic_learners";

/// How many group writes of each kind run at once on PostgreSQL (its pool
/// holds 10 connections).
const POSTGRES_GROUP_WRITERS: usize = 4;

/// The page cache of SQLite's connection for recording uploads, KiB.
const UPLOAD_CACHE_KIB: u32 = 32 * 1024;

/// How a pool may use its background threads.
///
/// r2d2 opens every connection on its own threads. A pool that keeps idle
/// connections ready starts opening one as soon as a caller takes the last,
/// whether or not anyone will need it. A process that ends meanwhile runs
/// libpq's and OpenSSL's exit handlers under that thread, which then
/// crashes the process: a command that did its work exits with a
/// segmentation fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// For a server: one idle connection is kept ready, and connections
    /// that idled or lived long are closed in the background.
    Background,
    /// For a short-lived command: a connection is opened only while a
    /// caller waits for it, and closed only when the pool is dropped, by
    /// the thread that drops it. Once the caller has its connection no
    /// pool thread is inside the database driver, and dropping the
    /// [`Database`] waits until the connection thread (one per process,
    /// shared by such pools and never stopped) has let go of the pool, so
    /// the process can exit.
    OnDemand,
}

impl Pooling {
    /// A pool builder; an [`Pooling::OnDemand`] pool opens its connections
    /// on `connector`'s thread.
    fn builder(self, max_size: u32, connector: Option<&Connector>) -> r2d2::Builder<Manager> {
        let builder = Pool::builder()
            .max_size(max_size)
            .connection_timeout(POOL_TIMEOUT);
        let builder = match connector {
            Some(connector) => builder.thread_pool(connector.0.clone()),
            None => builder,
        };
        match self {
            Pooling::Background => builder.min_idle(Some(1)),
            // No idle minimum (r2d2's default is the pool's size) and no
            // reaper: nothing for the threads to do unless asked.
            Pooling::OnDemand => builder
                .min_idle(Some(0))
                .idle_timeout(None)
                .max_lifetime(None),
        }
    }
}

/// A pool of connections to one database.
#[derive(Debug, Clone)]
pub struct Database {
    pool: Pool<Manager>,
    /// SQLite's connection for recording uploads (see
    /// [`Database::write_uploads`]); PostgreSQL's are recorded on `pool`.
    uploads: Option<Pool<Manager>>,
    backend_name: &'static str,
    /// How common each trigram of the users' texts is, for search.
    rarity: Arc<Rarity>,
    /// The thread an [`Pooling::OnDemand`] pool opens connections on (the
    /// process's one, [`Connector::shared`]); `None` for a server's pools.
    connector: Option<Connector>,
    /// SQLite's checkpoints, made beside the writers while the store
    /// lives; `None` on PostgreSQL.
    _checkpoints: Option<Arc<checkpoints::Checkpoints>>,
}

/// The thread [`Pooling::OnDemand`] pools open connections on.
#[derive(Clone)]
struct Connector(Arc<ScheduledThreadPool>);

impl Connector {
    /// The process's one connection thread, shared by its on-demand
    /// pools. It lives as long as the process and is never stopped: a
    /// thread that ends runs its thread-local destructors, the TLS
    /// library's among them, and one ending while the process exits
    /// races that library's exit handlers over the same state (seen as
    /// rare heap corruption at the end of a command on PostgreSQL, which
    /// connects over TLS). An idle thread at exit is simply gone.
    fn shared() -> Self {
        static SHARED: LazyLock<Arc<ScheduledThreadPool>> = LazyLock::new(|| {
            Arc::new(
                ScheduledThreadPool::builder()
                    .num_threads(1)
                    .thread_name_pattern("kenning-connect-{}")
                    .build(),
            )
        });
        Self(Arc::clone(&SHARED))
    }
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Connector")
    }
}

impl Drop for Database {
    /// A connection the pool's thread opened is handed over while that
    /// thread still holds the pool: had the caller's work finished first,
    /// the pool, with its connections, would be closed there, possibly as
    /// the process exits, inside the driver's exit handlers (seen as a
    /// rare crash at the end of a command). So the thread is first given
    /// a last job and waited for; the pools are then closed here.
    fn drop(&mut self) {
        if let Some(connector) = &self.connector {
            let (done, finished) = std::sync::mpsc::channel();
            connector.0.execute(move || {
                let _ = done.send(());
            });
            if finished.recv_timeout(POOL_TIMEOUT).is_err() {
                log::warn!("the pool's connection thread did not finish in time");
            }
        }
    }
}

impl Database {
    /// Opens a pool on `url` for a server ([`Pooling::Background`]); see
    /// [`Database::connect_with`].
    pub fn connect(url: &str) -> Result<Self, OpenError> {
        Self::connect_with(url, Pooling::Background)
    }

    /// Opens a pool on `url`: `postgres://` or `postgresql://` for
    /// PostgreSQL; `sqlite://PATH`, `sqlite:PATH` or a plain path for a
    /// SQLite file at [`Location::parse`]'s path, which is created, with
    /// its folder, if needed.
    pub fn connect_with(url: &str, pooling: Pooling) -> Result<Self, OpenError> {
        let location = Location::parse(url)?;
        let connector = (pooling == Pooling::OnDemand).then(Connector::shared);
        let builder = match &location {
            Location::Sqlite(path) => {
                if let Some(parent) = Path::new(path).parent() {
                    if !parent.as_os_str().is_empty() {
                        std::fs::create_dir_all(parent).map_err(|source| {
                            OpenError::CreateFolder {
                                path: parent.to_owned(),
                                source,
                            }
                        })?;
                    }
                }
                pooling.builder(8, connector.as_ref())
            }
            Location::Postgres(_) => pooling.builder(10, connector.as_ref()),
        };
        check(&location)?;
        let backend = location.backend();
        let backend_name = match location {
            Location::Sqlite(_) => "sqlite",
            Location::Postgres(_) => "postgres",
        };
        // r2d2 reports only what the driver said, never the URL, so a
        // password in it does not reach the logs.
        let failed = |e: r2d2::Error| OpenError::Connect {
            backend,
            message: e.to_string(),
        };
        let checkpoints = match &location {
            Location::Sqlite(_) => Some(Arc::new(checkpoints::Checkpoints::start(&location))),
            Location::Postgres(_) => None,
        };
        let uploads = match &location {
            Location::Sqlite(_) => Some(
                pooling
                    .builder(1, connector.as_ref())
                    .min_idle(Some(0))
                    .connection_customizer(Box::new(SessionSettings {
                        sqlite_cache_kib: Some(UPLOAD_CACHE_KIB),
                    }))
                    .build(Manager(location.clone()))
                    .map_err(failed)?,
            ),
            Location::Postgres(_) => None,
        };
        let pool = builder
            .connection_customizer(Box::new(SessionSettings::default()))
            .build(Manager(location))
            .map_err(failed)?;
        Ok(Self {
            pool,
            uploads,
            backend_name,
            rarity: Arc::default(),
            connector,
            _checkpoints: checkpoints,
        })
    }

    /// `sqlite` or `postgres`.
    pub fn backend_name(&self) -> &'static str {
        self.backend_name
    }

    /// Applies the migrations that have not run yet; returns how many ran.
    pub fn migrate(&self) -> Result<usize, OpenError> {
        let failed = |e: &dyn std::fmt::Display| OpenError::Migrate(e.to_string());
        let mut conn = self.pool.get().map_err(|e| failed(&e))?;
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

    /// Removes the old versions of erased rows that the database keeps in
    /// its files; see [`kenning_ports::UserRepository::compact_after_erasure`].
    ///
    /// SQLite: with `secure_delete` the erasing writes zeroed the freed
    /// space, but the pages as they were before still sit in the WAL until a
    /// checkpoint; a `TRUNCATE` checkpoint copies the current pages into
    /// the database file and empties the WAL. It waits (up to the busy
    /// timeout) for readers of older snapshots, and tries again while
    /// another connection makes a checkpoint (the store's checkpoint
    /// thread, or another process's: SQLite answers that at once, without
    /// waiting); if a reader or a checkpoint still holds on past the busy
    /// timeout, this fails rather than claim the WAL is clean.
    ///
    /// PostgreSQL: `VACUUM` on the tables that held personal data frees the
    /// dead row versions the erasing updates and deletes left behind, and
    /// their index entries, so no query, and no page that gets reused, gives
    /// them back. It does not overwrite the bytes at once, nor reach the WAL,
    /// replicas or backups. It runs outside a transaction, as it must.
    pub(crate) fn compact_after_erasure(&self) -> Result<(), StoreError> {
        let mut conn = self.connection()?;
        match &mut *conn {
            DbConnection::Sqlite(conn) => {
                let started = std::time::Instant::now();
                loop {
                    let checkpoint: Checkpoint =
                        diesel::sql_query("PRAGMA wal_checkpoint(TRUNCATE)")
                            .get_result(conn)
                            .map_err(store_error)?;
                    if checkpoint.busy == 0 {
                        break;
                    }
                    if started.elapsed() >= connection::SQLITE_BUSY_TIMEOUT {
                        return Err(StoreError::backend_message(
                            "the WAL checkpoint after an erasure could not complete: \
                             a reader held an older snapshot, or another checkpoint ran, \
                             past the busy timeout",
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            DbConnection::Postgres(conn) => {
                diesel::sql_query(format!("VACUUM {PERSONAL_TABLES}"))
                    .execute(conn)
                    .map_err(store_error)?;
            }
        }
        Ok(())
    }

    fn connection(&self) -> Result<PooledConnection<Manager>, StoreError> {
        self.pool.get().map_err(StoreError::backend)
    }

    /// Runs `work` on a pooled connection.
    pub(crate) fn read<T>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> QueryResult<T>,
    ) -> Result<T, StoreError> {
        let mut conn = self.connection()?;
        work(&mut conn).map_err(store_error)
    }

    /// [`Database::write`] for recording uploads. On SQLite it runs on a
    /// connection of its own with a page cache of [`UPLOAD_CACHE_KIB`]: a
    /// group of uploads changes thousands of index pages (each action's
    /// topics land at scattered places of the ranked indexes), which
    /// SQLite's default cache of 2 MiB spills to the log and reads back
    /// again within the same transaction; one connection, so that only one
    /// such cache is kept.
    pub(crate) fn write_uploads<T, E>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<DieselError> + From<StoreError>,
    {
        let Some(uploads) = &self.uploads else {
            return self.write(work);
        };
        let mut conn = uploads.get().map_err(StoreError::backend)?;
        connection::write_transaction(&mut conn, work)
    }

    /// How many group writes (of uploads, of new users) are worth running
    /// at once: SQLite writes one transaction at a time; PostgreSQL's
    /// writers overlap their round trips and syncs, on a share of the
    /// pool.
    pub(crate) fn group_writers(&self) -> usize {
        match self.backend_name {
            "postgres" => POSTGRES_GROUP_WRITERS,
            _ => 1,
        }
    }

    /// Runs `work` in a write transaction on a pooled connection; see
    /// [`connection::write_transaction`]. An `Err` rolls back.
    pub(crate) fn write<T, E>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<DieselError> + From<StoreError>,
    {
        let mut conn = self.connection()?;
        connection::write_transaction(&mut conn, work)
    }
}

/// Which public field a unique index guards.
fn conflicting_field(info: &dyn diesel::result::DatabaseErrorInformation) -> Option<&'static str> {
    // PostgreSQL names the index; SQLite only says which columns.
    let said = format!(
        "{} {}",
        info.constraint_name().unwrap_or_default(),
        info.message()
    );
    if said.contains("user_name_key") {
        Some(kenning_domain::UserName::FIELD)
    } else if said.contains("email_key") {
        Some(Email::FIELD)
    } else if said.contains("external_id") {
        Some(ExternalId::FIELD)
    } else {
        None
    }
}

/// A diesel failure as the ports see it.
pub(crate) fn store_error(error: DieselError) -> StoreError {
    let field = match &error {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            conflicting_field(info.as_ref())
        }
        _ => None,
    };
    match field {
        Some(field) => StoreError::Conflict { field },
        None => StoreError::backend(error),
    }
}

/// Whether a unique index refused the write.
pub(crate) fn is_unique_violation(error: &DieselError) -> bool {
    matches!(
        error,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    #[test]
    fn the_scheme_picks_the_backend() {
        assert_eq!(
            target("postgres://u@h/db").unwrap(),
            Target::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            target("postgresql://h/db").unwrap(),
            Target::Postgres("postgresql://h/db".into())
        );
        assert_eq!(
            target("sqlite://data/k.db").unwrap(),
            Target::Sqlite("data/k.db".into())
        );
        assert_eq!(
            target("sqlite:///tmp/k.db").unwrap(),
            Target::Sqlite("/tmp/k.db".into())
        );
        assert_eq!(
            target("sqlite:k.db").unwrap(),
            Target::Sqlite("k.db".into())
        );
        assert_eq!(
            target("data/k.db").unwrap(),
            Target::Sqlite("data/k.db".into())
        );
    }

    #[test]
    fn unknown_schemes_and_memory_databases_are_refused() {
        assert!(matches!(
            target("mysql://root:secret@h/db"),
            Err(OpenError::UnsupportedScheme(s)) if s == "mysql"
        ));
        assert!(matches!(target(":memory:"), Err(OpenError::InMemorySqlite)));
        assert!(matches!(
            target("sqlite://"),
            Err(OpenError::InMemorySqlite)
        ));
    }

    #[test]
    fn a_location_is_absolute_and_keeps_no_secret() {
        let here = std::env::current_dir().unwrap();
        let expected = here.join("data/k.db").to_str().unwrap().to_owned();
        assert_eq!(
            Location::parse("sqlite://data/k.db").unwrap(),
            Location::Sqlite(expected.clone())
        );
        assert_eq!(Location::parse("data/k.db").unwrap().to_string(), expected);
        assert_eq!(
            Location::parse("sqlite:///tmp/k.db").unwrap().to_string(),
            "/tmp/k.db"
        );
        assert_eq!(
            Location::parse("postgres://kenning:hunter2@db:5432/kenning?password=hunter2")
                .unwrap()
                .to_string(),
            "postgres://kenning@db:5432/kenning"
        );
        assert_eq!(
            Location::parse("postgresql://db").unwrap().to_string(),
            "postgresql://db"
        );
    }

    /// A fresh SQLite file in a folder of its own (named after `name`),
    /// migrated; the folder is the caller's to remove.
    fn migrated_file(name: &str) -> (PathBuf, Database) {
        let folder = std::env::temp_dir().join(format!(
            "{name}-{}-{}",
            std::process::id(),
            Utc::now().timestamp_nanos_opt().unwrap()
        ));
        let path = folder.join("k.db");
        let db = Database::connect_with(path.to_str().unwrap(), Pooling::OnDemand).unwrap();
        db.migrate().unwrap();
        (folder, db)
    }

    /// A commit reaches the database file without any writer making a
    /// checkpoint: the store's thread copies the log there (a writer
    /// would only past `WAL_BOUND_PAGES` of log, far more than this).
    #[test]
    fn the_checkpoint_thread_copies_commits_into_the_database_file() {
        let (folder, db) = migrated_file("kenning-checkpoints");
        let file = folder.join("k.db");
        // An open connection: SQLite also checkpoints when the last one
        // closes, which must not be what copies the log here.
        let open = db.connection().unwrap();
        let before = std::fs::metadata(&file).unwrap().len();
        db.write(|conn| {
            diesel::sql_query("CREATE TABLE filler (bytes BLOB NOT NULL)").execute(conn)?;
            diesel::sql_query(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 512) \
                 INSERT INTO filler (bytes) SELECT randomblob(4096) FROM n",
            )
            .execute(conn)
            .map_err(connection::TxError::from)
        })
        .unwrap();
        let copied = |at_least: u64| std::fs::metadata(&file).unwrap().len() >= at_least;
        let started = std::time::Instant::now();
        while !copied(before + 2 * 1024 * 1024) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the log was not copied into the database file"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(open);
        drop(db);
        std::fs::remove_dir_all(folder).unwrap();
    }

    #[test]
    fn a_failed_query_keeps_the_database_message_as_its_source() {
        use kenning_ports::ExpertiseStore;
        use std::error::Error;

        let (folder, db) = migrated_file("kenning-store-error");
        db.read(|conn| diesel::sql_query("DROP TABLE learner_totals").execute(conn))
            .unwrap();

        let error = db.population().unwrap_err();
        assert!(matches!(error, StoreError::Backend(_)), "{error:?}");
        assert_eq!(error.to_string(), "storage failure");
        let source = error.source().unwrap().to_string();
        assert!(source.contains("no such table: learner_totals"), "{source}");

        drop(db);
        std::fs::remove_dir_all(folder).unwrap();
    }

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
        let numbers = |db: &Database, sql: &str, binds: Vec<sql::Bind>| -> Vec<i64> {
            db.read(|conn| sql::Statement::new(sql, binds).load::<Row>(conn))
                .unwrap()
                .into_iter()
                .map(|row| row.n)
                .collect()
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
            let mut conn = db.pool.get().unwrap();
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
            sql::Statement::new(
                "UPDATE users SET lastname = 'Zz' || lastname, \
                     search_text = search_text || ' zz' WHERE rowid % 7 = 0",
                vec![],
            )
            .execute(conn)
        })
        .unwrap();
        assert_eq!(db.migrate().unwrap(), reverted);

        let groups = numbers(
            &db,
            "SELECT search_row >> 21 AS n FROM users ORDER BY lastname, firstname, id",
            vec![],
        );
        assert_eq!(groups.len(), 200);
        assert!(groups.windows(2).all(|w| w[0] <= w[1]), "{groups:?}");
        assert!(
            groups.windows(2).any(|w| w[0] < w[1]),
            "one group: {groups:?}"
        );
        let distinct = numbers(
            &db,
            "SELECT count(DISTINCT search_row) AS n FROM users",
            vec![],
        );
        assert_eq!(distinct, [200]);
        for text in ["smith", " zz", "éva", "ab1"] {
            let mut indexed = numbers(
                &db,
                "SELECT rowid AS n FROM users_search WHERE users_search MATCH ?1",
                vec![sql::Bind::Text(format!("\"{text}\""))],
            );
            let mut held = numbers(
                &db,
                "SELECT search_row AS n FROM users WHERE search_text LIKE ?1",
                vec![sql::Bind::Text(format!("%{text}%"))],
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
            let mut conn = db.pool.get().unwrap();
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
            db.read(|conn| sql::Statement::new(sql, vec![]).execute(conn))
                .unwrap();
        }
        assert_eq!(db.migrate().unwrap(), reverted);

        let ranked: Vec<String> = db
            .read(|conn| {
                sql::Statement::new(
                    "SELECT u.email FROM learners l JOIN users u ON u.id = l.user_id \
                     WHERE l.ranked ORDER BY u.email",
                    vec![],
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
