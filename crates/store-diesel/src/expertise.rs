//! The expertise store: actions, their topics and the standings.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::Text;
use kenning_domain::{
    ActionTopic, Descriptor, EntityTopic, Population, Scoring, Standing, Status, TopicStanding,
    UserId,
};
use kenning_ports::{
    ActionRecord, Cooccurring, ExpertiseStore, NewAction, RecordError, StoreError,
};
use uuid::Uuid;

use crate::connection::{execute_natively, DbConnection, TxError};
use crate::schema::{action_topics, actions, expertise_settings, learners, standings, users};
use crate::{from_db_time, to_db_time, Database};

/// Rows written by one INSERT: far below the bound-parameter limits of
/// SQLite (32,766) and PostgreSQL (65,535) at seven columns a row.
const ROWS_PER_INSERT: usize = 500;

/// The statuses of users who still learn from uploads.
const LEARNING: [&str; 2] = [Status::ACTIVE, Status::DEACTIVATED];

/// The best standings on one topic of users who are ACTIVE and not
/// hidden: the statement walks the topic's range of the rank index from
/// the top and stops after `LIMIT` visible users, whatever the number of
/// people who know the topic. SQLite's planner, given statistics, may
/// prefer scanning `users` and sorting; `CROSS JOIN` fixes the standings
/// as the outer loop (PostgreSQL plans the inner join on its own).
const BEST_STANDINGS_SQLITE: &str =
    "SELECT s.user_id, s.topic_key, s.label, s.score, s.as_of, s.rank_key \
     FROM standings s CROSS JOIN users u ON u.id = s.user_id \
     WHERE s.topic_key = ? AND u.status = ? AND NOT u.is_hidden \
     ORDER BY s.rank_key DESC, s.user_id DESC LIMIT ?";

/// [`BEST_STANDINGS_SQLITE`] for PostgreSQL.
const BEST_STANDINGS_POSTGRES: &str =
    "SELECT s.user_id, s.topic_key, s.label, s.score, s.as_of, s.rank_key \
     FROM standings s JOIN users u ON u.id = s.user_id \
     WHERE s.topic_key = $1 AND u.status = $2 AND NOT u.is_hidden \
     ORDER BY s.rank_key DESC, s.user_id DESC LIMIT $3";

/// The actions of users who are ACTIVE and not hidden in which one topic
/// is most relevant: the statement walks the topic's range of the index
/// `(topic_key, relevance, action_id)` from the top and stops after
/// `LIMIT` rows, whatever the number of actions that taught the topic
/// (`CROSS JOIN` as in [`BEST_STANDINGS_SQLITE`]).
const BEST_ACTIONS_SQLITE: &str =
    "SELECT t.action_id, t.user_id, t.topic_key, t.label, t.primary_relevance, \
     t.default_relevance, t.secondary_relevance, t.relevance \
     FROM action_topics t CROSS JOIN users u ON u.id = t.user_id \
     WHERE t.topic_key = ? AND u.status = ? AND NOT u.is_hidden \
     ORDER BY t.relevance DESC, t.action_id DESC LIMIT ?";

/// [`BEST_ACTIONS_SQLITE`] for PostgreSQL.
const BEST_ACTIONS_POSTGRES: &str =
    "SELECT t.action_id, t.user_id, t.topic_key, t.label, t.primary_relevance, \
     t.default_relevance, t.secondary_relevance, t.relevance \
     FROM action_topics t JOIN users u ON u.id = t.user_id \
     WHERE t.topic_key = $1 AND u.status = $2 AND NOT u.is_hidden \
     ORDER BY t.relevance DESC, t.action_id DESC LIMIT $3";

fn parse_user(id: &str) -> Result<UserId, StoreError> {
    Uuid::parse_str(id)
        .map(UserId::from_uuid)
        .map_err(|_| StoreError::backend_message(format!("stored user id {id} is invalid")))
}

