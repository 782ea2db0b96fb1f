//! The HTTP API, end to end: a real server on port 0 with a fresh database
//! per test, on SQLite and (when configured) PostgreSQL.

mod bodies;
mod codes;
mod connector;
mod cost;
mod erasure;
mod expertise;
mod graphiql;
mod guards;
mod headers;
mod metrics;
mod published;
mod throttle;
mod users;
