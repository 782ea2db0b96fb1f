//! Whom the organisation's rules let Kenning learn about, kept in the
//! users' `learns` column: written again whenever a rule, a person's choice
//! or a group's members change, in the transaction that changed them, and
//! read by every upload (and, through the learner's `ranked` mark its
//! triggers keep, by every ranking).
//!
//! [`LEARNS`] is `LearningRules::learns` written in SQL. The in-memory
//! store asks the domain instead, and the contract suite holds the two to
//! the same answers. An upload of someone not learned about is stored with
//! `taught` false and teaches nothing.

use diesel::prelude::*;
use kenning_domain::{Actor, Channel, LearningRule, LearningRules, RuleInForce};

use crate::connection::DbConnection;
use crate::sql::Binder;

/// Ids written into one statement: far below the bound-parameter limits.
const IDS_PER_STATEMENT: usize = 1_000;

/// Whether the user row `users` is learned about under the stored rules:
/// [`LearningRules::learns`] in SQL.
const LEARNS: &str = "(NOT EXISTS (SELECT 1 FROM learning_rules r WHERE r.kind = 'learning_off') \
     AND COALESCE(users.learning_choice, \
         NOT EXISTS (SELECT 1 FROM learning_rules r WHERE r.kind = 'new_people_opted_out')) \
     AND NOT EXISTS (SELECT 1 FROM user_group_members m JOIN learning_rules r \
         ON r.kind = 'group_off' AND r.value = m.group_id WHERE m.user_id = users.id))";

/// Writes again whether each user (of `ids` alone when given) is learned
/// about; how many changed.
pub(crate) fn refresh(conn: &mut DbConnection, ids: Option<&[String]>) -> QueryResult<usize> {
    let Some(ids) = ids else {
        let sql = format!("UPDATE users SET learns = {LEARNS} WHERE learns <> {LEARNS}");
        return diesel::sql_query(sql).execute(conn);
    };
    let mut changed = 0;
    for chunk in ids.chunks(IDS_PER_STATEMENT) {
        let mut sql = Binder::new(conn.backend());
        let list: Vec<String> = chunk.iter().map(|id| sql.text(id.as_str())).collect();
        changed += sql
            .statement(format!(
                "UPDATE users SET learns = {LEARNS} WHERE id IN ({}) AND learns <> {LEARNS}",
                list.join(", ")
            ))
            .execute(conn)?;
    }
    Ok(changed)
}

/// The stored kind of [`LearningRule::GroupOff`].
const GROUP_OFF: &str = "group_off";

/// Whether a rule turns learning off for the group `group`: only then do
/// its members' changes need [`refresh`].
pub(crate) fn group_is_off(conn: &mut DbConnection, group: &str) -> QueryResult<bool> {
    use crate::schema::learning_rules as rules;
    let found: i64 = rules::table
        .filter(rules::kind.eq(GROUP_OFF))
        .filter(rules::value.eq(group))
        .count()
        .get_result(conn)?;
    Ok(found > 0)
}

/// A stored rule's row.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = crate::schema::learning_rules)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
pub(crate) struct RuleRow {
    pub(crate) kind: String,
    pub(crate) value: String,
    pub(crate) set_at: chrono::NaiveDateTime,
    pub(crate) credential_id: Option<String>,
    pub(crate) actor_name: String,
    pub(crate) channel: String,
}

/// The rules in force, read in the caller's transaction; a row no
/// version of Kenning wrote is skipped.
pub(crate) fn rules(conn: &mut DbConnection) -> QueryResult<LearningRules> {
    use crate::schema::learning_rules as rules;
    let rows: Vec<RuleRow> = rules::table.select(RuleRow::as_select()).load(conn)?;
    Ok(LearningRules::new(
        rows.into_iter()
            .filter_map(|row| {
                let rule = LearningRule::from_parts(&row.kind, &row.value)?;
                let channel = Channel::ALL
                    .into_iter()
                    .find(|c| c.as_str() == row.channel)?;
                Some(RuleInForce {
                    rule,
                    set_by: Actor {
                        credential_id: row
                            .credential_id
                            .as_deref()
                            .and_then(|id| uuid::Uuid::parse_str(id).ok()),
                        name: row.actor_name,
                        channel,
                    },
                    set_at: crate::rows::from_db_time(row.set_at),
                })
            })
            .collect(),
    ))
}