#[derive(Debug, Insertable)]
#[diesel(table_name = actions)]
struct ActionRow<'a> {
    id: String,
    user_id: &'a str,
    entity_type: &'a str,
    action_type: &'a str,
    action_date: NaiveDateTime,
    alias: Option<&'a str>,
    received: NaiveDateTime,
}

#[derive(Debug, Insertable, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = action_topics)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct ActionTopicRow {
    action_id: String,
    user_id: String,
    topic_key: String,
    label: String,
    primary_relevance: f64,
    default_relevance: f64,
    secondary_relevance: f64,
    /// The relevance under the settings the store was built with, which
    /// the index of the best actions on a topic is ordered by.
    relevance: f64,
}

impl ActionTopicRow {
    fn entity_topic(&self) -> EntityTopic {
        EntityTopic {
            key: self.topic_key.clone(),
            label: self.label.clone(),
            by_descriptor: [
                self.primary_relevance,
                self.default_relevance,
                self.secondary_relevance,
            ],
        }
    }
}

#[derive(Debug, Clone, Insertable, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = standings)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct StandingRow {
    user_id: String,
    topic_key: String,
    label: String,
    score: f64,
    as_of: NaiveDateTime,
    rank_key: f64,
}

impl StandingRow {
    fn new(
        user_id: String,
        topic_key: String,
        label: String,
        standing: Standing,
        scoring: &Scoring,
    ) -> Self {
        Self {
            user_id,
            topic_key,
            label,
            score: standing.score,
            as_of: to_db_time(standing.as_of),
            rank_key: standing.rank_key(scoring),
        }
    }
}

impl StandingRow {
    fn into_standing(self) -> Result<TopicStanding, StoreError> {
        let user = parse_user(&self.user_id)?;
        Ok(TopicStanding {
            user,
            key: self.topic_key,
            label: self.label,
            standing: Standing {
                score: self.score,
                as_of: from_db_time(self.as_of),
            },
        })
    }
}

fn is_alias_conflict(error: &DieselError) -> bool {
    match error {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            let said = format!(
                "{} {}",
                info.constraint_name().unwrap_or_default(),
                info.message()
            );
            said.contains("alias")
        }
        _ => false,
    }
}

/// The contribution of one action's topics to its user's standings, with
/// the standings as they were before.
fn updated_standings(
    user_id: &str,
    action: &NewAction,
    before: Vec<StandingRow>,
    scoring: &Scoring,
) -> Vec<StandingRow> {
    let mut before: HashMap<String, StandingRow> = before
        .into_iter()
        .map(|r| (r.topic_key.clone(), r))
        .collect();
    action
        .topics
        .iter()
        .map(|topic| {
            let contribution = scoring.contribution(&action.action_type, topic);
            let old = before.remove(&topic.key).map(|r| Standing {
                score: r.score,
                as_of: from_db_time(r.as_of),
            });
            let standing = match old {
                Some(old) => old.add(contribution, action.action_date, scoring),
                None => Standing {
                    score: contribution,
                    as_of: action.action_date,
                },
            };
            StandingRow::new(
                user_id.to_owned(),
                topic.key.clone(),
                topic.label.clone(),
                standing,
                scoring,
            )
        })
        .collect()
}

