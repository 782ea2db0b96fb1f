//! Liveness and readiness probes.

use actix_web::{web, HttpResponse};

use crate::state::AppState;
use crate::wire::Health;

fn status(status: &str) -> Health {
    Health {
        status: status.to_owned(),
    }
}

/// 200 while the process serves requests.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "probes",
    operation_id = "alive",
    summary = "Liveness: the process serves requests",
    responses((status = 200, description = "`ok`", body = Health))
)]
pub async fn alive() -> HttpResponse {
    HttpResponse::Ok().json(status("ok"))
}

/// 200 when the database answers, 503 otherwise.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "probes",
    operation_id = "ready",
    summary = "Readiness: the database answers",
    responses(
        (status = 200, description = "`ready`", body = Health),
        (status = 503, description = "`database unavailable`", body = Health),
    )
)]
pub async fn ready(state: web::Data<AppState>) -> HttpResponse {
    const DOWN: &str = "database unavailable";
    let gate = state.gate.clone();
    match web::block(move || gate.ready()).await {
        Ok(Ok(())) => HttpResponse::Ok().json(status("ready")),
        Ok(Err(e)) => {
            log::warn!("not ready: {}", e.log_message());
            HttpResponse::ServiceUnavailable().json(status(DOWN))
        }
        Err(e) => {
            log::error!("readiness check failed: {e}");
            HttpResponse::ServiceUnavailable().json(status(DOWN))
        }
    }
}
