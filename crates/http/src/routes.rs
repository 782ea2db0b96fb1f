//! The routes of the service: every path and what answers it.

use actix_web::web;

use crate::config::MetricsEndpoint;
use crate::state::AppState;
use crate::{connector, exposition, graphiql, graphql, health, openapi, problem, scim, sources};

/// The path of the GraphQL endpoint.
pub const GRAPHQL_PATH: &str = "/accounts/api/v1/graphql";

/// The path of the connector upload endpoint.
pub const CONNECTOR_PATH: &str = "/connectors/api/v1/entities-with-action";

/// The path of the connector's batch upload endpoint.
pub const CONNECTOR_BATCH_PATH: &str = "/connectors/api/v1/entities-with-action/batch";

/// The path where a connector asks which users its source's identities
/// are.
pub const PEOPLE_PATH: &str = "/connectors/api/v1/people";

/// The path where a connector reports a run.
pub const RUNS_PATH: &str = "/connectors/api/v1/runs";

/// The path of the Prometheus metrics.
pub const METRICS_PATH: &str = "/metrics";

/// Registers every route of the service; `/metrics` only when the
/// configuration exposes it.
pub fn configure(cfg: &mut web::ServiceConfig, state: AppState) {
    let metrics = state.config.metrics != MetricsEndpoint::Off;
    let people = state.web.clone();
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
        .service(
            web::resource(PEOPLE_PATH)
                .route(web::post().to(sources::people))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .service(
            web::resource(RUNS_PATH)
                .route(web::post().to(sources::report_run))
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
        .route("/readyz", web::get().to(health::ready))
        .configure(|cfg| kenning_web::configure(cfg, people));
    if metrics {
        cfg.route(METRICS_PATH, web::get().to(exposition::render));
    }
    cfg.default_service(web::to(problem::no_route));
}
