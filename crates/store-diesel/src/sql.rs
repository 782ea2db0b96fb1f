//! Raw SQL as the store runs it: a statement with the values it binds,
//! runnable on either backend, and the one way its placeholders are
//! written ([`Binder`]).

use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Text, Timestamp};
use diesel::sqlite::Sqlite;
use diesel::{QueryableByName, RunQueryDsl};

use crate::connection::DbConnection;
use crate::location::Backend;

/// A value bound to a raw statement.
#[derive(Debug, Clone)]
pub(crate) enum Bind {
    Text(String),
    Int(i64),
    Float(f64),
    Moment(chrono::NaiveDateTime),
    Bool(bool),
}

/// A raw statement with its values, runnable on either backend. One that
/// binds values is written with a [`Binder`].
#[derive(Debug, Clone)]
pub(crate) struct Statement {
    sql: String,
    binds: Vec<Bind>,
}

impl Statement {
    /// A statement that binds no value.
    pub(crate) fn plain(sql: impl Into<String>) -> Self {
        Self {
            sql: sql.into(),
            binds: Vec::new(),
        }
    }

    pub(crate) fn sql(&self) -> &str {
        &self.sql
    }

    /// The values, in the order of their placeholders' numbers.
    pub(crate) fn binds(&self) -> &[Bind] {
        &self.binds
    }

    /// The statement behind `prefix` (`EXPLAIN`), with the same values.
    pub(crate) fn prefixed(&self, prefix: &str) -> Self {
        Self {
            sql: format!("{prefix} {}", self.sql),
            binds: self.binds.clone(),
        }
    }

    /// Runs the statement and reads its rows by column name.
    pub(crate) fn load<T>(&self, conn: &mut DbConnection) -> diesel::QueryResult<Vec<T>>
    where
        T: QueryableByName<Sqlite> + QueryableByName<Pg> + 'static,
    {
        match conn {
            DbConnection::Sqlite(conn) => bound::<Sqlite>(self).load(conn),
            DbConnection::Postgres(conn) => bound::<Pg>(self).load(conn),
        }
    }

    /// Runs the statement; returns the number of rows it changed.
    pub(crate) fn execute(&self, conn: &mut DbConnection) -> diesel::QueryResult<usize> {
        match conn {
            DbConnection::Sqlite(conn) => bound::<Sqlite>(self).execute(conn),
            DbConnection::Postgres(conn) => bound::<Pg>(self).execute(conn),
        }
    }
}

/// `statement` with its values bound, for backend `DB`.
fn bound<DB>(statement: &Statement) -> BoxedSqlQuery<'_, DB, SqlQuery>
where
    DB: diesel::backend::Backend + diesel::sql_types::HasSqlType<Text>,
    DB: diesel::sql_types::HasSqlType<BigInt>,
    DB: diesel::sql_types::HasSqlType<Timestamp>,
    DB: diesel::sql_types::HasSqlType<diesel::sql_types::Double>,
    DB: diesel::sql_types::HasSqlType<diesel::sql_types::Bool>,
    String: ToSql<Text, DB>,
    bool: ToSql<diesel::sql_types::Bool, DB>,
    i64: ToSql<BigInt, DB>,
    f64: ToSql<diesel::sql_types::Double, DB>,
    chrono::NaiveDateTime: ToSql<Timestamp, DB>,
{
    let mut query = diesel::sql_query(statement.sql.as_str()).into_boxed::<DB>();
    for bind in &statement.binds {
        query = match bind {
            Bind::Text(value) => query.bind::<Text, _>(value.clone()),
            Bind::Int(value) => query.bind::<BigInt, _>(*value),
            Bind::Float(value) => query.bind::<diesel::sql_types::Double, _>(*value),
            Bind::Moment(value) => query.bind::<Timestamp, _>(*value),
            Bind::Bool(value) => query.bind::<diesel::sql_types::Bool, _>(*value),
        };
    }
    query
}

/// Writes a statement's placeholders as its values are bound: the `n`th
/// value bound is `?n` on SQLite and `$n` on PostgreSQL, which the SQL may
/// name as often as it needs. Every raw statement that binds a value is
/// written through one, so the placeholders of both backends are written
/// in one place.
#[derive(Debug)]
pub(crate) struct Binder {
    backend: Backend,
    binds: Vec<Bind>,
}

impl Binder {
    /// A binder for a statement on `backend`, with no value yet.
    pub(crate) fn new(backend: Backend) -> Self {
        Self {
            backend,
            binds: Vec::new(),
        }
    }

    /// The backend the statement is written for.
    pub(crate) fn backend(&self) -> Backend {
        self.backend
    }

    /// Binds `value` after those bound before; returns its placeholder.
    pub(crate) fn bind(&mut self, value: Bind) -> String {
        self.binds.push(value);
        let n = self.binds.len();
        match self.backend {
            Backend::Sqlite => format!("?{n}"),
            Backend::Postgres => format!("${n}"),
        }
    }

    /// Binds a text; returns its placeholder.
    pub(crate) fn text(&mut self, value: impl Into<String>) -> String {
        self.bind(Bind::Text(value.into()))
    }

    /// Binds an integer; returns its placeholder.
    pub(crate) fn int(&mut self, value: i64) -> String {
        self.bind(Bind::Int(value))
    }

    /// The statement `sql`, written with the placeholders handed out, and
    /// the values bound.
    pub(crate) fn statement(self, sql: String) -> Statement {
        Statement {
            sql,
            binds: self.binds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Bind, Binder};
    use crate::location::Backend;

    #[test]
    fn placeholders_are_numbered_in_the_order_values_are_bound() {
        for (backend, mark) in [(Backend::Sqlite, "?"), (Backend::Postgres, "$")] {
            let mut sql = Binder::new(backend);
            let name = sql.text("ada");
            let rows = sql.int(20);
            let statement = sql.statement(format!("SELECT {name}, {name} LIMIT {rows}"));
            assert_eq!(
                statement.sql(),
                format!("SELECT {mark}1, {mark}1 LIMIT {mark}2")
            );
            assert!(matches!(
                statement.binds(),
                [Bind::Text(name), Bind::Int(20)] if name == "ada"
            ));
        }
    }
}
