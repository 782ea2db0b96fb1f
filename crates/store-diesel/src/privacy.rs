//! The privacy store: the organisation's rules on learning, a person's
//! choice, forgetting, the reads of a person's data, and the counts of
//! what people ask that nobody knows.
//!
//! Setting a rule or a choice writes again whom Kenning learns about
//! ([`crate::learning::refresh`]) in the same transaction. Forgetting a
//! person takes their row's lock and erases their actions, standings and
//! counts as anonymizing does ([`crate::expertise::erase_expertise`]), and
//! their sign-ins and sign-outs in the trail then name nobody
//! ([`crate::audit::anonymize_use`]); the account stays.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;
use kenning_domain::{
    learning_rule_changed, user_exported, user_forgotten, user_learning_changed, AskedCount,
    AskedSubject, Attribution, Learning, LearningRule, LearningRules, Scoring, Status, UserId,
};
use kenning_ports::{PrivacyStore, StoreError, StoredAction};
use uuid::Uuid;

use crate::connection::{execute_natively, DbConnection, TxError};
use crate::database::Database;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{action_topics, actions, asked_subjects, learning_rules, users};

/// The choice and the learning of the live user `id`; `None` for none.
fn learning(conn: &mut DbConnection, id: &str) -> QueryResult<Option<Learning>> {
    let found: Option<(Option<bool>, bool)> = users::table
        .find(id)
        .filter(users::status.ne(Status::DELETED))
        .select((users::learning_choice, users::learns))
        .first(conn)
        .optional()?;
    Ok(found.map(|(choice, learns)| Learning { choice, learns }))
}

/// Whether the user `id` is live (not deleted), taking her row's write
/// lock, so nobody else writes what is learned about her meanwhile.
fn lock_live(conn: &mut DbConnection, id: &str) -> QueryResult<bool> {
    let locked = diesel::update(users::table.find(id))
        .filter(users::status.ne(Status::DELETED))
        .set(users::version.eq(users::version))
        .execute(conn)?;
    Ok(locked == 1)
}

impl PrivacyStore for Database {
    fn learning_rules(&self) -> Result<LearningRules, StoreError> {
        self.read(crate::learning::rules)
    }

    fn set_learning_rule(
        &self,
        rule: &LearningRule,
        set: bool,
        by: &Attribution,
    ) -> Result<bool, StoreError> {
        let (kind, value) = rule.parts();
        self.write(|conn| {
            let mine = || {
                learning_rules::table
                    .filter(learning_rules::kind.eq(kind))
                    .filter(learning_rules::value.eq(&value))
            };
            let present: i64 = mine().count().get_result(conn)?;
            if (present > 0) == set {
                return Ok(false);
            }
            if set {
                if rule.is_single() {
                    diesel::delete(learning_rules::table.filter(learning_rules::kind.eq(kind)))
                        .execute(conn)?;
                }
                diesel::insert_into(learning_rules::table)
                    .values((
                        learning_rules::kind.eq(kind),
                        learning_rules::value.eq(&value),
                        learning_rules::set_at.eq(to_db_time(by.at)),
                        learning_rules::credential_id
                            .eq(by.actor.credential_id.map(|id| id.to_string())),
                        learning_rules::actor_name.eq(&by.actor.name),
                        learning_rules::channel.eq(by.actor.channel.as_str()),
                    ))
                    .execute(conn)?;
            } else {
                diesel::delete(mine()).execute(conn)?;
            }
            crate::learning::refresh(conn, None)?;
            crate::audit::record(conn, by, &[learning_rule_changed(rule, set)])?;
            Ok::<_, TxError>(true)
        })
        .map_err(StoreError::from)
    }

    fn learning_of(&self, user: UserId) -> Result<Option<Learning>, StoreError> {
        let id = user.to_string();
        self.read(|conn| learning(conn, &id))
    }

    fn set_learning_choice(
        &self,
        user: UserId,
        choice: Option<bool>,
        by: &Attribution,
    ) -> Result<Option<Learning>, StoreError> {
        let id = user.to_string();
        self.write(|conn| {
            if !lock_live(conn, &id)? {
                return Ok(None);
            }
            let before = learning(conn, &id)?;
            if before.is_some_and(|b| b.choice == choice) {
                return Ok(before);
            }
            diesel::update(users::table.find(&id))
                .set(users::learning_choice.eq(choice))
                .execute(conn)?;
            crate::learning::refresh(conn, Some(std::slice::from_ref(&id)))?;
            crate::audit::record(conn, by, &[user_learning_changed(user.as_uuid())])?;
            Ok::<_, TxError>(learning(conn, &id)?)
        })
        .map_err(StoreError::from)
    }

    fn forget(&self, user: UserId, by: &Attribution) -> Result<bool, StoreError> {
        let id = user.to_string();
        self.write(|conn| {
            if !lock_live(conn, &id)? {
                return Ok(false);
            }
            crate::expertise::erase_expertise(conn, &id)?;
            crate::audit::anonymize_use(conn, &id)?;
            crate::audit::record(conn, by, &[user_forgotten(user.as_uuid())])?;
            Ok::<_, TxError>(true)
        })
        .map_err(StoreError::from)
    }

