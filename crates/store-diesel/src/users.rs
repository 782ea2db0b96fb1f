//! The user repository.
//!
//! E-mail address, externalId and user name are unique among the users who
//! are not deleted. Partial unique indexes hold it, so of two racing writers
//! only one wins, and the other's unique violation becomes
//! `StoreError::Conflict` naming the field ([`crate::errors`]). PostgreSQL
//! fails a whole transaction on a refused statement, so a batch of inserts
//! there first inserts with `ON CONFLICT DO NOTHING`, and repeats a refused
//! one in a savepoint only for the error.
//!
//! `modify` takes the row's write lock before it reads the row, lets the
//! caller's function change the user, and writes it back at the version it
//! read; a write that lost a race is made again, up to [`MODIFY_ATTEMPTS`]
//! times. Anonymizing a user also erases, in the same transaction, each
//! part [`Erasure`] names: what was learned about them
//! ([`crate::expertise::erase_expertise`]), their place in every group
//! ([`crate::groups::leave_groups`]) and whose sign-ins the trail tells
//! ([`crate::audit::anonymize_use`]).
//!
//! [`Database::import_users`] stores many users in one transaction, in
//! listing order, for bulk loads.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use kenning_domain::{
    group_members_changed, user_changes, user_created, Attribution, Erasure, Limit, Offset,
    SearchText, Status, User, UserCursor, UserError, UserFilter, UserId, UserKey,
};
use kenning_ports::{FilteredUsers, ModifyError, StoreError, UserPage, UserStore};
use uuid::Uuid;

use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::errors::{is_unique_violation, store_error};
use crate::rows::{to_db_time, UserRow};
use crate::schema::users;
use crate::search;
use crate::sql::{Binder, Statement};

/// How often [`UserStore::modify`] re-reads a user that another writer
/// changed between its read and its write.
const MODIFY_ATTEMPTS: usize = 8;

/// A user's version as a column value.
fn stored_version(user: &User) -> i64 {
    i64::try_from(user.version()).unwrap_or(i64::MAX)
}

/// The version after the stored `version`.
fn next_version(version: i64) -> Result<u64, StoreError> {
    u64::try_from(version.saturating_add(1))
        .map_err(|_| StoreError::backend_message(format!("a stored user has version {version}")))
}

/// Most ids one look-up of [`UserStore::live_users`] binds.
const LIVE_USERS_BATCH: usize = 5_000;

/// What one attempt of [`UserStore::modify`] came to.
enum Attempt {
    Done(Box<User>),
    NotFound,
    Rejected(UserError),
    /// Another writer changed the user since it was read.
    Raced,
}

/// Most rows one `INSERT` of [`Database::import_users`] carries; both
/// backends bound the parameters of a statement (SQLite 32,766, PostgreSQL
/// 65,535) and a user row has 25.
const IMPORT_ROWS_PER_STATEMENT: usize = 1_000;

impl Database {
    /// Stores many new users at once, in one write transaction: all or
    /// none. For loading a directory in bulk (a migration from another
    /// system, a benchmark), where [`UserStore::insert`] would pay a
    /// durable commit per user. The uniqueness rules are those of
    /// `insert`: a taken e-mail or externalId fails the whole import with
    /// [`StoreError::Conflict`].
    ///
    /// The rows are inserted in listing order: SQLite's trigram index
    /// numbers its rows in that order, and takes rows in ascending order
    /// into its pending changes, where any other order writes them out
    /// once per row.
    ///
    /// The users start learned about, as under no rule on learning (it
    /// writes no audit entry either); under rules, call
    /// [`Database::refresh_learning`] after it.
    pub fn import_users(&self, batch: &[User]) -> Result<(), StoreError> {
        let mut listed: Vec<&User> = batch.iter().collect();
        listed.sort_by_cached_key(|user| UserCursor::of(user));
        let rows: Vec<UserRow> = listed
            .into_iter()
            .map(|user| UserRow::new(user, stored_version(user)))
            .collect();
        self.write(|conn| {
            for chunk in rows.chunks(IMPORT_ROWS_PER_STATEMENT) {
                execute_natively(conn, diesel::insert_into(users::table).values(chunk))?;
            }
            Ok::<(), TxError>(())
        })?;
        Ok(())
    }
}

/// The parts of a user the database keeps apart from her row, erased in
/// the transaction that anonymizes her.
struct RowsErasure<'a> {
    conn: &'a mut DbConnection,
    /// Her id as stored.
    key: &'a str,
    /// Who anonymized her, for the groups' audit entries.
    by: &'a Attribution,
}

