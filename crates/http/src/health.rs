//! Liveness and readiness probes.

use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::AppState;

/// 200 while the process serves requests.
pub async fn alive() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

/// 200 when the database answers, 503 otherwise.
pub async fn ready(state: web::Data<AppState>) -> HttpResponse {
    let users = state.users.clone();
    match web::block(move || users.ready()).await {
        Ok(Ok(())) => HttpResponse::Ok().json(json!({ "status": "ready" })),
        Ok(Err(e)) => {
            log::warn!("not ready: {}", e.log_message());
            HttpResponse::ServiceUnavailable().json(json!({ "status": "database unavailable" }))
        }
        Err(e) => {
            log::error!("readiness check failed: {e}");
            HttpResponse::ServiceUnavailable().json(json!({ "status": "database unavailable" }))
        }
    }
}
