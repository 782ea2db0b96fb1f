//! The expertise store: actions, their topics and the standings.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use chrono::NaiveDateTime;
use diesel::prelude::*;

use diesel::sql_types::{Integer, Nullable, Text};
use diesel::upsert::excluded;
use kenning_domain::{
    commonest_labels, hidden_topics_changed, ActionTopic, Attribution, EntityTopic, Evidence,
    GroupId, Holding, LearningRules, Lesson, Population, Scoring, Standing, Status, TopicLabel,
    TopicStanding, UserId,
};
use kenning_ports::{
    ActionRecord, Cooccurring, ExpertiseStore, NewAction, RecordError, StoreError, UploadStage,
    UPLOAD_STAGES,
};
use uuid::Uuid;

use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::kept::{generic_plans, Kept};
use crate::location::Backend;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{
    action_topics, actions, expertise_settings, hidden_topics, learner_totals, learners, standings,
    topic_learners, users,
};
use crate::sql::{Bind, Binder, Statement};

/// Rows written by one INSERT: far below the bound-parameter limits of
/// SQLite (32,766) and PostgreSQL (65,535) at the most columns a row of
/// these inserts has (nine, an action topic's: 4,500 values).
const ROWS_PER_INSERT: usize = 500;

/// Keys looked up by one statement: far below the bound-parameter limits.
const KEYS_PER_READ: usize = 1_000;

/// The condition that keeps the rows of `column`'s users to the members
/// of the group bound at the placeholder `group`, when there is one.
fn members_only(column: &str, group: Option<&str>) -> String {
    group.map_or_else(String::new, |group| {
        format!(
            " AND {column} IN (SELECT m.user_id FROM user_group_members m WHERE m.group_id = {group})"
        )
    })
}

/// The columns of a row a best-rows statement reads, the order that ranks
/// them within a topic, and the table and alias they come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BestRows {
    /// The best standings: [`RankedRow`].
    Standings,
    /// The actions in which a topic is most relevant: [`ActionTopicRow`].
    Actions,
}