impl Erasure for RowsErasure<'_> {
    type Error = TxError;

    fn erase_expertise(&mut self) -> Result<(), TxError> {
        Ok(crate::expertise::erase_expertise(self.conn, self.key)?)
    }

    fn leave_groups(&mut self, at: DateTime<Utc>) -> Result<(), TxError> {
        let left = crate::groups::leave_groups(self.conn, self.key, to_db_time(at))?;
        let changes: Vec<_> = left.into_iter().map(group_members_changed).collect();
        crate::audit::record(self.conn, self.by, &changes)?;
        Ok(())
    }

    fn anonymize_use(&mut self) -> Result<(), TxError> {
        Ok(crate::audit::anonymize_use(self.conn, self.key)?)
    }
}

/// The read of the user who is not deleted and holds `key`. The partial
/// unique indexes hold exactly such users; their condition is stated as
/// written there, so SQLite's planner uses them too.
pub(crate) fn by_key_statement(conn: &DbConnection, key: &UserKey) -> Statement {
    let (column, value) = match key {
        UserKey::Email(email) => ("email_key", email.key()),
        UserKey::ExternalId(id) => ("external_id", id.as_str().to_owned()),
    };
    let mut sql = Binder::new(conn.backend());
    let value = sql.text(value);
    sql.statement(format!(
        "SELECT users.* FROM users WHERE status <> '{}' AND {column} = {value} LIMIT 1",
        Status::DELETED
    ))
}

impl Database {
    /// Writes again, for every user, whether the rules on learning let
    /// Kenning learn about them: after [`Database::import_users`], which
    /// leaves that to its caller.
    pub fn refresh_learning(&self) -> Result<(), StoreError> {
        self.write(|conn| {
            crate::learning::refresh(conn, None)
                .map(|_| ())
                .map_err(TxError::from)
        })
        .map_err(StoreError::from)
    }
}

impl UserStore for Database {
    fn insert(&self, user: &User, by: &Attribution) -> Result<(), StoreError> {
        self.insert_all(&[(user.clone(), by.clone())])?
            .pop()
            .unwrap_or_else(|| Err(StoreError::backend_message("an insert was not answered")))
    }

