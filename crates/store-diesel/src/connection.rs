//! One connection type for both backends, how a pool opens it, and the
//! transactions the query code runs in: a read transaction, whose
//! statements see one state of the database, and a write transaction.
//!
//! [`DbConnection`] is diesel's derived `MultiConnection` over the two;
//! the query code is written once against it. [`Manager`] opens the backend
//! the URL's scheme named, and registers `kenning_fold`, the domain's case
//! folding, on SQLite. [`SessionSettings`] sets up every new connection:
//! on SQLite, WAL mode, `synchronous = FULL`, foreign keys, the busy
//! timeout and `secure_delete` (so an anonymized user's bytes do not stay
//! in freed pages), with the log's checkpoints left to a thread of the
//! store (`checkpoints.rs`); on PostgreSQL, statements planned with each
//! run's values (the reads of `experts` ask otherwise: see `prepared.rs`).
//!
//! [`write_transaction`] begins with `BEGIN IMMEDIATE` on SQLite, so the
//! write lock is taken, within the busy timeout, before anything is read.
//! [`read_transaction`] is `REPEATABLE READ, READ ONLY` on PostgreSQL and a
//! deferred `BEGIN` on SQLite, which in WAL mode keeps the snapshot of its
//! first read. [`execute_natively`] runs what diesel's multi-backend cannot
//! write, upserts and inserts of many rows, on the inner connection.

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::pg::PgConnection;
use diesel::query_dsl::methods::ExecuteDsl;
use diesel::r2d2::{CustomizeConnection, R2D2Connection};
use diesel::result::Error as DieselError;
use diesel::sqlite::SqliteConnection;
use diesel::QueryResult;
use kenning_ports::StoreError;

use crate::errors::store_error;
use crate::location::{Backend, Location};

/// The log's size, in pages, past which a committing connection makes
/// the checkpoint itself (SQLite's `wal_autocheckpoint`; its default is
/// 1,000): 64 MiB at 4 KiB pages.
pub(crate) const WAL_BOUND_PAGES: u32 = 16_384;

/// The size, in bytes, the log file is cut back to once a checkpoint has
/// copied all of it (SQLite's `journal_size_limit`): the bound's pages.
pub(crate) const WAL_FILE_LIMIT: u64 = WAL_BOUND_PAGES as u64 * 4096;

/// How long a SQLite writer waits for the write lock before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 5_000;

/// [`SQLITE_BUSY_TIMEOUT_MS`] as a duration, for waits the store makes
/// itself.
pub(crate) const SQLITE_BUSY_TIMEOUT: std::time::Duration =
    std::time::Duration::from_millis(SQLITE_BUSY_TIMEOUT_MS as u64);

/// A connection to either backend. The query code is written once against
/// this type; what only one backend has (`BEGIN IMMEDIATE`, its raw SQL,
/// its migrations, its pragmas) is reached by matching on the variant.
#[derive(diesel::MultiConnection)]
pub(crate) enum DbConnection {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl DbConnection {
    /// The backend the connection is to.
    pub(crate) fn backend(&self) -> Backend {
        match self {
            DbConnection::Sqlite(_) => Backend::Sqlite,
            DbConnection::Postgres(_) => Backend::Postgres,
        }
    }
}

/// Opens connections of the backend a URL's scheme named. The derived
/// `establish` would instead try each backend in turn, and SQLite accepts
/// any text as a file name.
pub(crate) struct Manager(pub(crate) Location);

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The location's `Display` leaves a PostgreSQL password out.
        write!(f, "Manager({})", self.0)
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = DbConnection;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<DbConnection, Self::Error> {
        establish(&self.0).map_err(diesel::r2d2::Error::ConnectionError)
    }

    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), Self::Error> {
        conn.ping().map_err(diesel::r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        std::thread::panicking() || conn.is_broken()
    }
}

