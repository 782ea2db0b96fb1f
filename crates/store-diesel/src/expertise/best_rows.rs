//! The best rows on a topic, read by walking the topic's range of an
//! index from the top: its best standings, or the actions in which it is
//! most relevant, each row's learner looked up as it is read.

use diesel::prelude::*;
use kenning_domain::GroupId;

use crate::connection::DbConnection;
use crate::location::Backend;
use crate::prepared::Prepared;
use crate::sql::{Binder, Statement};

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
    /// The best standings: [`RankedRow`](super::rows::RankedRow).
    Standings,
    /// The actions in which a topic is most relevant:
    /// [`ActionTopicRow`](super::rows::ActionTopicRow).
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
    /// of the group bound there), best first: it walks the topic's range of
    /// the index from the top and stops after `LIMIT` rows of ranked
    /// learners, whatever the number of people or actions on the topic.
    /// Each row's person is one look-up of `learners_ranked`: whether she
    /// is ranked (ACTIVE and not hidden, a mark the database's triggers
    /// keep from her user row); PostgreSQL's reads a 1 there, none when
    /// she is not ranked, and keeps the rows that have one.
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
                "SELECT {columns} \
                 FROM {table} {alias} CROSS JOIN learners l INDEXED BY learners_ranked \
                 ON l.user_id = {alias}.user_id \
                 WHERE {alias}.topic_key = {key} AND l.ranked{members} \
                 ORDER BY {alias}.{first} DESC, {alias}.{second} DESC LIMIT {limit}"
            ),
            Backend::Postgres => format!(
                "SELECT r.* FROM (SELECT {columns}, \
                 (SELECT 1 FROM learners l \
                 WHERE l.user_id = {alias}.user_id AND l.ranked) AS ranked \
                 FROM {table} {alias} WHERE {alias}.topic_key = {key}{members} \
                 ORDER BY {alias}.{first} DESC, {alias}.{second} DESC OFFSET 0) r \
                 WHERE r.ranked IS NOT NULL \
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
    /// (PostgreSQL's, see [`crate::prepared`]) then still knows it.
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
    pub(super) fn read<T>(
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
                DbConnection::Postgres(pg) => Prepared::new(&statement)?.load::<T>(pg)?,
            });
        }
        Ok(found)
    }
}

/// `texts` as a PostgreSQL array literal (`{"a","b c"}`), for a `text[]`
/// parameter: each element quoted, its quotes and backslashes escaped, so
/// that any text (a comma, a brace, the word NULL) stays itself.
pub(super) fn text_array(texts: &[String]) -> String {
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
