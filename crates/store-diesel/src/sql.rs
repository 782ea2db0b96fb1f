//! Raw SQL as the store runs it: a statement with the values it binds,
//! runnable on either backend.

use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Text, Timestamp};
use diesel::sqlite::Sqlite;
use diesel::{QueryableByName, RunQueryDsl};

use crate::connection::DbConnection;

/// A value bound to a raw statement.
#[derive(Debug, Clone)]
pub(crate) enum Bind {
    Text(String),
    Int(i64),
    Float(f64),
    Moment(chrono::NaiveDateTime),
    Bool(bool),
}

/// A raw statement with its values, runnable on either backend.
#[derive(Debug, Clone)]
pub(crate) struct Statement {
    pub(crate) sql: String,
    pub(crate) binds: Vec<Bind>,
}

impl Statement {
    pub(crate) fn new(sql: &str, binds: Vec<Bind>) -> Self {
        Self {
            sql: sql.to_owned(),
            binds,
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
