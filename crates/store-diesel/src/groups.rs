//! The group repository: a group's row and its members' rows, written
//! together in one transaction with the audit entry of the change.
//!
//! A change or a deletion takes the group's row lock first, so concurrent
//! writers queue. When a rule turns learning off for a group, a change of
//! its members writes again whom Kenning learns about
//! ([`crate::learning::refresh`]). An anonymized user leaves every group
//! in the transaction that anonymizes them ([`leave_groups`]), each group
//! one version more.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::{
    group_changed, group_created, group_deleted, Attribution, DisplayName, Email, ExternalId,
    Group, GroupAttributes, GroupError, GroupFilter, GroupId, GroupParts, UserId,
};
use kenning_ports::{FilteredGroups, GroupStore, Membership, ModifyGroupError, StoreError};
use uuid::Uuid;

use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{user_group_members as members, user_groups as groups};

/// Most member rows one `INSERT` carries (both backends bound the
/// parameters of a statement).
const MEMBER_BATCH: usize = 5_000;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = groups)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
#[diesel(treat_none_as_null = true)]
struct GroupRow {
    id: String,
    display_name: String,
    display_name_key: String,
    external_id: Option<String>,
    created: NaiveDateTime,
    modified: NaiveDateTime,
    version: i64,
}

impl GroupRow {
    fn new(group: &Group, version: i64) -> Self {
        let a = group.attributes();
        Self {
            id: group.id().to_string(),
            display_name: a.display_name.as_str().to_owned(),
            display_name_key: a.display_name.key(),
            external_id: a.external_id.as_ref().map(|e| e.as_str().to_owned()),
            created: to_db_time(group.created()),
            modified: to_db_time(group.modified()),
            version,
        }
    }

    fn into_group(self, member_ids: Vec<String>) -> Result<Group, StoreError> {
        let corrupt = |what: &str| {
            StoreError::backend_message(format!("stored group {} has an invalid {what}", self.id))
        };
        let id = Uuid::parse_str(&self.id).map_err(|_| corrupt("id"))?;
        let members = member_ids
            .iter()
            .map(|m| Uuid::parse_str(m).map(UserId::from_uuid))
            .collect::<Result<BTreeSet<_>, _>>()
            .map_err(|_| corrupt("member"))?;
        Ok(Group::from_parts(GroupParts {
            id: GroupId::from_uuid(id),
            attributes: GroupAttributes {
                display_name: DisplayName::parse(&self.display_name)
                    .map_err(|_| corrupt("name"))?,
                external_id: self
                    .external_id
                    .as_deref()
                    .map(ExternalId::parse)
                    .transpose()
                    .map_err(|_| corrupt("externalId"))?,
                members,
            },
            created: from_db_time(self.created),
            modified: from_db_time(self.modified),
            version: u64::try_from(self.version).map_err(|_| corrupt("version"))?,
        }))
    }
}

/// The members of the groups `ids`, by group.
fn members_of(
    conn: &mut DbConnection,
    ids: &[String],
) -> QueryResult<std::collections::HashMap<String, Vec<String>>> {
    let rows: Vec<(String, String)> = members::table
        .filter(members::group_id.eq_any(ids))
        .select((members::group_id, members::user_id))
        .load(conn)?;
    let mut by_group: std::collections::HashMap<String, Vec<String>> = Default::default();
    for (group, user) in rows {
        by_group.entry(group).or_default().push(user);
    }
    Ok(by_group)
}

/// The members of the group `id` when a rule turns learning off for it:
/// the people whose learning a change of the group changes.
fn off_members(conn: &mut DbConnection, id: &str) -> QueryResult<Vec<String>> {
    if !crate::learning::group_is_off(conn, id)? {
        return Ok(Vec::new());
    }
    members::table
        .filter(members::group_id.eq(id))
        .select(members::user_id)
        .load(conn)
}

/// Replaces the stored members of `group` with its members; when learning
/// is off for the group, who is learned about follows.
fn write_members(conn: &mut DbConnection, group: &Group) -> QueryResult<()> {
    let id = group.id().to_string();
    let mut concerned = off_members(conn, &id)?;
    diesel::delete(members::table.filter(members::group_id.eq(&id))).execute(conn)?;
    let rows: Vec<(String, String)> = group
        .attributes()
        .members
        .iter()
        .map(|m| (id.clone(), m.to_string()))
        .collect();
    for batch in rows.chunks(MEMBER_BATCH) {
        let values: Vec<_> = batch
            .iter()
            .map(|(g, u)| (members::group_id.eq(g), members::user_id.eq(u)))
            .collect();
        execute_natively(conn, diesel::insert_into(members::table).values(values))?;
    }
    if crate::learning::group_is_off(conn, &id)? {
        concerned.extend(rows.into_iter().map(|(_, user)| user));
        crate::learning::refresh(conn, Some(&concerned))?;
    }
    Ok(())
}

