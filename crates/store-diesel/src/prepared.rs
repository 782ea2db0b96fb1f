//! Statements that PostgreSQL keeps prepared, with one plan made without
//! their values.
//!
//! A [`Statement`] runs unnamed: PostgreSQL parses and plans it on every
//! run, with its values, which a search needs (its best plan depends on
//! the text). The reads of `experts` do not: each key's rows are one walk
//! of an index whatever the key, and planning their `LATERAL` statements
//! took a fifth of the query (docs/performance.md, "Measured choices in
//! the code"). [`Prepared`] runs a statement through
//! diesel's cache of prepared statements (by its SQL, once per
//! connection), and [`generic_plans`] runs reads in a read transaction
//! (one snapshot, on either backend) in which PostgreSQL plans a prepared
//! statement once without its values and reuses that plan (the pool's
//! connections otherwise plan every run with its values: see
//! `connection.rs`).

use diesel::connection::SimpleConnection;
use diesel::pg::{Pg, PgConnection};
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Bool, Double, Text, Timestamp, Untyped};
use diesel::{Connection, QueryResult, QueryableByName};

use crate::connection::{read_transaction, DbConnection};
use crate::sql::{Bind, Statement};

/// A [`Statement`] on PostgreSQL, split at its placeholders so that diesel
/// writes them back itself and may keep the statement prepared.
#[derive(Debug)]
pub(crate) struct Prepared<'a> {
    /// The SQL between the placeholders: one more piece than binds.
    pieces: Vec<&'a str>,
    binds: &'a [Bind],
}

impl<'a> Prepared<'a> {
    /// `statement` as a prepared one: its placeholders must be `$1`, `$2`, ...
    /// once each, in that order, as diesel numbers them.
    pub(crate) fn new(statement: &'a Statement) -> QueryResult<Self> {
        let pieces =
            split_at_placeholders(statement.sql(), statement.binds().len()).ok_or_else(|| {
                DieselError::QueryBuilderError(
                    format!(
                        "a prepared statement needs its {} placeholders in order, once each: {}",
                        statement.binds().len(),
                        statement.sql()
                    )
                    .into(),
                )
            })?;
        Ok(Self {
            pieces,
            binds: statement.binds(),
        })
    }

    /// Runs the statement and reads its rows by column name.
    pub(crate) fn load<T>(self, conn: &mut PgConnection) -> QueryResult<Vec<T>>
    where
        T: QueryableByName<Pg> + 'static,
    {
        RunQueryDsl::load(self, conn)
    }
}

/// `sql` cut at `$1` ... `$count`, which must each stand once and in
/// order; `None` when they do not.
fn split_at_placeholders(sql: &str, count: usize) -> Option<Vec<&str>> {
    let mut pieces = Vec::with_capacity(count + 1);
    let mut rest = sql;
    for n in 1..=count {
        let placeholder = format!("${n}");
        let at = rest.find(&placeholder)?;
        let after = &rest[at + placeholder.len()..];
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        pieces.push(&rest[..at]);
        rest = after;
    }
    if rest.contains('$') {
        return None;
    }
    pieces.push(rest);
    Some(pieces)
}

impl QueryFragment<Pg> for Prepared<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        for (n, piece) in self.pieces.iter().enumerate() {
            out.push_sql(piece);
            if let Some(bind) = self.binds.get(n) {
                match bind {
                    Bind::Text(value) => out.push_bind_param::<Text, _>(value)?,
                    Bind::Int(value) => out.push_bind_param::<BigInt, _>(value)?,
                    Bind::Float(value) => out.push_bind_param::<Double, _>(value)?,
                    Bind::Moment(value) => out.push_bind_param::<Timestamp, _>(value)?,
                    Bind::Bool(value) => out.push_bind_param::<Bool, _>(value)?,
                }
            }
        }
        Ok(())
    }
}

impl QueryId for Prepared<'_> {
    type QueryId = ();
    // No type names the statement: diesel keeps it by its SQL.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Prepared<'_> {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for Prepared<'_> where Conn: Connection<Backend = Pg> {}

/// Runs `reads` on `conn` in a read transaction ([`read_transaction`]:
/// they see one state of the database), in which on PostgreSQL each
/// [`Prepared`] statement is planned once, without its values, and that plan
/// reused (`plan_cache_mode` for the transaction alone).
pub(crate) fn generic_plans<T>(
    conn: &mut DbConnection,
    reads: impl FnOnce(&mut DbConnection) -> QueryResult<T>,
) -> QueryResult<T> {
    read_transaction(conn, |conn| {
        if let DbConnection::Postgres(_) = conn {
            conn.batch_execute("SET LOCAL plan_cache_mode = force_generic_plan")?;
        }
        reads(conn)
    })
}

#[cfg(test)]
mod tests {
    use super::split_at_placeholders;

    #[test]
    fn a_statement_is_cut_at_each_placeholder_in_order() {
        assert_eq!(
            split_at_placeholders("SELECT $1 WHERE a = $2", 2),
            Some(vec!["SELECT ", " WHERE a = ", ""])
        );
        assert_eq!(split_at_placeholders("SELECT 1", 0), Some(vec!["SELECT 1"]));
    }

    #[test]
    fn placeholders_out_of_order_twice_or_beyond_the_binds_are_refused() {
        assert_eq!(split_at_placeholders("SELECT $2, $1", 2), None);
        assert_eq!(split_at_placeholders("SELECT $1, $1", 1), None);
        assert_eq!(split_at_placeholders("SELECT $1, $2", 1), None);
        assert_eq!(split_at_placeholders("SELECT $12", 1), None);
        assert_eq!(split_at_placeholders("SELECT 1", 1), None);
    }
}
