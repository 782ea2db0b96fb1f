//! The HTTP API, end to end: a real server on port 0 with a fresh database
//! per test, on SQLite and (when configured) PostgreSQL.
//!
//! Each test is a `fn name(backend: Backend)` marked `#[on_every_backend]`,
//! which defines `name::sqlite` and `name::postgres`. A function no test
//! calls is dead code, denied here, so a test cannot be written and never
//! run.

#![deny(dead_code)]

mod admin;
mod audit;
mod batch;
mod bodies;
mod codes;
mod compounds;
mod connect;
mod connector;
mod cost;
mod declared;
mod erasure;
mod expertise;
mod graphiql;
mod groups;
mod guards;
mod headers;
mod hidden;
mod instances;
mod metrics;
mod oidc;
mod openapi;
mod paging;
mod privacy;
mod published;
mod scim;
mod throttle;
mod users;
mod web;
mod web_bounds;
mod web_post_only;
mod webhooks;
