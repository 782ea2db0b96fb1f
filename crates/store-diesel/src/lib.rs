//! Kenning's storage on a relational database through diesel: an embedded
//! SQLite file for a team, PostgreSQL when several stateless instances share
//! one database. The backend is chosen from the URL scheme.
//!
//! Both backends run the same query code on one connection type
//! (`DbConnection`, diesel's derived `MultiConnection`); what differs
//! is the connection setup, the write transaction (SQLite takes the write
//! lock up front with `BEGIN IMMEDIATE`, so its busy timeout applies), the
//! raw SQL and the migration set. What only one backend has is reached by
//! matching on the connection's variant: the write transaction, the raw SQL
//! of a few statements, the pragmas, the migrations and the compaction
//! after an erasure.
//!
//! [`Database`] implements every storage port, one module each: `users`,
//! `groups`, `credentials`, `sessions`, `audit`, `expertise`, `privacy`,
//! `webhooks` and `runs`. Their queries run in one of three ways (see `database`): a
//! plain read, a read transaction for statements whose answers must agree,
//! or a write transaction, which also holds the audit entries a write
//! records.
//!
//! This root only declares the modules and names the public items; no
//! module imports one that imports it back. The plumbing the stores share
//! has modules of its own, which import none of the stores: where a URL
//! points (`location`), connections and transactions (`connection`), the
//! pools (`pooling`, `database`), raw statements and their placeholders
//! (`sql`), the user row and stored moments (`rows`), trigrams
//! (`trigrams`) and failures as the ports see them (`errors`).

mod audit;
mod checkpoints;
mod connection;
mod credentials;
mod database;
mod errors;
mod expertise;
mod filter;
mod forgetting;
mod groups;
mod learning;
mod location;
mod migrations;
mod outbox;
mod plans;
mod pooling;
mod prepared;
mod privacy;
mod rows;
mod runs;
mod schema;
mod search;
mod sessions;
mod sql;
mod trigram_counts;
mod trigrams;
mod users;
mod webhooks;

pub use database::Database;
pub use location::{Location, OpenError};
pub use plans::QueryPlan;
pub use pooling::Pooling;