diesel::define_sql_function! {
    /// Text folded as the domain folds what it compares without regard to
    /// case (`Email::fold`), for user filters on SQLite, whose own `lower`
    /// folds ASCII letters only.
    fn kenning_fold(text: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

/// A new connection to the database at `location`; on SQLite with
/// `kenning_fold` registered.
pub(crate) fn establish(location: &Location) -> diesel::ConnectionResult<DbConnection> {
    use diesel::Connection as _;
    match location {
        Location::Sqlite(path) => {
            let mut conn = SqliteConnection::establish(path)?;
            kenning_fold_utils::register_impl(&mut conn, |text: String| {
                kenning_domain::Email::fold(&text)
            })
            .map_err(|e| diesel::ConnectionError::BadConnection(e.to_string()))?;
            Ok(DbConnection::Sqlite(conn))
        }
        Location::Postgres(url) => PgConnection::establish(url).map(DbConnection::Postgres),
    }
}

/// Per-connection settings; they do not carry over between connections,
/// so each new one gets them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SessionSettings {
    /// SQLite's page cache in KiB, when not its default (2 MiB).
    pub(crate) sqlite_cache_kib: Option<u32>,
}

impl CustomizeConnection<DbConnection, diesel::r2d2::Error> for SessionSettings {
    fn on_acquire(&self, conn: &mut DbConnection) -> Result<(), diesel::r2d2::Error> {
        if let (DbConnection::Sqlite(_), Some(kib)) = (&conn, self.sqlite_cache_kib) {
            conn.batch_execute(&format!("PRAGMA cache_size = -{kib}"))
                .map_err(diesel::r2d2::Error::QueryError)?;
        }
        let settings = match conn {
            // secure_delete: SQLite otherwise leaves a deleted or
            // overwritten row's bytes in the freed space of its table and
            // index pages, where a file reader finds an anonymized user's
            // data.
            //
            // wal_autocheckpoint and journal_size_limit: the checkpoints
            // are made by a thread of their own, these connections only
            // when it falls behind (see `checkpoints.rs`).
            DbConnection::Sqlite(_) => format!(
                "PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS};
                 PRAGMA journal_mode = WAL;
                 PRAGMA synchronous = FULL;
                 PRAGMA foreign_keys = ON;
                 PRAGMA secure_delete = ON;
                 PRAGMA wal_autocheckpoint = {WAL_BOUND_PAGES};
                 PRAGMA journal_size_limit = {WAL_FILE_LIMIT};"
            ),
            // Statements are prepared once per connection; after five runs
            // PostgreSQL may switch a prepared statement to a generic plan,
            // made without its parameters. For a search, whose best plan
            // depends on the text (a trigram index or the listing order),
            // the generic plan was measured 6-8 times slower. (Searches
            // now run unnamed, planned with their values whatever this
            // says; the reads of `experts` ask for generic plans in their
            // own transaction: see `prepared.rs`.)
            DbConnection::Postgres(_) => "SET plan_cache_mode = force_custom_plan".to_owned(),
        };
        conn.batch_execute(&settings)
            .map_err(diesel::r2d2::Error::QueryError)
    }
}

/// A failure inside a transaction, which rolls it back: the database's,
/// or the store's own (a stored row that does not read back).
#[derive(Debug)]
pub(crate) enum TxError {
    Db(DieselError),
    Store(StoreError),
}

impl From<DieselError> for TxError {
    fn from(error: DieselError) -> Self {
        TxError::Db(error)
    }
}

impl From<StoreError> for TxError {
    fn from(error: StoreError) -> Self {
        TxError::Store(error)
    }
}

impl From<TxError> for StoreError {
    fn from(error: TxError) -> Self {
        match error {
            TxError::Db(e) => store_error(e),
            TxError::Store(e) => e,
        }
    }
}

/// Runs a statement that both backends accept but diesel's `MultiBackend`
/// cannot write (an upsert, an insert of many rows) on the inner
/// connection.
pub(crate) fn execute_natively<Q>(conn: &mut DbConnection, statement: Q) -> QueryResult<usize>
where
    Q: ExecuteDsl<SqliteConnection> + ExecuteDsl<PgConnection>,
{
    match conn {
        DbConnection::Sqlite(conn) => ExecuteDsl::<SqliteConnection>::execute(statement, conn),
        DbConnection::Postgres(conn) => ExecuteDsl::<PgConnection>::execute(statement, conn),
    }
}

/// The transaction manager derived for [`DbConnection`].
type Tx = <DbConnection as diesel::Connection>::TransactionManager;

/// Runs `work` in a write transaction on `conn`: `BEGIN IMMEDIATE` on
/// SQLite, so the write lock is taken (waiting up to the busy timeout)
/// before anything is read, where a deferred `BEGIN` would fail at its
/// first write without waiting; an ordinary transaction on PostgreSQL. An
/// `Err` from `work` rolls back.
pub(crate) fn write_transaction<T, E>(
    conn: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<DieselError>,
{
    match conn {
        DbConnection::Sqlite(sqlite) => {
            AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")?
        }
        DbConnection::Postgres(_) => Tx::begin_transaction(conn)?,
    }
    finish(conn, work)
}

/// How PostgreSQL begins a read transaction, as diesel's
/// `build_transaction().repeatable_read().read_only()` does.
const READ_SNAPSHOT_POSTGRES: &str = "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY";

/// Runs `work` in a read transaction on `conn`, so that all its statements
/// see one state of the database, whatever commits meanwhile: on
/// PostgreSQL `REPEATABLE READ, READ ONLY`, whose snapshot is taken at its
/// first statement and kept to its end; on SQLite a deferred `BEGIN`,
/// which in WAL mode keeps the snapshot of its first read until it ends.
/// It ends with a commit, or a rollback when `work` fails.
pub(crate) fn read_transaction<T>(
    conn: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> QueryResult<T>,
) -> QueryResult<T> {
    match conn {
        DbConnection::Sqlite(_) => Tx::begin_transaction(conn)?,
        DbConnection::Postgres(pg) => {
            AnsiTransactionManager::begin_transaction_sql(pg, READ_SNAPSHOT_POSTGRES)?
        }
    }
    finish(conn, work)
}

/// Runs `work` in the transaction just begun on `conn` and ends it as
/// diesel's own `transaction` does: the derived transaction manager passes
/// commit and rollback to the inner connection, whose manager the `BEGIN`
/// went through. An `Err` from `work` rolls back.
fn finish<T, E>(
    conn: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<DieselError>,
{
    match work(conn) {
        Ok(value) => {
            Tx::commit_transaction(conn)?;
            Ok(value)
        }
        Err(failure) => match Tx::rollback_transaction(conn) {
            Ok(()) | Err(DieselError::BrokenTransactionManager) => Err(failure),
            Err(rollback) => Err(rollback.into()),
        },
    }
}