impl BestRows {
    /// The columns read, of the table aliased `s` (standings) or `t`
    /// (action topics).
    fn columns(self) -> &'static str {
        match self {
            BestRows::Standings => {
                "s.user_id, s.topic_key, s.label, s.score, s.as_of, s.rank_key, s.shown, \
                 s.label_votes"
            }
            BestRows::Actions => {
                "t.action_id, t.user_id, t.topic_key, t.label, t.primary_relevance, \
                 t.default_relevance, t.secondary_relevance, t.relevance, t.shown"
            }
        }
    }

    /// The table, its alias, and the order of its rows within a topic,
    /// by the index that holds it: `(topic_key, rank_key, user_id)` of
    /// `standings`, `(topic_key, relevance, action_id)` of
    /// `action_topics`.
    fn source(self) -> (&'static str, &'static str, [&'static str; 2]) {
        match self {
            BestRows::Standings => ("standings", "s", ["rank_key", "user_id"]),
            BestRows::Actions => ("action_topics", "t", ["relevance", "action_id"]),
        }
    }

    /// The statement that reads, for one topic key (`key`, an expression),
    /// at most `LIMIT` rows of ranked learners (and, with a `group`, members
    /// of the group bound there), best first, each with its person's number of
    /// actions: it walks the topic's range of the index from the top and
    /// stops after `LIMIT` rows of ranked learners, whatever the number of
    /// people or actions on the topic. Each row's person is one look-up
    /// of `learners_ranked`: her number of actions, and whether she is
    /// ranked (ACTIVE and not hidden, a mark the database's triggers keep
    /// from her user row).
    ///
    /// SQLite's joins the learner with `CROSS JOIN`, which fixes the
    /// topic's rows as the outer loop, and names the covering index (its
    /// planner may prefer scanning learners and sorting, or the primary
    /// key's index). PostgreSQL's looks her up in a subquery of the row,
    /// since for a key it cannot estimate (each of an array's) it hashes
    /// every learner when joined; `OFFSET 0` keeps that inner query apart,
    /// or the look-up is made twice, to test and to read.
    fn per_key(self, backend: Backend, key: &str, limit: u32, group: Option<&str>) -> String {
        let (table, alias, [first, second]) = self.source();
        let columns = self.columns();
        let members = members_only(&format!("{alias}.user_id"), group);
        match backend {
            Backend::Sqlite => format!(
                "SELECT {columns}, l.actions \
                 FROM {table} {alias} CROSS JOIN learners l INDEXED BY learners_ranked \
                 ON l.user_id = {alias}.user_id \
                 WHERE {alias}.topic_key = {key} AND l.ranked{members} \
                 ORDER BY {alias}.{first} DESC, {alias}.{second} DESC LIMIT {limit}"
            ),
            Backend::Postgres => format!(
                "SELECT r.* FROM (SELECT {columns}, \
                 (SELECT l.actions FROM learners l \
                 WHERE l.user_id = {alias}.user_id AND l.ranked) AS actions \
                 FROM {table} {alias} WHERE {alias}.topic_key = {key}{members} \
                 ORDER BY {alias}.{first} DESC, {alias}.{second} DESC OFFSET 0) r \
                 WHERE r.actions IS NOT NULL \
                 ORDER BY r.{first} DESC, r.{second} DESC LIMIT {limit}"
            ),
        }
    }

    /// The statement [`BestRows::statements`] runs on `backend` for `key`,
    /// of the members of `within` alone when given: SQLite's reads one
    /// key; PostgreSQL's reads every key of the text array `key`, one
    /// [`BestRows::per_key`] read each (`LATERAL`), so that a query is
    /// planned and sent once, not once a key (planning each took a third
    /// of a millisecond). The key is bound first and the group second; the
    /// limit is written into the statement: a plan made without the values
    /// (PostgreSQL's, see [`crate::kept`]) then still knows it.
    fn statement(
        self,
        backend: Backend,
        key: String,
        limit: u32,
        within: Option<GroupId>,
    ) -> Statement {
        let mut sql = Binder::new(backend);
        let key = sql.text(key);
        let group = within.map(|group| sql.text(group.to_string()));
        let group = group.as_deref();
        let text = match backend {
            Backend::Sqlite => self.per_key(backend, &key, limit, group),
            Backend::Postgres => {
                let (_, _, [first, second]) = self.source();
                format!(
                    "SELECT b.* FROM unnest({key}::text[]) WITH ORDINALITY AS k(key, place) \
                     CROSS JOIN LATERAL ({per_key}) b \
                     ORDER BY k.place, b.{first} DESC, b.{second} DESC",
                    per_key = self.per_key(backend, "k.key", limit, group),
                )
            }
        };
        sql.statement(text)
    }

    /// The statements that read the best rows on each of `keys`, at most
    /// `limit` a key: one a key on SQLite, one in all on PostgreSQL.
    pub(crate) fn statements(
        self,
        conn: &DbConnection,
        keys: &[String],
        limit: u32,
        within: Option<GroupId>,
    ) -> Vec<Statement> {
        let backend = conn.backend();
        match backend {
            Backend::Sqlite => keys
                .iter()
                .map(|key| self.statement(backend, key.clone(), limit, within))
                .collect(),
            Backend::Postgres if keys.is_empty() => Vec::new(),
            Backend::Postgres => vec![self.statement(backend, text_array(keys), limit, within)],
        }
    }

    /// The best rows on each of `keys`, key by key in their order, each
    /// key's best first.
    fn read<T>(
        self,
        conn: &mut DbConnection,
        keys: &[String],
        limit: u32,
        within: Option<GroupId>,
    ) -> QueryResult<Vec<T>>
    where
        T: diesel::QueryableByName<diesel::sqlite::Sqlite>
            + diesel::QueryableByName<diesel::pg::Pg>
            + 'static,
    {
        let mut found = Vec::new();
        for statement in self.statements(conn, keys, limit, within) {
            found.extend(match conn {
                DbConnection::Sqlite(_) => statement.load::<T>(conn)?,
                DbConnection::Postgres(pg) => Kept::new(&statement)?.load::<T>(pg)?,
            });
        }
        Ok(found)
    }
}

/// `texts` as a PostgreSQL array literal (`{"a","b c"}`), for a `text[]`
/// parameter: each element quoted, its quotes and backslashes escaped, so
/// that any text (a comma, a brace, the word NULL) stays itself.
fn text_array(texts: &[String]) -> String {
    let mut literal = String::from("{");
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            literal.push(',');
        }
        literal.push('"');
        for c in text.chars() {
            if c == '"' || c == '\\' {
                literal.push('\\');
            }
            literal.push(c);
        }
        literal.push('"');
    }
    literal.push('}');
    literal
}

/// Recounts `topic_learners` and `learner_totals` from the standings and
/// the learners, as the migration that made them counted them first.
const RECOUNT: &str = "DELETE FROM topic_learners; \
     INSERT INTO topic_learners (topic_key, people) \
     SELECT topic_key, COUNT(*) FROM standings GROUP BY topic_key; \
     DELETE FROM learner_totals; \
     INSERT INTO learner_totals (shard, people, actions) \
     SELECT substr(user_id, 1, 1), COUNT(*), SUM(actions) \
     FROM learners GROUP BY substr(user_id, 1, 1);";

