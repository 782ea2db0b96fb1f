//! The rows of the expertise tables as the store reads and writes them,
//! what they are in the domain's words, and how many go in one statement.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use kenning_domain::{
    ActionTopic, EntityTopic, LabelledStanding, Scoring, Standing, StoredStanding, TopicLabel,
    UserId,
};
use kenning_ports::StoreError;
use uuid::Uuid;

use crate::rows::{from_db_time, to_db_time};
use crate::schema::{action_topics, actions, standings};

/// Rows written by one INSERT: far below the bound-parameter limits of
/// SQLite (32,766) and PostgreSQL (65,535) at the most columns a row of
/// these inserts has (nine, an action topic's: 4,500 values).
pub(super) const ROWS_PER_INSERT: usize = 500;

/// Keys looked up by one statement: far below the bound-parameter limits.
pub(super) const KEYS_PER_READ: usize = 1_000;

/// `rows` as the domain's action topics, each topic's relevance under
/// `scoring`.
pub(super) fn action_topics_of(
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

pub(super) fn parse_user(id: &str) -> Result<UserId, StoreError> {
    Uuid::parse_str(id)
        .map(UserId::from_uuid)
        .map_err(|_| StoreError::backend_message(format!("stored user id {id} is invalid")))
}

#[derive(Debug, Insertable)]
#[diesel(table_name = actions)]
pub(super) struct ActionRow<'a> {
    pub(super) id: String,
    pub(super) user_id: &'a str,
    pub(super) entity_type: &'a str,
    pub(super) action_type: &'a str,
    pub(super) action_date: NaiveDateTime,
    pub(super) alias: Option<&'a str>,
    pub(super) received: NaiveDateTime,
    pub(super) taught: bool,
}

#[derive(Debug, Insertable, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = action_topics)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
pub(super) struct ActionTopicRow {
    pub(super) action_id: String,
    pub(super) user_id: String,
    pub(super) topic_key: String,
    pub(super) label: String,
    pub(super) primary_relevance: f64,
    pub(super) default_relevance: f64,
    pub(super) secondary_relevance: f64,
    /// The relevance under the settings the store was built with, which
    /// the index of the best actions on a topic is ordered by.
    pub(super) relevance: f64,
    /// Whether people read the topic ([`EntityTopic::shown`]).
    pub(super) shown: bool,
}

impl ActionTopicRow {
    pub(super) fn entity_topic(&self) -> EntityTopic {
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
pub(super) struct StandingRow {
    pub(super) user_id: String,
    pub(super) topic_key: String,
    pub(super) label: String,
    pub(super) score: f64,
    pub(super) as_of: NaiveDateTime,
    pub(super) rank_key: f64,
    /// Whether people read the topic: shown by any of the user's uploads.
    pub(super) shown: bool,
    /// The lead of `label` in its uploads' vote ([`TopicLabel`]).
    pub(super) label_votes: f64,
}

impl StandingRow {
    pub(super) fn new(
        user_id: String,
        topic_key: String,
        labelled: LabelledStanding,
        scoring: &Scoring,
    ) -> Self {
        let LabelledStanding {
            label:
                TopicLabel {
                    label,
                    votes: label_votes,
                    shown,
                },
            standing,
        } = labelled;
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

    /// The labelled the row stores.
    pub(super) fn labelled(&self) -> LabelledStanding {
        LabelledStanding {
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

    pub(super) fn into_standing(self) -> Result<StoredStanding, StoreError> {
        let user = parse_user(&self.user_id)?;
        Ok(StoredStanding {
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
