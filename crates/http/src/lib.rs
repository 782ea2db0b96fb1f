//! Kenning's HTTP adapter (actix-web): the GraphQL endpoint with its guards,
//! the connector upload endpoint, the SCIM 2.0 provisioning endpoint,
//! GraphiQL, health and readiness probes, and request metrics.
//!
//! Every blocking call (storage, credential checks, GraphQL execution) runs
//! on actix's blocking pool through `web::block`, never on the
//! current-thread async workers.

mod assets;
mod body;
mod client;
mod config;
mod connector;
mod credential;
mod graphiql;
mod graphql;
mod head;
mod health;
mod listener;
mod metrics;
mod openapi;
mod problem;
mod scim;
mod server;
mod throttle;
mod wire;

use std::sync::Arc;

use actix_web::web;
use kenning_app::{CredentialService, ExpertiseService, GroupService, UserService};
use kenning_graphql::Schema;

pub use client::TrustedProxies;
pub use config::{AllowedOrigin, HttpConfig, MetricsEndpoint};
pub use metrics::Metrics;
pub use problem::{request_codes, RequestCode};
pub use scim::SCIM_PATH;
pub use server::server;

/// The path of the GraphQL endpoint.
pub const GRAPHQL_PATH: &str = "/accounts/api/v1/graphql";

/// The path of the connector upload endpoint.
pub const CONNECTOR_PATH: &str = "/connectors/api/v1/entities-with-action";

/// The path of the connector's batch upload endpoint.
pub const CONNECTOR_BATCH_PATH: &str = "/connectors/api/v1/entities-with-action/batch";

/// The path of the Prometheus metrics.
pub const METRICS_PATH: &str = "/metrics";

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pub users: UserService,
    pub credentials: CredentialService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub schema: Arc<Schema>,
    pub metrics: Arc<Metrics>,
    throttle: Arc<throttle::Throttle>,
    pub config: HttpConfig,
}

impl AppState {
    /// The state of a fresh process: its metrics and rate limits start
    /// from zero.
    pub fn new(
        users: UserService,
        credentials: CredentialService,
        groups: GroupService,
        expertise: ExpertiseService,
        schema: Schema,
        config: HttpConfig,
    ) -> Self {
        Self {
            users,
            credentials,
            groups,
            expertise,
            schema: Arc::new(schema),
            metrics: Arc::new(Metrics::default()),
            throttle: Arc::new(throttle::Throttle::new(
                config.auth_failures_per_minute,
                config.requests_per_minute,
            )),
            config,
        }
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Registers every route of the service; `/metrics` only when the
/// configuration exposes it.
fn configure(cfg: &mut web::ServiceConfig, state: AppState) {
    let metrics = state.config.metrics != MetricsEndpoint::Off;
    cfg.app_data(web::Data::new(state))
        .service(
            web::resource(GRAPHQL_PATH)
                .route(web::post().to(graphql::execute))
                .route(web::get().to(graphiql::page))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .service(
            web::resource(CONNECTOR_PATH)
                .route(web::post().to(connector::upload))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .service(
            web::resource(CONNECTOR_BATCH_PATH)
                .route(web::post().to(connector::upload_batch))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .route(
            openapi::DOCUMENT_PATH,
            web::get().to(openapi::serve_document),
        )
        .route(openapi::PAGE_PATH, web::get().to(openapi::page))
        .route(openapi::ASSETS_PATH, web::get().to(openapi::asset))
        .configure(scim::configure)
        .route(graphiql::ASSETS_PATH, web::get().to(graphiql::asset))
        .route("/healthz", web::get().to(health::alive))
        .route("/readyz", web::get().to(health::ready));
    if metrics {
        cfg.route(METRICS_PATH, web::get().to(metrics::render));
    }
    cfg.default_service(web::to(problem::not_found));
}