/// `rows` as the domain's action topics, each topic's relevance under
/// `scoring`.
fn action_topics_of(
    rows: Vec<ActionTopicRow>,
    scoring: &Scoring,
) -> Result<Vec<ActionTopic>, StoreError> {
    rows.into_iter()
        .map(|row| {
            Ok(ActionTopic {
                action: Uuid::parse_str(&row.action_id).map_err(|_| {
                    StoreError::backend_message(format!(
                        "stored action id {} is invalid",
                        row.action_id
                    ))
                })?,
                user: parse_user(&row.user_id)?,
                relevance: row.entity_topic().relevance(scoring),
                key: row.topic_key,
            })
        })
        .collect()
}

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
    taught: bool,
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
    /// Whether people read the topic ([`EntityTopic::shown`]).
    shown: bool,
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
            shown: self.shown,
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
    /// Whether people read the topic: shown by any of the user's uploads.
    shown: bool,
    /// The lead of `label` in its uploads' vote ([`TopicLabel`]).
    label_votes: f64,
}

impl StandingRow {
    fn new(user_id: String, topic_key: String, holding: Holding, scoring: &Scoring) -> Self {
        let Holding {
            label:
                TopicLabel {
                    label,
                    votes: label_votes,
                    shown,
                },
            standing,
        } = holding;
        Self {
            user_id,
            topic_key,
            label,
            score: standing.score,
            as_of: to_db_time(standing.as_of),
            rank_key: standing.rank_key(scoring),
            shown,
            label_votes,
        }
    }
}

/// A standing as the best-standings statement reads it, with the number
/// of actions of its user.
#[derive(Debug, QueryableByName)]
struct RankedRow {
    #[diesel(embed)]
    standing: StandingRow,
    #[diesel(sql_type = Nullable<Integer>)]
    actions: Option<i32>,
}

/// A learner's number of actions, as the upsert that counts one returns it.
#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = Integer)]
    actions: i32,
}

/// The row of `learner_totals` that counts a user.
pub(crate) fn shard(user_id: &str) -> &str {
    user_id.get(..1).unwrap_or_default()
}

impl StandingRow {
    /// The holding the row stores.
    fn holding(&self) -> Holding {
        Holding {
            label: TopicLabel {
                label: self.label.clone(),
                votes: self.label_votes,
                shown: self.shown,
            },
            standing: Standing {
                score: self.score,
                as_of: from_db_time(self.as_of),
            },
        }
    }

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
            shown: self.shown,
        })
    }
}

