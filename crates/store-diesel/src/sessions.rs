//! Sign-in links and sessions: one row each, found by the hash of the
//! secret presented.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use kenning_domain::{user_signed_in, user_signed_out, Attribution, SignInMethod, UserId};
use kenning_ports::{Redemption, SessionStore, StoreError, StoredLink, StoredSession};
use uuid::Uuid;

use crate::connection::TxError;
use crate::database::Database;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{sessions, signin_links};

/// A session as stored.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sessions)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct SessionRow {
    id: String,
    secret_hash: String,
    user_id: String,
    method: String,
    csrf: String,
    created: NaiveDateTime,
    last_seen: NaiveDateTime,
}

impl SessionRow {
    fn new(session: &StoredSession) -> Self {
        Self {
            id: session.id.to_string(),
            secret_hash: session.secret_hash.clone(),
            user_id: session.user.to_string(),
            method: session.method.as_str().to_owned(),
            csrf: session.csrf.clone(),
            created: to_db_time(session.created),
            last_seen: to_db_time(session.last_seen),
        }
    }

    fn into_session(self) -> Result<StoredSession, StoreError> {
        let corrupt = |what: &str| {
            StoreError::backend_message(format!("stored session {} has an invalid {what}", self.id))
        };
        Ok(StoredSession {
            id: Uuid::parse_str(&self.id).map_err(|_| corrupt("id"))?,
            secret_hash: self.secret_hash.clone(),
            user: Uuid::parse_str(&self.user_id)
                .map(UserId::from_uuid)
                .map_err(|_| corrupt("user id"))?,
            method: SignInMethod::parse(&self.method).ok_or_else(|| corrupt("method"))?,
            csrf: self.csrf.clone(),
            created: from_db_time(self.created),
            last_seen: from_db_time(self.last_seen),
        })
    }
}

impl SessionStore for Database {
    fn insert_link(&self, link: &StoredLink) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::insert_into(signin_links::table)
                .values((
                    signin_links::secret_hash.eq(&link.secret_hash),
                    signin_links::user_id.eq(link.user.to_string()),
                    signin_links::created.eq(to_db_time(link.created)),
                    signin_links::expires.eq(to_db_time(link.expires)),
                ))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn redeem_link(&self, secret_hash: &str, now: DateTime<Utc>) -> Result<Redemption, StoreError> {
        let redemption = self.write(|conn| {
            let found: Option<(String, NaiveDateTime, Option<NaiveDateTime>)> = signin_links::table
                .filter(signin_links::secret_hash.eq(secret_hash))
                .select((
                    signin_links::user_id,
                    signin_links::expires,
                    signin_links::used,
                ))
                .first(conn)
                .optional()?;
            let Some((user, expires, used)) = found else {
                return Ok(Redemption::Unknown);
            };
            if used.is_some() {
                return Ok(Redemption::Used);
            }
            if to_db_time(now) >= expires {
                return Ok(Redemption::Expired);
            }
            // The condition on `used` lets one of two redemptions at once
            // win, also on PostgreSQL's read committed transactions.
            let won = diesel::update(
                signin_links::table
                    .filter(signin_links::secret_hash.eq(secret_hash))
                    .filter(signin_links::used.is_null()),
            )
            .set(signin_links::used.eq(to_db_time(now)))
            .execute(conn)?;
            if won == 0 {
                return Ok(Redemption::Used);
            }
            let user = Uuid::parse_str(&user).map_err(|_| {
                StoreError::backend_message("a stored sign-in link names an invalid user id")
            })?;
            Ok::<_, TxError>(Redemption::Redeemed(UserId::from_uuid(user)))
        })?;
        Ok(redemption)
    }

    fn open_session(&self, session: &StoredSession, by: &Attribution) -> Result<(), StoreError> {
        let row = SessionRow::new(session);
        self.write(|conn| {
            diesel::insert_into(sessions::table)
                .values(&row)
                .execute(conn)?;
            crate::audit::record(
                conn,
                by,
                &[user_signed_in(session.user.as_uuid(), session.method)],
            )
            .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn session(&self, secret_hash: &str) -> Result<Option<StoredSession>, StoreError> {
        let row: Option<SessionRow> = self.read(|conn| {
            sessions::table
                .filter(sessions::secret_hash.eq(secret_hash))
                .select(SessionRow::as_select())
                .first(conn)
                .optional()
        })?;
        row.map(SessionRow::into_session).transpose()
    }

    fn touch_session(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        let at = to_db_time(at);
        self.write(|conn| {
            diesel::update(
                sessions::table
                    .filter(sessions::id.eq(id.to_string()))
                    .filter(sessions::last_seen.lt(at)),
            )
            .set(sessions::last_seen.eq(at))
            .execute(conn)
            .map_err(TxError::from)
        })?;
        Ok(())
    }

    fn end_session(&self, id: Uuid, by: &Attribution) -> Result<bool, StoreError> {
        let ended = self.write(|conn| {
            let user: Option<String> = sessions::table
                .filter(sessions::id.eq(id.to_string()))
                .select(sessions::user_id)
                .first(conn)
                .optional()?;
            let Some(user) = user else {
                return Ok(false);
            };
            diesel::delete(sessions::table.filter(sessions::id.eq(id.to_string())))
                .execute(conn)?;
            let user = Uuid::parse_str(&user).map_err(|_| {
                StoreError::backend_message("a stored session names an invalid user id")
            })?;
            crate::audit::record(conn, by, &[user_signed_out(user)])?;
            Ok::<_, TxError>(true)
        })?;
        Ok(ended)
    }

    fn prune_sessions(
        &self,
        idle_before: DateTime<Utc>,
        begun_before: DateTime<Utc>,
        links_before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let pruned = self.write(|conn| {
            let sessions = diesel::delete(
                sessions::table.filter(
                    sessions::last_seen
                        .lt(to_db_time(idle_before))
                        .or(sessions::created.lt(to_db_time(begun_before))),
                ),
            )
            .execute(conn)?;
            let links = diesel::delete(
                signin_links::table.filter(signin_links::expires.lt(to_db_time(links_before))),
            )
            .execute(conn)?;
            Ok::<_, TxError>(sessions + links)
        })?;
        Ok(pruned as u64)
    }
}