/// Removes everything learned about a user; used when it is anonymized,
/// inside the transaction that anonymizes it.
pub(crate) fn erase_expertise(conn: &mut DbConnection, user_id: &str) -> QueryResult<()> {
    diesel::delete(action_topics::table.filter(action_topics::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(learners::table.filter(learners::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(standings::table.filter(standings::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(actions::table.filter(actions::user_id.eq(user_id))).execute(conn)?;
    Ok(())
}

/// A user's id, as a raw statement returns it.
#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = Text)]
    id: String,
}

/// Locks the ACTIVE or DEACTIVATED user with an e-mail key and returns her
/// id: the look-up every upload makes, through the unique index
/// `users_email_key_live`. That index covers users `WHERE status <>
/// 'DELETED'`, and SQLite uses a partial index only for a statement that
/// states the index's condition as the index does (a bound parameter does
/// not count), so the statement spells it out beside the statuses it wants.
pub(crate) fn learning_user_sql(conn: &DbConnection) -> String {
    let key = match conn {
        DbConnection::Sqlite(_) => "?",
        DbConnection::Postgres(_) => "$1",
    };
    format!(
        "UPDATE users SET version = version \
         WHERE email_key = {key} AND status <> '{deleted}' AND status IN ('{}', '{}') \
         RETURNING id",
        LEARNING[0],
        LEARNING[1],
        deleted = Status::DELETED,
    )
}

impl ExpertiseStore for Database {
    fn record(&self, action: &NewAction, scoring: &Scoring) -> Result<UserId, RecordError> {
        // `None`: no user to learn, and nothing was written.
        let result: Result<Option<String>, TxError> = self.write(|conn| {
            // Locks the user's row, so a purge cannot erase the user between
            // this check and the writes below.
            let found: Vec<IdRow> = diesel::sql_query(learning_user_sql(conn))
                .bind::<Text, _>(&action.user_email_key)
                .load(conn)?;
            let Some(IdRow { id: user_id }) = found.into_iter().next() else {
                return Ok(None);
            };
            diesel::insert_into(actions::table)
                .values(ActionRow {
                    id: action.id.to_string(),
                    user_id: &user_id,
                    entity_type: &action.entity_type,
                    action_type: &action.action_type,
                    action_date: to_db_time(action.action_date),
                    alias: action.alias.as_deref(),
                    received: to_db_time(action.received),
                })
                .execute(conn)?;
            execute_natively(
                conn,
                diesel::insert_into(learners::table)
                    .values((learners::user_id.eq(&user_id), learners::actions.eq(1)))
                    .on_conflict(learners::user_id)
                    .do_update()
                    .set(learners::actions.eq(learners::actions + 1)),
            )?;
            let learned: Vec<ActionTopicRow> = action
                .topics
                .iter()
                .map(|topic| ActionTopicRow {
                    action_id: action.id.to_string(),
                    user_id: user_id.clone(),
                    topic_key: topic.key.clone(),
                    label: topic.label.clone(),
                    primary_relevance: topic.by_descriptor[0],
                    default_relevance: topic.by_descriptor[1],
                    secondary_relevance: topic.by_descriptor[2],
                    relevance: topic.relevance(scoring),
                })
                .collect();
            for rows in learned.chunks(ROWS_PER_INSERT) {
                execute_natively(conn, diesel::insert_into(action_topics::table).values(rows))?;
            }
            let keys: Vec<&str> = action.topics.iter().map(|t| t.key.as_str()).collect();
            let mine = || {
                standings::table
                    .filter(standings::user_id.eq(&user_id))
                    .filter(standings::topic_key.eq_any(&keys))
            };
            let before: Vec<StandingRow> = mine().select(StandingRow::as_select()).load(conn)?;
            // The user's row is locked until commit, so nobody else writes
            // these standings meanwhile: replacing them is an update.
            diesel::delete(mine()).execute(conn)?;
            let after = updated_standings(&user_id, action, before, scoring);
            for rows in after.chunks(ROWS_PER_INSERT) {
                execute_natively(conn, diesel::insert_into(standings::table).values(rows))?;
            }
            Ok(Some(user_id))
        });
        match result {
            Ok(Some(user_id)) => Ok(parse_user(&user_id)?),
            Ok(None) => Err(RecordError::UnknownUser),
            Err(TxError::Db(e)) if is_alias_conflict(&e) => Err(RecordError::DuplicateAlias),
            Err(e) => Err(StoreError::from(e).into()),
        }
    }

    fn standings_on(
        &self,
        keys: &[String],
        per_key: u32,
    ) -> Result<Vec<TopicStanding>, StoreError> {
        use diesel::sql_types::BigInt;
        let limit = i64::from(per_key);
        let mut found = Vec::new();
        for key in keys {
            let rows: Vec<StandingRow> = self.read(|conn| {
                let sql = match conn {
                    DbConnection::Sqlite(_) => BEST_STANDINGS_SQLITE,
                    DbConnection::Postgres(_) => BEST_STANDINGS_POSTGRES,
                };
                diesel::sql_query(sql)
                    .bind::<Text, _>(key)
                    .bind::<Text, _>(Status::ACTIVE)
                    .bind::<BigInt, _>(limit)
                    .load(conn)
            })?;
            for row in rows {
                found.push(row.into_standing()?);
            }
        }
        Ok(found)
    }

    fn best_actions_on(
        &self,
        keys: &[String],
        per_key: u32,
        scoring: &Scoring,
    ) -> Result<Vec<ActionTopic>, StoreError> {
        use diesel::sql_types::BigInt;
        let limit = i64::from(per_key);
        let mut found = Vec::new();
        for key in keys {
            let rows: Vec<ActionTopicRow> = self.read(|conn| {
                let sql = match conn {
                    DbConnection::Sqlite(_) => BEST_ACTIONS_SQLITE,
                    DbConnection::Postgres(_) => BEST_ACTIONS_POSTGRES,
                };
                diesel::sql_query(sql)
                    .bind::<Text, _>(key)
                    .bind::<Text, _>(Status::ACTIVE)
                    .bind::<BigInt, _>(limit)
                    .load(conn)
            })?;
            for row in rows {
                found.push(ActionTopic {
                    action: Uuid::parse_str(&row.action_id).map_err(|_| {
                        StoreError::backend_message(format!(
                            "stored action id {} is invalid",
                            row.action_id
                        ))
                    })?,
                    user: parse_user(&row.user_id)?,
                    relevance: row.entity_topic().relevance(scoring),
                    key: row.topic_key,
                });
            }
        }
        Ok(found)
    }

    fn population(&self) -> Result<Population, StoreError> {
        let (people, actions): (i64, Option<i64>) = self.read(|conn| {
            learners::table
                .select((
                    diesel::dsl::count_star(),
                    diesel::dsl::sum(learners::actions),
                ))
                .first(conn)
        })?;
        Ok(Population {
            people: u64::try_from(people).unwrap_or_default(),
            actions: actions
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or_default(),
        })
    }

    fn activity(&self, users: &[UserId]) -> Result<HashMap<UserId, u64>, StoreError> {
        let ids: Vec<String> = users.iter().map(UserId::to_string).collect();
        let mut found = HashMap::with_capacity(ids.len());
        for ids in ids.chunks(ROWS_PER_INSERT) {
            let rows: Vec<(String, i32)> = self.read(|conn| {
                learners::table
                    .filter(learners::user_id.eq_any(ids))
                    .select((learners::user_id, learners::actions))
                    .load(conn)
            })?;
            for (id, actions) in rows {
                found.insert(parse_user(&id)?, u64::try_from(actions).unwrap_or_default());
            }
        }
        Ok(found)
    }

    fn people_on(&self, keys: &[String]) -> Result<HashMap<String, u64>, StoreError> {
        let rows: Vec<(String, i64)> = self.read(|conn| {
            standings::table
                .filter(standings::topic_key.eq_any(keys))
                .group_by(standings::topic_key)
                .select((standings::topic_key, diesel::dsl::count_star()))
                .load(conn)
        })?;
        Ok(rows
            .into_iter()
            .map(|(key, n)| (key, u64::try_from(n).unwrap_or_default()))
            .collect())
    }

    fn cooccurring(&self, key: &str, sample: u32) -> Result<Cooccurring, StoreError> {
        self.read(|conn| {
            let teaching: Vec<String> = action_topics::table
                .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
                .filter(action_topics::topic_key.eq(key))
                .order((actions::action_date.desc(), actions::id.asc()))
                .limit(i64::from(sample))
                .select(actions::id)
                .load(conn)?;
            let rows: Vec<(String, Option<String>, i64)> = action_topics::table
                .filter(action_topics::action_id.eq_any(&teaching))
                .filter(action_topics::topic_key.ne(key))
                .group_by(action_topics::topic_key)
                .select((
                    action_topics::topic_key,
                    diesel::dsl::min(action_topics::label),
                    diesel::dsl::count_star(),
                ))
                .load(conn)?;
            Ok(Cooccurring {
                actions: teaching.len() as u64,
                topics: rows
                    .into_iter()
                    .map(|(key, label, n)| {
                        let label = label.unwrap_or_else(|| key.clone());
                        (key, label, u64::try_from(n).unwrap_or_default())
                    })
                    .collect(),
            })
        })
    }

    fn standings_of(&self, user: UserId) -> Result<Vec<TopicStanding>, StoreError> {
        let rows: Vec<StandingRow> = self.read(|conn| {
            standings::table
                .filter(standings::user_id.eq(user.to_string()))
                .select(StandingRow::as_select())
                .load(conn)
        })?;
        rows.into_iter().map(StandingRow::into_standing).collect()
    }

    fn actions_on(
        &self,
        user: UserId,
        key: &str,
        scoring: &Scoring,
        max: u32,
    ) -> Result<Vec<ActionRecord>, StoreError> {
        type Found = (
            ActionTopicRow,
            (String, String, String, NaiveDateTime, Option<String>),
        );
        let rows: Vec<Found> = self.read(|conn| {
            action_topics::table
                .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
                .filter(action_topics::user_id.eq(user.to_string()))
                .filter(action_topics::topic_key.eq(key))
                .order((actions::action_date.desc(), actions::id.asc()))
                .limit(i64::from(max))
                .select((
                    ActionTopicRow::as_select(),
                    (
                        actions::id,
                        actions::entity_type,
                        actions::action_type,
                        actions::action_date,
                        actions::alias,
                    ),
                ))
                .load(conn)
        })?;
        rows.into_iter()
            .map(|(topic, (id, entity_type, action_type, date, alias))| {
                Ok(ActionRecord {
                    id: Uuid::parse_str(&id).map_err(|_| {
                        StoreError::backend_message(format!("stored action id {id} is invalid"))
                    })?,
                    entity_type,
                    action_type,
                    action_date: from_db_time(date),
                    alias,
                    relevance: topic.entity_topic().relevance(scoring),
                })
            })
            .collect()
    }

    fn rebuild_if_changed(&self, scoring: &Scoring) -> Result<bool, StoreError> {
        let fingerprint = scoring.fingerprint();
        let stored: Option<String> = self.read(|conn| {
            expertise_settings::table
                .find(1)
                .select(expertise_settings::fingerprint)
                .first(conn)
                .optional()
        })?;
        if stored.as_deref() == Some(fingerprint.as_str()) {
            return Ok(false);
        }
        // Learners in batches of about REBUILD_ACTIONS actions, each batch
        // rebuilt in a transaction of its own: memory holds one batch's
        // topics, not the whole history, and other writers get the lock
        // between batches. The settings are recorded last, so a rebuild
        // cut short starts again at the next start; rebuilding a learner
        // twice gives the same standings.
        let mut after = String::new();
        loop {
            let learners: Vec<(String, i32)> = self.read(|conn| {
                learners::table
                    .filter(learners::user_id.gt(&after))
                    .order(learners::user_id)
                    .select((learners::user_id, learners::actions))
                    .limit(REBUILD_LEARNERS_READ)
                    .load(conn)
            })?;
            let Some((last, _)) = learners.last() else {
                break;
            };
            after = last.clone();
            let mut batch = Vec::new();
            let mut actions = 0i64;
            for (user, count) in learners {
                batch.push(user);
                actions += i64::from(count);
                if actions >= REBUILD_ACTIONS {
                    self.rebuild_learners(&std::mem::take(&mut batch), scoring)?;
                    actions = 0;
                }
            }
            if !batch.is_empty() {
                self.rebuild_learners(&batch, scoring)?;
            }
        }
        self.write(|conn| {
            // Standings of users who have no action left (none should
            // exist) are not rebuilt by any batch.
            // NOT EXISTS, which both backends run as an anti-join
            // (PostgreSQL runs `<> ALL (subquery)` once per standing).
            diesel::sql_query(
                "DELETE FROM standings WHERE NOT EXISTS \
                 (SELECT 1 FROM learners WHERE learners.user_id = standings.user_id)",
            )
            .execute(conn)?;
            diesel::delete(expertise_settings::table).execute(conn)?;
            diesel::insert_into(expertise_settings::table)
                .values((
                    expertise_settings::id.eq(1),
                    expertise_settings::fingerprint.eq(&fingerprint),
                ))
                .execute(conn)?;
            Ok::<_, TxError>(())
        })
        .map_err(StoreError::from)?;
        Ok(true)
    }
}

/// About how many actions one transaction of a standings rebuild reads
/// (a learner with more is a batch alone): at some 190 topics an action,
/// a batch holds a few tens of megabytes.
const REBUILD_ACTIONS: i64 = 1_000;
/// Learners read at a time to form rebuild batches.
const REBUILD_LEARNERS_READ: i64 = 1_000;

impl Database {
    /// Recomputes the standings of the users `ids` from their actions under
    /// `scoring`, replacing theirs, and their actions' relevance, in one
    /// transaction, which may run while uploads are recorded: an upload
    /// locks its user's row first, and so does this, before it reads their
    /// actions (PostgreSQL; SQLite runs one writer at a time), so no upload
    /// falls between the actions read and the standings replaced.
    fn rebuild_learners(&self, ids: &[String], scoring: &Scoring) -> Result<(), StoreError> {
        self.write(|conn| {
            if let DbConnection::Postgres(pg) = conn {
                // In the order of the ids: batches never wait on each other
                // in a cycle.
                users::table
                    .filter(users::id.eq_any(ids))
                    .order(users::id)
                    .select(users::id)
                    .for_update()
                    .load::<String>(pg)?;
            }
            let learned: Vec<(ActionTopicRow, (String, NaiveDateTime))> = action_topics::table
                .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
                .filter(action_topics::user_id.eq_any(ids))
                // Redundant, but it lets both tables be read by user
                // (PostgreSQL otherwise hashes every action).
                .filter(actions::user_id.eq_any(ids))
                .select((
                    ActionTopicRow::as_select(),
                    (actions::action_type, actions::action_date),
                ))
                .load(conn)?;
            let mut rebuilt: HashMap<(String, String), (String, Standing)> = HashMap::new();
            for (topic, (action_type, date)) in learned {
                let contribution = scoring.contribution(&action_type, &topic.entity_topic());
                let at = from_db_time(date);
                let entry = rebuilt
                    .entry((topic.user_id.clone(), topic.topic_key.clone()))
                    .or_insert((
                        topic.label.clone(),
                        Standing {
                            score: 0.0,
                            as_of: at,
                        },
                    ));
                entry.1 = entry.1.add(contribution, at, scoring);
            }
            diesel::update(action_topics::table.filter(action_topics::user_id.eq_any(ids)))
                .set(action_topics::relevance.eq(action_topics::primary_relevance
                    * scoring.descriptor_factor(Descriptor::Primary)
                    + action_topics::default_relevance
                        * scoring.descriptor_factor(Descriptor::Default)
                    + action_topics::secondary_relevance
                        * scoring.descriptor_factor(Descriptor::Secondary)))
                .execute(conn)?;
            diesel::delete(standings::table.filter(standings::user_id.eq_any(ids)))
                .execute(conn)?;
            let rows: Vec<StandingRow> = rebuilt
                .into_iter()
                .map(|((user_id, topic_key), (label, standing))| {
                    StandingRow::new(user_id, topic_key, label, standing, scoring)
                })
                .collect();
            for rows in rows.chunks(ROWS_PER_INSERT) {
                execute_natively(conn, diesel::insert_into(standings::table).values(rows))?;
            }
            Ok::<_, TxError>(())
        })
        .map_err(StoreError::from)
    }
}