/// Removes everything learned about a user, and the user from the counts;
/// used when it is anonymized, inside the transaction that anonymizes it.
pub(crate) fn erase_expertise(conn: &mut DbConnection, user_id: &str) -> QueryResult<()> {
    let mut known: Vec<String> = standings::table
        .filter(standings::user_id.eq(user_id))
        .select(standings::topic_key)
        .load(conn)?;
    known.sort_unstable();
    for keys in known.chunks(KEYS_PER_READ) {
        if let DbConnection::Postgres(pg) = conn {
            // Row locks in key order, as uploads take them, so that an
            // erasure and an upload never wait for each other in a cycle.
            topic_learners::table
                .filter(topic_learners::topic_key.eq_any(keys))
                .order(topic_learners::topic_key)
                .select(topic_learners::topic_key)
                .for_update()
                .load::<String>(pg)?;
        }
        let counted = || topic_learners::table.filter(topic_learners::topic_key.eq_any(keys));
        diesel::update(counted())
            .set(topic_learners::people.eq(topic_learners::people - 1))
            .execute(conn)?;
        // A topic nobody knows any more leaves no trace.
        diesel::delete(counted().filter(topic_learners::people.le(0))).execute(conn)?;
    }
    let learned: Option<i32> = learners::table
        .find(user_id)
        .select(learners::actions)
        .first(conn)
        .optional()?;
    if let Some(actions) = learned {
        diesel::update(learner_totals::table.find(shard(user_id)))
            .set((
                learner_totals::people.eq(learner_totals::people - 1),
                learner_totals::actions.eq(learner_totals::actions - i64::from(actions)),
            ))
            .execute(conn)?;
    }
    diesel::delete(action_topics::table.filter(action_topics::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(learners::table.filter(learners::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(standings::table.filter(standings::user_id.eq(user_id))).execute(conn)?;
    diesel::delete(hidden_topics::table.filter(hidden_topics::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(actions::table.filter(actions::user_id.eq(user_id))).execute(conn)?;
    Ok(())
}

/// A user's id and whether she is learned about, as the look-up of an
/// upload returns them.
#[derive(QueryableByName)]
struct LearnerRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    learns: bool,
}

/// Locks the ACTIVE or DEACTIVATED user with an e-mail key and returns her
/// id and whether she is learned about: the look-up every upload makes, through the unique index
/// `users_email_key_live`. That index covers users `WHERE status <>
/// 'DELETED'`, and SQLite uses a partial index only for a statement that
/// states the index's condition as the index does (a bound parameter does
/// not count), so the statement spells it out beside the statuses it wants.
pub(crate) fn learning_user(conn: &DbConnection, key: &str) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let key = sql.text(key);
    sql.statement(format!(
        "UPDATE users SET version = version \
         WHERE email_key = {key} AND status <> '{deleted}' AND status IN ('{}', '{}') \
         RETURNING id, learns",
        Status::LEARNING[0],
        Status::LEARNING[1],
        deleted = Status::DELETED,
    ))
}

/// Counts one more action of a learner (the first makes her a learner)
/// and returns her number of actions.
fn count_action(conn: &DbConnection, user_id: &str) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let user = sql.text(user_id);
    sql.statement(format!(
        "INSERT INTO learners (user_id, actions) VALUES ({user}, 1) \
         ON CONFLICT (user_id) DO UPDATE SET actions = learners.actions + 1 \
         RETURNING actions"
    ))
}

/// Counts `people` more who know each key of `counts` (diesel writes no
/// upsert of many rows for SQLite).
fn count_learners(conn: &DbConnection, counts: &[(&String, &i64)]) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let values: Vec<String> = counts
        .iter()
        .map(|(key, people)| format!("({}, {})", sql.text(*key), sql.int(**people)))
        .collect();
    sql.statement(format!(
        "INSERT INTO topic_learners (topic_key, people) VALUES {} \
         ON CONFLICT (topic_key) DO UPDATE SET people = topic_learners.people + excluded.people",
        values.join(", ")
    ))
}

/// What the actions of one write add to the counts, kept until the end of
/// its transaction and written then in key order, so that the counts' rows
/// stay locked for the shortest time and writers never wait for each other
/// in a cycle.
#[derive(Debug, Default)]
struct NewCounts {
    /// People who learned each topic for the first time.
    people_on: BTreeMap<String, i64>,
    /// (new learners, actions) per shard of the totals.
    totals: BTreeMap<String, (i64, i64)>,
}

impl NewCounts {
    fn write(&self, conn: &mut DbConnection) -> QueryResult<()> {
        let people_on: Vec<(&String, &i64)> = self.people_on.iter().collect();
        for counts in people_on.chunks(ROWS_PER_INSERT) {
            count_learners(conn, counts).execute(conn)?;
        }
        for (shard, (people, actions)) in &self.totals {
            execute_natively(
                conn,
                diesel::insert_into(learner_totals::table)
                    .values((
                        learner_totals::shard.eq(shard),
                        learner_totals::people.eq(people),
                        learner_totals::actions.eq(actions),
                    ))
                    .on_conflict(learner_totals::shard)
                    .do_update()
                    .set((
                        learner_totals::people
                            .eq(learner_totals::people + excluded(learner_totals::people)),
                        learner_totals::actions
                            .eq(learner_totals::actions + excluded(learner_totals::actions)),
                    )),
            )?;
        }
        Ok(())
    }
}

/// What became of one action of a write.
enum Outcome {
    /// Stored for the user with this id; whether it taught.
    Learned(String, bool),
    /// Refused before anything of it was written.
    Refused(RecordError),
}

/// Stores one action inside the caller's transaction and adds what it
/// changes in the counts to `counts`. An action is refused before any of
/// its writes, so a refusal needs no rollback.
fn record_one(
    conn: &mut DbConnection,
    action: &NewAction,
    learners: &HashMap<&str, (String, bool)>,
    rules: &LearningRules,
    scoring: &Scoring,
    counts: &mut NewCounts,
) -> Result<Outcome, TxError> {
    let Some((user_id, learns)) = learners.get(action.user_email_key.as_str()).cloned() else {
        return Ok(Outcome::Refused(RecordError::UnknownUser));
    };
    let taught = learns && rules.teaches(&action.entity_type, &action.action_type);
    let started = Instant::now();
    // A taken alias inserts nothing (PostgreSQL waits for a writer of the
    // same alias to end first), and nothing else is written then.
    let inserted = execute_natively(
        conn,
        diesel::insert_into(actions::table)
            .values(ActionRow {
                id: action.id.to_string(),
                user_id: &user_id,
                entity_type: &action.entity_type,
                action_type: &action.action_type,
                action_date: to_db_time(action.action_date),
                alias: action.alias.as_deref(),
                received: to_db_time(action.received),
                taught,
            })
            .on_conflict(actions::alias)
            .do_nothing(),
    )?;
    if inserted == 0 {
        let (stored, received): (String, NaiveDateTime) = actions::table
            .filter(actions::alias.eq(action.alias.as_deref()))
            .select((actions::id, actions::received))
            .first(conn)?;
        let action = Uuid::parse_str(&stored).map_err(|_| {
            TxError::from(StoreError::backend_message(format!(
                "stored action id {stored}"
            )))
        })?;
        UPLOAD_STAGES.add(UploadStage::ActionRow, started.elapsed());
        return Ok(Outcome::Refused(RecordError::DuplicateAlias {
            action,
            received: from_db_time(received),
        }));
    }
    if !taught {
        UPLOAD_STAGES.add(UploadStage::ActionRow, started.elapsed());
        return Ok(Outcome::Learned(user_id, false));
    }
    let counted: Vec<CountRow> = count_action(conn, &user_id).load(conn)?;
    let first_action = counted.first().is_some_and(|c| c.actions == 1);
    let started = {
        let now = Instant::now();
        UPLOAD_STAGES.add(UploadStage::ActionRow, now - started);
        now
    };
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
            shown: topic.shown,
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
    let before = before
        .into_iter()
        .map(|row| (row.topic_key.clone(), row.holding()))
        .collect();
    let lesson = Lesson::of(
        &action.action_type,
        action.action_date,
        &action.topics,
        before,
        scoring,
    );
    let after: Vec<StandingRow> = lesson
        .holdings
        .into_iter()
        .map(|(key, holding)| StandingRow::new(user_id.clone(), key, holding, scoring))
        .collect();
    // The user's row is locked until commit, so nobody else writes these
    // standings meanwhile: those read above are updated in place.
    for rows in after.chunks(ROWS_PER_INSERT) {
        upsert_standings(conn, rows).execute(conn)?;
    }
    for key in lesson.first_known {
        *counts.people_on.entry(key).or_default() += 1;
    }
    let total = counts.totals.entry(shard(&user_id).to_owned()).or_default();
    total.0 += i64::from(first_action);
    total.1 += 1;
    UPLOAD_STAGES.add(UploadStage::TopicStructures, started.elapsed());
    Ok(Outcome::Learned(user_id, true))
}

/// The ACTIVE or DEACTIVATED users that `actions` name, by e-mail key,
/// their rows locked until commit, so a purge cannot erase one of them
/// between this look-up and the writes. Taken in key order, so that two
/// writers of several users each never wait for each other in a cycle.
fn lock_learners<'a>(
    conn: &mut DbConnection,
    actions: &'a [NewAction],
) -> QueryResult<HashMap<&'a str, (String, bool)>> {
    let keys: BTreeSet<&str> = actions.iter().map(|a| a.user_email_key.as_str()).collect();
    let mut learners = HashMap::with_capacity(keys.len());
    for key in keys {
        let found: Vec<LearnerRow> = learning_user(conn, key).load(conn)?;
        if let Some(LearnerRow { id, learns }) = found.into_iter().next() {
            learners.insert(key, (id, learns));
        }
    }
    Ok(learners)
}

