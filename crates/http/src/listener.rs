//! Keeping the metrics listener and the API listener apart.

use std::net::SocketAddr;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;

use crate::problem;
use crate::routes::METRICS_PATH;

/// The local address of the separate metrics listener, when there is one.
#[derive(Debug, Clone, Copy)]
pub struct MetricsListener(pub SocketAddr);

/// Middleware: with a separate metrics listener, that listener answers
/// only `/metrics` and the API's listener answers everything else, so
/// exposing one never exposes the other.
pub async fn separate(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if let Some(MetricsListener(metrics)) = req
        .app_data::<web::Data<MetricsListener>>()
        .map(|l| *l.get_ref())
    {
        let on_metrics_listener = req.app_config().local_addr() == metrics;
        if on_metrics_listener != (req.path() == METRICS_PATH) {
            let (req, _) = req.into_parts();
            let response = problem::not_found().await.map_into_right_body();
            return Ok(ServiceResponse::new(req, response));
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}