/// Takes the user `user` out of every group, each group one version more
/// and changed at `at`; in the transaction that anonymizes the user. The
/// ids of the groups it left.
pub(crate) fn leave_groups(
    conn: &mut DbConnection,
    user: &str,
    at: NaiveDateTime,
) -> QueryResult<Vec<Uuid>> {
    let of_user: Vec<String> = members::table
        .filter(members::user_id.eq(user))
        .select(members::group_id)
        .order(members::group_id.asc())
        .load(conn)?;
    diesel::update(groups::table.filter(groups::id.eq_any(&of_user)))
        .set((
            groups::version.eq(groups::version + 1),
            groups::modified.eq(at),
        ))
        .execute(conn)?;
    diesel::delete(members::table.filter(members::user_id.eq(user))).execute(conn)?;
    // Ids were written from `GroupId`s; one that is not would be skipped.
    Ok(of_user
        .iter()
        .filter_map(|id| Uuid::parse_str(id).ok())
        .collect())
}

/// What one attempt of `modify_group` came to.
enum Attempt {
    Done(Box<Group>),
    NotFound,
    Rejected(GroupError),
}

impl GroupStore for Database {
    fn insert_group(&self, group: &Group, by: &Attribution) -> Result<(), StoreError> {
        let row = GroupRow::new(group, i64::try_from(group.version()).unwrap_or(1));
        self.write(|conn| {
            diesel::insert_into(groups::table)
                .values(&row)
                .execute(conn)?;
            write_members(conn, group)?;
            crate::audit::record(conn, by, &[group_created(group)]).map_err(TxError::from)
        })?;
        Ok(())
    }

    fn group(&self, id: GroupId) -> Result<Option<Group>, StoreError> {
        let key = id.to_string();
        let found = self.read(|conn| {
            let Some(row) = groups::table
                .find(&key)
                .select(GroupRow::as_select())
                .first(conn)
                .optional()?
            else {
                return Ok(None);
            };
            let mut by_group = members_of(conn, std::slice::from_ref(&key))?;
            Ok(Some((row, by_group.remove(&key).unwrap_or_default())))
        })?;
        found.map(|(row, ids)| row.into_group(ids)).transpose()
    }