/// Writes `rows` over the standings of the same user and topic, or as new
/// ones (diesel writes no upsert of many rows for SQLite).
fn upsert_standings(conn: &DbConnection, rows: &[StandingRow]) -> Statement {
    let mut sql = Binder::new(conn.backend());
    let values: Vec<String> = rows
        .iter()
        .map(|r| {
            let places = [
                Bind::Text(r.user_id.clone()),
                Bind::Text(r.topic_key.clone()),
                Bind::Text(r.label.clone()),
                Bind::Float(r.score),
                Bind::Moment(r.as_of),
                Bind::Float(r.rank_key),
                Bind::Bool(r.shown),
                Bind::Float(r.label_votes),
            ]
            .map(|value| sql.bind(value));
            format!("({})", places.join(", "))
        })
        .collect();
    sql.statement(format!(
        "INSERT INTO standings \
         (user_id, topic_key, label, score, as_of, rank_key, shown, label_votes) VALUES {} \
         ON CONFLICT (user_id, topic_key) DO UPDATE SET label = excluded.label, \
         label_votes = excluded.label_votes, \
         score = excluded.score, as_of = excluded.as_of, rank_key = excluded.rank_key, \
         shown = standings.shown OR excluded.shown",
        values.join(", ")
    ))
}

/// Stores each `(action_id, topic_key, relevance)` of `rows` as that
/// action topic's relevance: the domain's ([`EntityTopic::relevance`]),
/// computed by the caller. SQLite's writes a row a statement (prepared
/// once, no round trip); PostgreSQL's writes them all in one statement
/// (one round trip), the columns bound as arrays.
fn set_relevance(conn: &mut DbConnection, rows: &[(String, String, f64)]) -> QueryResult<()> {
    match conn {
        DbConnection::Sqlite(_) => {
            for (action_id, topic_key, relevance) in rows {
                diesel::update(action_topics::table.find((action_id, topic_key)))
                    .set(action_topics::relevance.eq(relevance))
                    .execute(conn)?;
            }
        }
        DbConnection::Postgres(_) => {
            let column = |pick: fn(&(String, String, f64)) -> String| {
                let values: Vec<String> = rows.iter().map(pick).collect();
                Bind::Text(text_array(&values))
            };
            let mut sql = Binder::new(Backend::Postgres);
            let (ids, keys, relevances) = (
                sql.bind(column(|row| row.0.clone())),
                sql.bind(column(|row| row.1.clone())),
                sql.bind(column(|row| format!("{:e}", row.2))),
            );
            sql.statement(format!(
                "UPDATE action_topics t SET relevance = v.relevance \
                 FROM unnest({ids}::text[], {keys}::text[], {relevances}::text[]::float8[]) \
                 AS v(action_id, topic_key, relevance) \
                 WHERE t.action_id = v.action_id AND t.topic_key = v.topic_key"
            ))
            .execute(conn)?;
        }
    }
    Ok(())
}

