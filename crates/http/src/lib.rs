//! Kenning's HTTP adapter (actix-web): the GraphQL endpoint with its guards,
//! the connector endpoints (uploads, people, runs), the SCIM 2.0 provisioning endpoint,
//! GraphiQL, health and readiness probes, and request metrics.
//!
//! Every blocking call (storage, credential checks, GraphQL execution) runs
//! on actix's blocking pool through `web::block`, never on the
//! current-thread async workers.

mod assets;
mod body;
mod client;
mod codes;
mod config;
mod connector;
mod credential;
mod exposition;
mod graphiql;
mod graphql;
mod head;
mod health;
mod listener;
mod metrics;
mod openapi;
mod pages;
mod problem;
mod routes;
mod scim;
mod server;
mod sources;
mod state;
mod throttle;
mod wire;

pub use client::TrustedProxies;
pub use codes::{request_codes, RequestCode};
pub use config::{AllowedOrigin, HttpConfig, MetricsEndpoint};
pub use kenning_app::{Gate, UseCases};
pub use metrics::Metrics;
pub use routes::{
    CONNECTOR_BATCH_PATH, CONNECTOR_PATH, GRAPHQL_PATH, METRICS_PATH, PEOPLE_PATH, RUNS_PATH,
};
pub use scim::SCIM_PATH;
pub use server::server;
pub use state::AppState;