    fn expire_before(
        &self,
        before: DateTime<Utc>,
        max: u32,
        scoring: &Scoring,
    ) -> Result<u32, StoreError> {
        self.write(|conn| {
            crate::forgetting::expire_before(conn, to_db_time(before), max, scoring)
                .map_err(TxError::from)
        })
        .map_err(StoreError::from)
    }

    fn actions_of(&self, user: UserId) -> Result<Vec<StoredAction>, StoreError> {
        let id = user.to_string();
        type Row = (
            String,
            String,
            String,
            chrono::NaiveDateTime,
            Option<String>,
            chrono::NaiveDateTime,
        );
        let (rows, taught) = self.read_snapshot(|conn| {
            let rows: Vec<Row> = actions::table
                .filter(actions::user_id.eq(&id))
                .order((actions::action_date, actions::id))
                .select((
                    actions::id,
                    actions::entity_type,
                    actions::action_type,
                    actions::action_date,
                    actions::alias,
                    actions::received,
                ))
                .load(conn)?;
            let taught: Vec<(String, String)> = action_topics::table
                .filter(action_topics::user_id.eq(&id))
                .order((action_topics::action_id, action_topics::topic_key))
                .select((action_topics::action_id, action_topics::topic_key))
                .load(conn)?;
            Ok((rows, taught))
        })?;
        let mut topics: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (action, key) in taught {
            topics.entry(action).or_default().push(key);
        }
        rows.into_iter()
            .map(
                |(action, entity_type, action_type, date, alias, received)| {
                    Ok(StoredAction {
                        id: Uuid::parse_str(&action).map_err(|_| {
                            StoreError::backend_message(format!("stored action id {action}"))
                        })?,
                        topics: topics.remove(&action).unwrap_or_default(),
                        entity_type,
                        action_type,
                        action_date: from_db_time(date),
                        alias,
                        received: from_db_time(received),
                    })
                },
            )
            .collect()
    }

    fn record_export(&self, user: UserId, by: &Attribution) -> Result<(), StoreError> {
        self.write(|conn| {
            crate::audit::record(conn, by, &[user_exported(user.as_uuid())]).map_err(TxError::from)
        })
        .map_err(StoreError::from)
    }

    fn count_asked(
        &self,
        day: NaiveDate,
        subject: &AskedSubject,
        asks: u64,
    ) -> Result<(), StoreError> {
        let asks = i64::try_from(asks).unwrap_or(i64::MAX);
        self.write(|conn| {
            execute_natively(
                conn,
                diesel::insert_into(asked_subjects::table)
                    .values((
                        asked_subjects::day.eq(day),
                        asked_subjects::subject_key.eq(&subject.key),
                        asked_subjects::label.eq(&subject.label),
                        asked_subjects::holders.eq(i32::from(subject.holders)),
                        asked_subjects::asks.eq(asks),
                    ))
                    .on_conflict((
                        asked_subjects::day,
                        asked_subjects::subject_key,
                        asked_subjects::holders,
                    ))
                    .do_update()
                    .set((
                        asked_subjects::asks
                            .eq(asked_subjects::asks + excluded(asked_subjects::asks)),
                        asked_subjects::label.eq(excluded(asked_subjects::label)),
                    )),
            )
            .map_err(TxError::from)
        })
        .map_err(StoreError::from)?;
        Ok(())
    }

    fn asked_since(&self, since: NaiveDate, max: u32) -> Result<Vec<AskedCount>, StoreError> {
        // Summed here, not by the database: a day's rows are few (one per
        // subject asked), and SQL's SUM of a BIGINT is a NUMERIC on
        // PostgreSQL.
        type Row = (NaiveDate, String, i32, String, i64);
        let rows: Vec<Row> = self.read(|conn| {
            asked_subjects::table
                .filter(asked_subjects::day.ge(since))
                .order(asked_subjects::day)
                .select((
                    asked_subjects::day,
                    asked_subjects::subject_key,
                    asked_subjects::holders,
                    asked_subjects::label,
                    asked_subjects::asks,
                ))
                .load(conn)
        })?;
        let mut by_subject: BTreeMap<(String, i32), AskedCount> = BTreeMap::new();
        for (day, key, holders, label, asks) in rows {
            let Ok(held) = u8::try_from(holders) else {
                continue;
            };
            let count = by_subject
                .entry((key.clone(), holders))
                .or_insert_with(|| AskedCount {
                    subject: AskedSubject {
                        key,
                        label: label.clone(),
                        holders: held,
                    },
                    asks: 0,
                    last: day,
                });
            count.asks += u64::try_from(asks).unwrap_or_default();
            // Rows come oldest first: the newest day's label stays.
            count.last = day;
            count.subject.label = label;
        }
        let mut counts: Vec<AskedCount> = by_subject.into_values().collect();
        counts.sort_by(|a, b| b.asks.cmp(&a.asks).then(a.subject.key.cmp(&b.subject.key)));
        counts.truncate(max as usize);
        Ok(counts)
    }

    fn prune_asked(&self, before: NaiveDate) -> Result<u64, StoreError> {
        let deleted = self.write(|conn| {
            diesel::delete(asked_subjects::table.filter(asked_subjects::day.lt(before)))
                .execute(conn)
                .map_err(TxError::from)
        })?;
        Ok(deleted as u64)
    }
}