/// Recounts the people per topic and the population from the standings
/// and the learners. On PostgreSQL the counts are locked first: an upload
/// that has counted already is waited for, and one that has not counts
/// after the recount, on top of it.
fn recount(conn: &mut DbConnection) -> QueryResult<()> {
    use diesel::connection::SimpleConnection;
    if let DbConnection::Postgres(_) = conn {
        conn.batch_execute("LOCK TABLE topic_learners, learner_totals IN EXCLUSIVE MODE")?;
    }
    conn.batch_execute(RECOUNT)
}

/// The population, from its few rows of totals.
fn count_population(conn: &mut DbConnection) -> QueryResult<Population> {
    let totals: Vec<(i64, i64)> = learner_totals::table
        .select((learner_totals::people, learner_totals::actions))
        .load(conn)?;
    let (people, actions) = totals
        .into_iter()
        .fold((0i64, 0i64), |(p, a), (people, actions)| {
            (p + people, a + actions)
        });
    Ok(Population {
        people: u64::try_from(people).unwrap_or_default(),
        actions: u64::try_from(actions).unwrap_or_default(),
    })
}

/// Who hid which of `keys`: each (user id, key) pair.
fn hidden_on(conn: &mut DbConnection, keys: &[String]) -> QueryResult<Vec<(String, String)>> {
    let mut rows = Vec::new();
    for keys in keys.chunks(KEYS_PER_READ) {
        rows.extend(
            hidden_topics::table
                .filter(hidden_topics::topic_key.eq_any(keys))
                .select((hidden_topics::user_id, hidden_topics::topic_key))
                .load::<(String, String)>(conn)?,
        );
    }
    Ok(rows)
}

/// How many people know each of `keys`, from their counts.
fn count_people_on(conn: &mut DbConnection, keys: &[String]) -> QueryResult<HashMap<String, u64>> {
    let mut found = HashMap::with_capacity(keys.len());
    for keys in keys.chunks(KEYS_PER_READ) {
        let rows: Vec<(String, i64)> = topic_learners::table
            .filter(topic_learners::topic_key.eq_any(keys))
            .filter(topic_learners::people.gt(0))
            .select((topic_learners::topic_key, topic_learners::people))
            .load(conn)?;
        found.extend(
            rows.into_iter()
                .map(|(key, n)| (key, u64::try_from(n).unwrap_or_default())),
        );
    }
    Ok(found)
}

impl Database {
    /// Recounts the people per topic and the population from the stored
    /// standings and learners, for a tool that wrote those tables
    /// directly; every write of the store keeps the counts itself.
    pub fn recount_learning(&self) -> Result<(), StoreError> {
        self.write(|conn| recount(conn).map_err(TxError::from))
            .map_err(StoreError::from)
    }
}

