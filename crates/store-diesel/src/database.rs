//! A database: its pools of connections, and the ways the store's code
//! runs on them (a read, a write transaction, the uploads' writer).
//!
//! [`Database::read`] runs on a pooled connection, [`Database::read_snapshot`]
//! in a read transaction (for reads of several statements whose answers
//! must agree) and [`Database::write`] in a write transaction. Uploads are
//! written through [`Database::write_uploads`]: on SQLite on a connection
//! of their own, whose page cache of [`UPLOAD_CACHE_KIB`] holds a group's
//! index pages; on PostgreSQL on the pool. [`Database::group_writers`] says
//! how many group writes run at once: one on SQLite, which writes one
//! transaction at a time, [`POSTGRES_GROUP_WRITERS`] on PostgreSQL.
//!
//! A SQLite database also gets its checkpoint thread
//! ([`crate::checkpoints`]). After an erasure,
//! [`Database::compact_after_erasure`] makes a `TRUNCATE` checkpoint on
//! SQLite and runs `VACUUM` on the personal tables on PostgreSQL.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::result::Error as DieselError;
use diesel::{QueryResult, RunQueryDsl};
use kenning_ports::{StoreError, UploadStage, UPLOAD_STAGES};
use r2d2::{Pool, PooledConnection};

use crate::checkpoints::Checkpoints;
use crate::connection::{self, DbConnection, Manager, SessionSettings};
use crate::errors::store_error;
use crate::location::{Backend, Location, OpenError};
use crate::pooling::{Connector, Pooling};
use crate::trigram_counts::TrigramCounts;

/// Tries one connection first, so that a wrong URL fails at once with the
/// driver's reason (on one line) instead of after the pool's timeout.
fn check(location: &Location) -> Result<(), OpenError> {
    connection::establish(location)
        .map(drop)
        .map_err(|e| OpenError::Connect {
            backend: location.backend().name(),
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

/// A pool of connections to one database.
#[derive(Debug, Clone)]
pub struct Database {
    pool: Pool<Manager>,
    /// SQLite's connection for recording uploads (see
    /// [`Database::write_uploads`]); PostgreSQL's are recorded on `pool`.
    uploads: Option<Pool<Manager>>,
    /// The backend of both pools.
    backend: Backend,
    /// How common each trigram of the users' texts is, for search.
    trigram_counts: Arc<TrigramCounts>,
    /// The thread an [`Pooling::OnDemand`] pool opens connections on (the
    /// process's one, [`Connector::shared`]); `None` for a server's pools.
    connector: Option<Connector>,
    /// SQLite's checkpoints, made beside the writers while the store
    /// lives; `None` on PostgreSQL.
    _checkpoints: Option<Arc<Checkpoints>>,
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
            connector.finish();
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
        // r2d2 reports only what the driver said, never the URL, so a
        // password in it does not reach the logs.
        let failed = |e: r2d2::Error| OpenError::Connect {
            backend: backend.name(),
            message: e.to_string(),
        };
        let checkpoints = match &location {
            Location::Sqlite(_) => Some(Arc::new(Checkpoints::start(&location))),
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
            backend,
            trigram_counts: Arc::default(),
            connector,
            _checkpoints: checkpoints,
        })
    }

    /// Removes the old versions of erased rows that the database keeps in
    /// its files; see [`kenning_ports::UserStore::compact_after_erasure`].
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

    /// How common each trigram of the users' texts is, for search.
    pub(crate) fn trigram_counts(&self) -> &TrigramCounts {
        &self.trigram_counts
    }

    /// A pooled connection, or why none came within the pool's timeout.
    pub(crate) fn pooled(&self) -> Result<PooledConnection<Manager>, r2d2::Error> {
        self.pool.get()
    }

    fn connection(&self) -> Result<PooledConnection<Manager>, StoreError> {
        self.pooled().map_err(StoreError::backend)
    }

    /// Runs `work` on a pooled connection.
    pub(crate) fn read<T>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> QueryResult<T>,
    ) -> Result<T, StoreError> {
        let mut conn = self.connection()?;
        work(&mut conn).map_err(store_error)
    }

    /// Runs `work` in a read transaction on a pooled connection, for reads
    /// of several statements whose answers must agree; see
    /// [`connection::read_transaction`].
    pub(crate) fn read_snapshot<T>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> QueryResult<T>,
    ) -> Result<T, StoreError> {
        self.read(|conn| connection::read_transaction(conn, work))
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
        let mut conn = match &self.uploads {
            Some(uploads) => uploads.get().map_err(StoreError::backend)?,
            None => self.connection()?,
        };
        // The transaction's own time, begun and committed, is the commit
        // stage: `work` adds its stages itself.
        let started = Instant::now();
        let mut working = Duration::ZERO;
        let done = connection::write_transaction(&mut conn, |conn| {
            let began = Instant::now();
            let done = work(conn);
            working = began.elapsed();
            done
        });
        UPLOAD_STAGES.add(
            UploadStage::Commit,
            started.elapsed().saturating_sub(working),
        );
        done
    }

    /// How many group writes (of uploads, of new users) are worth running
    /// at once: SQLite writes one transaction at a time; PostgreSQL's
    /// writers overlap their round trips and syncs, on a share of the
    /// pool.
    pub fn group_writers(&self) -> usize {
        match self.backend {
            Backend::Postgres => POSTGRES_GROUP_WRITERS,
            Backend::Sqlite => 1,
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

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;

    use chrono::Utc;
    use diesel::RunQueryDsl;
    use kenning_domain::{LanguageId, NewUser, NewUserInput, User, UserId};
    use kenning_ports::StoreError;

    use super::*;

    /// A new user of that e-mail address and names, registered now.
    pub(crate) fn registered(email: &str, firstname: &str, lastname: &str) -> User {
        let input = NewUserInput {
            email: email.to_owned(),
            firstname: firstname.to_owned(),
            lastname: lastname.to_owned(),
            ..NewUserInput::default()
        };
        let new = NewUser::parse(input, &LanguageId::parse("en").unwrap()).unwrap();
        User::register(UserId::from_uuid(uuid::Uuid::new_v4()), new, Utc::now())
    }

    /// A fresh SQLite file in a folder of its own (named after `name`),
    /// migrated; the folder is the caller's to remove.
    pub(crate) fn migrated_file(name: &str) -> (PathBuf, Database) {
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

    /// The statements of a read transaction see the state of its first
    /// read, though a write commits between them.
    #[test]
    fn a_read_snapshot_sees_one_state() {
        use diesel::sql_types::BigInt;

        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let users = |conn: &mut DbConnection| {
            crate::sql::Statement::plain("SELECT count(*) AS n FROM users")
                .load::<Count>(conn)
                .map(|rows| rows[0].n)
        };
        let someone = registered("ada@example.com", "Ada", "Lovelace");

        let (folder, db) = migrated_file("kenning-read-snapshot");
        let (before, after) = db
            .read_snapshot(|conn| {
                let before = users(conn)?;
                db.import_users(std::slice::from_ref(&someone)).unwrap();
                Ok((before, users(conn)?))
            })
            .unwrap();
        assert_eq!(after, before);
        assert_eq!(db.read(users).unwrap(), before + 1);
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
}
