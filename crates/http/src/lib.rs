//! Kenning's HTTP adapter (actix-web): the GraphQL endpoint with its guards,
//! the connector upload endpoint, GraphiQL, health and readiness probes, and request metrics.
//!
//! Every blocking call (storage, credential checks, GraphQL execution) runs
//! on actix's blocking pool through `web::block`, never on the
//! current-thread async workers.

mod body;
mod connector;
mod credential;
mod graphql;
mod health;
mod metrics;
mod problem;

use std::sync::Arc;

use actix_web::web;
use kenning_graphql::Schema;
use kenning_ports::{CredentialService, ExpertiseService, UserService};

pub use metrics::Metrics;

/// The path of the GraphQL endpoint.
pub const GRAPHQL_PATH: &str = "/accounts/api/v1/graphql";

/// The path of the connector upload endpoint.
pub const CONNECTOR_PATH: &str = "/connectors/api/v1/entities-with-action";

/// Limits of the HTTP layer.
#[derive(Debug, Clone, Copy)]
pub struct HttpConfig {
    /// The largest request body accepted, in bytes; larger ones get 413.
    pub body_limit: usize,
    /// The most operations one batched GraphQL request may hold.
    pub max_batch: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            body_limit: 1024 * 1024,
            max_batch: 10,
        }
    }
}

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pub users: UserService,
    pub credentials: CredentialService,
    pub expertise: ExpertiseService,
    pub schema: Arc<Schema>,
    pub metrics: Arc<Metrics>,
    pub config: HttpConfig,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Registers every route of the service.
pub fn configure(cfg: &mut web::ServiceConfig, state: AppState) {
    cfg.app_data(web::Data::new(state))
        .service(
            web::resource(GRAPHQL_PATH)
                .route(web::post().to(graphql::execute))
                .route(web::get().to(graphql::graphiql))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .service(
            web::resource(CONNECTOR_PATH)
                .route(web::post().to(connector::upload))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .route("/healthz", web::get().to(health::alive))
        .route("/readyz", web::get().to(health::ready))
        .route("/metrics", web::get().to(metrics::render))
        .default_service(web::to(problem::not_found));
}

/// The middleware that counts requests; wrap the `App` with it.
pub use metrics::record as metrics_middleware;