impl ExpertiseStore for Database {
    fn record_all(
        &self,
        actions: &[NewAction],
        scoring: &Scoring,
    ) -> Result<Vec<Result<kenning_ports::Recorded, RecordError>>, StoreError> {
        if actions.is_empty() {
            return Ok(Vec::new());
        }
        let answers: Vec<Result<(String, bool), RecordError>> = self
            .write_uploads(|conn| {
                let (learners, rules) = UPLOAD_STAGES.time(UploadStage::PersonCheck, || {
                    Ok::<_, TxError>((lock_learners(conn, actions)?, crate::learning::rules(conn)?))
                })?;
                let mut counts = NewCounts::default();
                let mut answers = Vec::with_capacity(actions.len());
                for action in actions {
                    answers.push(
                        match record_one(conn, action, &learners, &rules, scoring, &mut counts)? {
                            Outcome::Learned(user_id, taught) => Ok((user_id, taught)),
                            Outcome::Refused(refusal) => Err(refusal),
                        },
                    );
                }
                UPLOAD_STAGES.time(UploadStage::TopicStructures, || counts.write(conn))?;
                Ok::<_, TxError>(answers)
            })
            .map_err(StoreError::from)?;
        answers
            .into_iter()
            .map(|answer| match answer {
                Ok((user_id, taught)) => Ok(Ok(kenning_ports::Recorded {
                    user: parse_user(&user_id)?,
                    taught,
                })),
                Err(refusal) => Ok(Err(refusal)),
            })
            .collect()
    }

    fn upload_writers(&self) -> usize {
        self.group_writers()
    }

    fn best_actions_on(
        &self,
        keys: &[String],
        per_key: u32,
        scoring: &Scoring,
    ) -> Result<Vec<ActionTopic>, StoreError> {
        let rows =
            self.read(|conn| BestRows::Actions.read::<ActionTopicRow>(conn, keys, per_key, None))?;
        action_topics_of(rows, scoring)
    }

    fn evidence(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
    ) -> Result<Evidence, StoreError> {
        self.evidence_of(keys, per_key, actions_per_key, scoring, None)
    }

    fn evidence_within(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
        group: GroupId,
    ) -> Result<Evidence, StoreError> {
        self.evidence_of(keys, per_key, actions_per_key, scoring, Some(group))
    }

    fn population(&self) -> Result<Population, StoreError> {
        self.read(count_population)
    }

    fn people_on(&self, keys: &[String]) -> Result<HashMap<String, u64>, StoreError> {
        self.read(|conn| count_people_on(conn, keys))
    }

