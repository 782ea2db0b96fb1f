//! Kenning's GraphQL schema (juniper): the user-management API of the
//! specification, the expertise reads (`experts`, `userTopics`), its scalars, and the mapping of service errors onto
//! GraphQL errors with stable `extensions.code` values.
//!
//! The schema knows nothing of HTTP: the HTTP adapter authenticates the
//! caller, builds a [`Context`] and executes requests against [`Schema`].
//! Resolvers are synchronous and call blocking use cases, so the schema is
//! executed off the async workers.

mod audit;
mod connection;
mod context;
mod cost;
#[cfg(test)]
mod descriptions;
mod error;
mod execution;
mod expertise;
mod inputs;
mod privacy;
mod schema;
mod user;
mod webhook;

pub use context::Context;
pub use error::ApiError;
pub use execution::{
    Answer, Outcome, RequestError, BAD_REQUEST, QUERY_TOO_COMPLEX, VALIDATION_ERROR,
};
pub use schema::{schema, Limits, Mutation, Query, Schema};