    fn modify_group(
        &self,
        id: GroupId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut Group) -> Result<(), GroupError>,
    ) -> Result<Group, ModifyGroupError> {
        let key = id.to_string();
        let attempt: Result<Attempt, TxError> = self.write(|conn| {
            // The row's write lock first, so concurrent writers queue.
            let locked = diesel::update(groups::table.find(&key))
                .set(groups::version.eq(groups::version))
                .execute(conn)?;
            if locked == 0 {
                return Ok(Attempt::NotFound);
            }
            let row = groups::table
                .find(&key)
                .select(GroupRow::as_select())
                .first(conn)?;
            let version = row.version;
            let mut by_group = members_of(conn, std::slice::from_ref(&key))?;
            let mut group = row.into_group(by_group.remove(&key).unwrap_or_default())?;
            let before = group.clone();
            if let Err(refusal) = change(&mut group) {
                return Ok(Attempt::Rejected(refusal));
            }
            let next = version.saturating_add(1);
            diesel::update(groups::table.find(&key))
                .set(&GroupRow::new(&group, next))
                .execute(conn)?;
            write_members(conn, &group)?;
            let changed: Vec<_> = group_changed(&before, &group).into_iter().collect();
            crate::audit::record(conn, by, &changed)?;
            let stored = u64::try_from(next).unwrap_or(u64::MAX);
            Ok(Attempt::Done(Box::new(group.stored_at(stored))))
        });
        match attempt.map_err(StoreError::from)? {
            Attempt::Done(group) => Ok(*group),
            Attempt::NotFound => Err(ModifyGroupError::NotFound),
            Attempt::Rejected(refusal) => Err(ModifyGroupError::Rejected(refusal)),
        }
    }

    fn delete_group(
        &self,
        id: GroupId,
        expected: Option<u64>,
        by: &Attribution,
    ) -> Result<(), ModifyGroupError> {
        let key = id.to_string();
        let deleted: Result<Result<(), ModifyGroupError>, TxError> = self.write(|conn| {
            // The row's write lock first, as a change takes it.
            let locked = diesel::update(groups::table.find(&key))
                .set(groups::version.eq(groups::version))
                .execute(conn)?;
            if locked == 0 {
                return Ok(Err(ModifyGroupError::NotFound));
            }
            let version: i64 = groups::table
                .find(&key)
                .select(groups::version)
                .first(conn)?;
            let current = u64::try_from(version).unwrap_or_default();
            if let Some(expected) = expected.filter(|e| *e != current) {
                return Ok(Err(ModifyGroupError::Rejected(GroupError::StaleVersion {
                    expected,
                    current,
                })));
            }
            let concerned = off_members(conn, &key)?;
            diesel::delete(members::table.filter(members::group_id.eq(&key))).execute(conn)?;
            diesel::delete(groups::table.find(&key)).execute(conn)?;
            crate::learning::refresh(conn, Some(&concerned))?;
            crate::audit::record(conn, by, &[group_deleted(id.as_uuid())])?;
            Ok(Ok(()))
        });
        deleted.map_err(StoreError::from)?
    }

    fn groups(
        &self,
        filter: &GroupFilter,
        skip: u64,
        count: u32,
    ) -> Result<FilteredGroups, StoreError> {
        let name = filter.display_name.as_deref().map(Email::fold);
        let external = filter.external_id.clone();
        let query = || {
            let mut q = groups::table.into_boxed();
            if let Some(name) = &name {
                q = q.filter(groups::display_name_key.eq(name.clone()));
            }
            if let Some(external) = &external {
                q = q.filter(groups::external_id.eq(external.clone()));
            }
            q
        };
        let (total, rows, mut by_group) = self.read(|conn| {
            let total: i64 = query().count().get_result(conn)?;
            let rows: Vec<GroupRow> = query()
                .order((groups::display_name_key, groups::id))
                .limit(i64::from(count))
                .offset(i64::try_from(skip).unwrap_or(i64::MAX))
                .select(GroupRow::as_select())
                .load(conn)?;
            let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
            let by_group = members_of(conn, &ids)?;
            Ok((total, rows, by_group))
        })?;
        let groups = rows
            .into_iter()
            .map(|row| {
                let ids = by_group.remove(&row.id).unwrap_or_default();
                row.into_group(ids)
            })
            .collect::<Result<_, _>>()?;
        Ok(FilteredGroups {
            total: u64::try_from(total).unwrap_or_default(),
            groups,
        })
    }

    fn group_names(&self, count: u32) -> Result<Vec<Membership>, StoreError> {
        let rows: Vec<GroupRow> = self.read(|conn| {
            groups::table
                .order((groups::display_name_key, groups::id))
                .limit(i64::from(count))
                .select(GroupRow::as_select())
                .load(conn)
        })?;
        rows.into_iter()
            .map(|row| {
                let group = row.into_group(Vec::new())?;
                Ok(Membership {
                    group: group.id(),
                    display_name: group.attributes().display_name.clone(),
                    external_id: group.attributes().external_id.clone(),
                })
            })
            .collect()
    }

    fn groups_of(&self, users: &[UserId]) -> Result<HashMap<UserId, Vec<Membership>>, StoreError> {
        let keys: Vec<String> = users.iter().map(UserId::to_string).collect();
        let mut of: HashMap<UserId, Vec<Membership>> = HashMap::new();
        for batch in keys.chunks(MEMBER_BATCH) {
            let rows: Vec<(String, GroupRow)> = self.read(|conn| {
                groups::table
                    .inner_join(members::table.on(members::group_id.eq(groups::id)))
                    .filter(members::user_id.eq_any(batch))
                    .order((groups::display_name_key, groups::id))
                    .select((members::user_id, GroupRow::as_select()))
                    .load(conn)
            })?;
            for (user, row) in rows {
                let user = Uuid::parse_str(&user)
                    .map(UserId::from_uuid)
                    .map_err(|_| StoreError::backend_message(format!("stored member id {user}")))?;
                let group = row.into_group(Vec::new())?;
                of.entry(user).or_default().push(Membership {
                    group: group.id(),
                    display_name: group.attributes().display_name.clone(),
                    external_id: group.attributes().external_id.clone(),
                });
            }
        }
        Ok(of)
    }
}