    fn learned_keys(&self) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            topic_learners::table
                .filter(topic_learners::people.gt(0))
                .order(topic_learners::topic_key)
                .select(topic_learners::topic_key)
                .load(conn)
        })
    }

    fn labels_of(&self, keys: &[String]) -> Result<HashMap<String, String>, StoreError> {
        self.read(|conn| {
            let mut found = HashMap::with_capacity(keys.len());
            for keys in keys.chunks(KEYS_PER_READ) {
                let rows: Vec<(String, Option<String>)> = standings::table
                    .filter(standings::topic_key.eq_any(keys))
                    .group_by(standings::topic_key)
                    .select((standings::topic_key, diesel::dsl::min(standings::label)))
                    .load(conn)?;
                found.extend(rows.into_iter().filter_map(|(k, l)| Some((k, l?))));
            }
            Ok(found)
        })
    }

    fn cooccurring(&self, key: &str, sample: u32) -> Result<Cooccurring, StoreError> {
        // The actions and their topics from one state: an action erased
        // between the two reads would count without its topics.
        self.read_snapshot(|conn| {
            let teaching: Vec<String> = action_topics::table
                .inner_join(actions::table.on(actions::id.eq(action_topics::action_id)))
                .filter(action_topics::topic_key.eq(key))
                .order((actions::action_date.desc(), actions::id.asc()))
                .limit(i64::from(sample))
                .select(actions::id)
                .load(conn)?;
            let rows: Vec<(String, String, i64)> = action_topics::table
                .filter(action_topics::action_id.eq_any(&teaching))
                .filter(action_topics::topic_key.ne(key))
                .filter(action_topics::shown.eq(true))
                .group_by((action_topics::topic_key, action_topics::label))
                .select((
                    action_topics::topic_key,
                    action_topics::label,
                    diesel::dsl::count_star(),
                ))
                .load(conn)?;
            Ok(Cooccurring {
                actions: teaching.len() as u64,
                topics: commonest_labels(
                    rows.into_iter()
                        .map(|(key, label, n)| (key, label, u64::try_from(n).unwrap_or_default())),
                ),
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

    fn set_hidden(
        &self,
        user: UserId,
        key: &str,
        hidden: bool,
        by: &Attribution,
    ) -> Result<bool, StoreError> {
        let user_id = user.to_string();
        let changed = self
            .write(|conn| {
                let changed = if hidden {
                    execute_natively(
                        conn,
                        diesel::insert_into(hidden_topics::table)
                            .values((
                                hidden_topics::user_id.eq(&user_id),
                                hidden_topics::topic_key.eq(key),
                            ))
                            .on_conflict((hidden_topics::user_id, hidden_topics::topic_key))
                            .do_nothing(),
                    )
                } else {
                    execute_natively(
                        conn,
                        diesel::delete(
                            hidden_topics::table
                                .filter(hidden_topics::user_id.eq(&user_id))
                                .filter(hidden_topics::topic_key.eq(key)),
                        ),
                    )
                };
                let changed = changed?;
                if changed > 0 {
                    crate::audit::record(conn, by, &[hidden_topics_changed(user.as_uuid())])?;
                }
                Ok::<_, TxError>(changed)
            })
            .map_err(StoreError::from)?;
        Ok(changed > 0)
    }

    fn hidden_of(&self, user: UserId) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            hidden_topics::table
                .filter(hidden_topics::user_id.eq(user.to_string()))
                .order(hidden_topics::topic_key)
                .select(hidden_topics::topic_key)
                .load(conn)
        })
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
            recount(conn)?;
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
        self.write(|conn| relearn(conn, ids, scoring).map_err(TxError::from))
            .map_err(StoreError::from)
    }
}

/// Recomputes the standings of the users `ids` from their actions under
/// `scoring`, replacing theirs, and their actions' relevance, in the
/// caller's transaction (see [`Database::rebuild_learners`] for the locks).
pub(crate) fn relearn(
    conn: &mut DbConnection,
    ids: &[String],
    scoring: &Scoring,
) -> QueryResult<()> {
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
    let mut rebuilt: HashMap<(String, String), Holding> = HashMap::new();
    let mut changed: Vec<(String, String, f64)> = Vec::new();
    for (topic, (action_type, date)) in learned {
        let taught = topic.entity_topic();
        let relevance = taught.relevance(scoring);
        if relevance.to_bits() != topic.relevance.to_bits() {
            changed.push((topic.action_id, topic.topic_key.clone(), relevance));
        }
        let key = (topic.user_id, topic.topic_key);
        let before = rebuilt.remove(&key);
        let after = Holding::learn(before, &taught, &action_type, from_db_time(date), scoring);
        rebuilt.insert(key, after);
    }
    for rows in changed.chunks(ROWS_PER_INSERT) {
        set_relevance(conn, rows)?;
    }
    diesel::delete(standings::table.filter(standings::user_id.eq_any(ids))).execute(conn)?;
    let rows: Vec<StandingRow> = rebuilt
        .into_iter()
        .map(|((user_id, topic_key), holding)| {
            StandingRow::new(user_id, topic_key, holding, scoring)
        })
        .collect();
    for rows in rows.chunks(ROWS_PER_INSERT) {
        execute_natively(conn, diesel::insert_into(standings::table).values(rows))?;
    }
    Ok(())
}

impl Database {
    /// [`ExpertiseStore::evidence`], of the members of `within` alone when
    /// given: every read in one read transaction ([`generic_plans`]), so
    /// the standings, the counts, the actions and the hidden topics are of
    /// one state of the database, whatever uploads commit meanwhile (on
    /// PostgreSQL with the plans made once without values); each key's
    /// rows bounded by their own `LIMIT`.
    fn evidence_of(
        &self,
        keys: &[String],
        per_key: u32,
        actions_per_key: u32,
        scoring: &Scoring,
        within: Option<GroupId>,
    ) -> Result<Evidence, StoreError> {
        let reads = |conn: &mut DbConnection| {
            Ok((
                BestRows::Standings.read::<RankedRow>(conn, keys, per_key, within)?,
                count_people_on(conn, keys)?,
                count_population(conn)?,
                BestRows::Actions.read::<ActionTopicRow>(conn, keys, actions_per_key, within)?,
                hidden_on(conn, keys)?,
            ))
        };
        let (rows, knowing, population, actions, hidden) =
            self.read(|conn| generic_plans(conn, reads))?;
        let mut standings = Vec::with_capacity(rows.len());
        let mut activity = HashMap::new();
        for row in rows {
            let standing = row.standing.into_standing()?;
            if let Some(actions) = row.actions {
                activity.insert(standing.user, u64::try_from(actions).unwrap_or_default());
            }
            standings.push(standing);
        }
        Ok(Evidence {
            standings,
            knowing,
            activity,
            population,
            actions: action_topics_of(actions, scoring)?,
            hidden: hidden
                .into_iter()
                .map(|(user, key)| Ok((parse_user(&user)?, key)))
                .collect::<Result<_, StoreError>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::text_array;

    #[test]
    fn a_text_array_keeps_every_text_as_it_is() {
        let texts = [
            "helm chart",
            "a,b",
            "{brace}",
            "say \"hi\"",
            "back\\slash",
            "NULL",
            "",
        ]
        .map(str::to_owned);
        assert_eq!(
            text_array(&texts),
            r#"{"helm chart","a,b","{brace}","say \"hi\"","back\\slash","NULL",""}"#
        );
        assert_eq!(text_array(&[]), "{}");
    }
}