    fn insert_all(
        &self,
        users: &[(User, Attribution)],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        if users.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|conn| {
            let mut answers = Vec::with_capacity(users.len());
            for (user, by) in users {
                let row = UserRow::new(user, stored_version(user));
                let insert = |conn: &mut DbConnection| {
                    diesel::insert_into(users::table).values(&row).execute(conn)
                };
                // A refused insert takes back its own statement on SQLite.
                // PostgreSQL fails the whole transaction instead, so there
                // a taken value first inserts nothing, and only then is the
                // insert repeated in a savepoint of its own, for the error
                // that names the field.
                let inserted = match conn {
                    DbConnection::Sqlite(_) => insert(conn),
                    DbConnection::Postgres(pg) => {
                        let fresh = diesel::insert_into(users::table)
                            .values(&row)
                            .on_conflict_do_nothing()
                            .execute(pg);
                        match fresh {
                            Ok(0) => conn.transaction(insert),
                            other => other,
                        }
                    }
                };
                answers.push(match inserted {
                    Ok(_) => {
                        // A newcomer follows the rules in force (opt-in).
                        crate::learning::refresh(conn, Some(&[user.id().to_string()]))?;
                        crate::audit::record(conn, by, &[user_created(user)])?;
                        Ok(())
                    }
                    Err(e) if is_unique_violation(&e) => Err(store_error(e)),
                    Err(e) => return Err(TxError::from(e)),
                });
            }
            Ok(answers)
        })
        .map_err(StoreError::from)
    }

    fn get(&self, id: UserId) -> Result<Option<User>, StoreError> {
        let row: Option<UserRow> = self.read(|conn| {
            users::table
                .find(id.to_string())
                .select(UserRow::as_select())
                .first(conn)
                .optional()
        })?;
        row.map(UserRow::into_user).transpose()
    }

    fn get_many(&self, ids: &[UserId]) -> Result<Vec<User>, StoreError> {
        let keys: Vec<String> = ids.iter().map(UserId::to_string).collect();
        let mut found = Vec::with_capacity(keys.len());
        for batch in keys.chunks(LIVE_USERS_BATCH) {
            let rows: Vec<UserRow> = self.read(|conn| {
                users::table
                    .filter(users::id.eq_any(batch))
                    .select(UserRow::as_select())
                    .load(conn)
            })?;
            for row in rows {
                found.push(row.into_user()?);
            }
        }
        Ok(found)
    }

    fn get_by_key(&self, key: &UserKey) -> Result<Option<User>, StoreError> {
        let rows: Vec<UserRow> = self.read(|conn| by_key_statement(conn, key).load(conn))?;
        rows.into_iter().next().map(UserRow::into_user).transpose()
    }

    fn search(
        &self,
        text: &SearchText,
        offset: Offset,
        limit: Limit,
    ) -> Result<Vec<User>, StoreError> {
        let rows =
            self.read(|conn| search::page(conn, self.trigram_counts(), text, offset, limit))?;
        rows.into_iter().map(UserRow::into_user).collect()
    }

    fn search_after(
        &self,
        text: &SearchText,
        after: Option<&UserCursor>,
        limit: Limit,
    ) -> Result<UserPage, StoreError> {
        let rows =
            self.read(|conn| search::after(conn, self.trigram_counts(), text, after, limit))?;
        let users = rows
            .into_iter()
            .map(UserRow::into_user)
            .collect::<Result<_, _>>()?;
        Ok(UserPage::of_one_more(users, limit))
    }

    fn filter(
        &self,
        filter: Option<&UserFilter>,
        skip: u64,
        count: u32,
    ) -> Result<FilteredUsers, StoreError> {
        // The count and the page from one state, so that they agree.
        let (total, rows) =
            self.read_snapshot(|conn| crate::filter::filtered(conn, filter, skip, count))?;
        Ok(FilteredUsers {
            total: u64::try_from(total).unwrap_or_default(),
            users: rows
                .into_iter()
                .map(UserRow::into_user)
                .collect::<Result<_, _>>()?,
        })
    }

    fn live_users(&self, ids: &[UserId]) -> Result<Vec<UserId>, StoreError> {
        let keys: Vec<String> = ids.iter().map(UserId::to_string).collect();
        let mut live = Vec::new();
        for batch in keys.chunks(LIVE_USERS_BATCH) {
            let found: Vec<String> = self.read(|conn| {
                users::table
                    .filter(users::id.eq_any(batch))
                    .filter(users::status.ne(Status::DELETED))
                    .select(users::id)
                    .load(conn)
            })?;
            live.extend(found);
        }
        live.iter()
            .map(|k| {
                Uuid::parse_str(k)
                    .map(UserId::from_uuid)
                    .map_err(|_| StoreError::backend_message(format!("stored user id {k}")))
            })
            .collect()
    }

    fn modify(
        &self,
        id: UserId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut User) -> Result<(), UserError>,
    ) -> Result<User, ModifyError> {
        let key = id.to_string();
        for _ in 0..MODIFY_ATTEMPTS {
            let attempt: Result<Attempt, TxError> = self.write(|conn| {
                // Take the row's write lock before reading it, so concurrent
                // writers queue up instead of racing (PostgreSQL row lock;
                // on SQLite the immediate transaction already holds the
                // database's write lock). The version check below stays as
                // a guard.
                diesel::update(users::table.find(&key))
                    .set(users::version.eq(users::version))
                    .execute(conn)?;
                let Some(row) = users::table
                    .find(&key)
                    .select(UserRow::as_select())
                    .first(conn)
                    .optional()?
                else {
                    return Ok(Attempt::NotFound);
                };
                let version = row.version();
                let mut user = row.into_user()?;
                let before = user.clone();
                if let Err(refusal) = change(&mut user) {
                    return Ok(Attempt::Rejected(refusal));
                }
                let written = diesel::update(
                    users::table
                        .filter(users::id.eq(&key))
                        .filter(users::version.eq(version)),
                )
                .set(&UserRow::new(&user, version + 1))
                .execute(conn)?;
                if written == 1 {
                    crate::audit::record(conn, by, &user_changes(&before, &user))?;
                }
                if written == 1 {
                    user.erase_if_anonymized(
                        &before,
                        &mut RowsErasure {
                            conn,
                            key: &key,
                            by,
                        },
                    )?;
                }
                Ok(if written == 1 {
                    Attempt::Done(Box::new(user.stored_at(next_version(version)?)))
                } else {
                    Attempt::Raced
                })
            });
            match attempt.map_err(StoreError::from)? {
                Attempt::Done(user) => return Ok(*user),
                Attempt::NotFound => return Err(ModifyError::NotFound),
                Attempt::Rejected(refusal) => return Err(ModifyError::Rejected(refusal)),
                Attempt::Raced => continue,
            }
        }
        Err(ModifyError::Store(StoreError::backend_message(format!(
            "user {id} kept changing under {MODIFY_ATTEMPTS} attempts to modify it"
        ))))
    }

    fn due_for_purge(&self, now: DateTime<Utc>, max: u32) -> Result<Vec<UserId>, StoreError> {
        let now = to_db_time(now);
        let ids: Vec<String> = self.read(|conn| {
            users::table
                .filter(users::status.eq(Status::PENDING_DELETION))
                .filter(users::deletion_scheduled_for.le(now))
                .order((users::deletion_scheduled_for.asc(), users::id.asc()))
                .limit(i64::from(max))
                .select(users::id)
                .load(conn)
        })?;
        ids.iter()
            .map(|id| {
                Uuid::parse_str(id).map(UserId::from_uuid).map_err(|_| {
                    StoreError::backend_message(format!("stored user id {id} is invalid"))
                })
            })
            .collect()
    }

    fn compact_after_erasure(&self) -> Result<(), StoreError> {
        Database::compact_after_erasure(self)
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.read(|conn| diesel::sql_query("SELECT 1").execute(conn))?;
        Ok(())
    }
}
