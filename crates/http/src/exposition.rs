//! The metrics over HTTP: the middleware that observes every request, and
//! `GET /metrics`.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse};

use crate::metrics::{method_label, CONTENT_TYPE};
use crate::problem::Problem;
use crate::state::AppState;

/// Middleware: times each request and counts it under its route pattern
/// (never the raw path, so ids do not multiply the series) and its method
/// label.
pub async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.metrics.clone());
    let method = method_label(req.method());
    let response = next.call(req).await?;
    if let Some(metrics) = metrics {
        let route = response
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_owned());
        metrics.observe(
            route,
            method,
            response.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(response)
}

/// `GET /metrics`.
pub async fn render(state: web::Data<AppState>) -> HttpResponse {
    state
        .metrics
        .set_meaning_topics(state.gate.meaning_topics());
    let gate = state.gate.clone();
    match web::block(move || gate.webhook_counts()).await {
        Ok(Ok(counts)) => state
            .metrics
            .set_webhook_events(counts.into_iter().map(|c| {
                (
                    c.subscription.to_string(),
                    [c.pending, c.failed, c.delivered],
                )
            })),
        Ok(Err(e)) => log::error!("counting webhook deliveries failed: {}", e.log_message()),
        Err(e) => log::error!("counting webhook deliveries failed: {e}"),
    }
    match state.metrics.render() {
        Ok(body) => HttpResponse::Ok().content_type(CONTENT_TYPE).body(body),
        Err(e) => Problem::internal("rendering the metrics", &e).into_response(),
    }
}
