//! The HTTP server: listeners, middleware and the connection settings.

use std::net::TcpListener;

use actix_cors::Cors;
use actix_web::dev::{Server, ServiceRequest};
use actix_web::http::{header, Method};
use actix_web::middleware::{from_fn, Condition, DefaultHeaders, Logger};
use actix_web::{web, App, HttpServer};

use crate::config::AllowedOrigin;
use crate::listener::MetricsListener;
use crate::routes::configure;
use crate::state::AppState;
use crate::{exposition, head, listener};

/// A server answering the API on `listener` and, when given,
/// `GET /metrics` on `metrics_listener` alone; `workers` threads (`None`:
/// one per core). It runs once awaited or spawned.
///
/// Every request is counted in the metrics, including those refused for
/// their head (an unknown method, a request line or headers too long),
/// and every response carries the security headers (no content sniffing,
/// no referrer, no framing, no caching of API answers) unless its handler
/// set its own. CORS answers only when origins are configured.
pub fn server(
    state: AppState,
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    workers: Option<usize>,
) -> std::io::Result<Server> {
    let metrics_addr = metrics_listener
        .as_ref()
        .map(TcpListener::local_addr)
        .transpose()?
        .map(MetricsListener);
    let mut server = HttpServer::new(move || {
        let state = state.clone();
        let mut app = App::new();
        if let Some(metrics_addr) = metrics_addr {
            app = app.app_data(web::Data::new(metrics_addr));
        }
        let origins = &state.config.cors_origins;
        let proxies = state.config.trusted_proxies.clone();
        app.wrap(from_fn(listener::separate))
            .wrap(Condition::new(!origins.is_empty(), cors(origins)))
            .wrap(from_fn(head::bound))
            .wrap(security_headers())
            .wrap(from_fn(exposition::record))
            .wrap(
                Logger::new("%{client}xi \"%{request}xi\" %s %b %Dms")
                    .custom_request_replace("client", move |req| {
                        proxies
                            .client_of(req.request())
                            .map_or_else(|| "-".to_owned(), |a| a.to_string())
                    })
                    .custom_request_replace("request", request_line),
            )
            .configure(move |cfg| configure(cfg, state))
    });
    if let Some(workers) = workers {
        server = server.workers(workers);
    }
    server = server.listen(listener)?;
    if let Some(metrics_listener) = metrics_listener {
        server = server.listen(metrics_listener)?;
    }
    Ok(server.run())
}

/// The headers every response carries unless its handler set its own:
/// no content sniffing, no referrer, no framing, and no caching of API
/// answers (GraphiQL's files set their own `Cache-Control`).
fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "no-referrer"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
        .add((header::CACHE_CONTROL, "no-store"))
}

/// CORS for `origins`: preflights answered for GET and POST with the
/// headers the API reads. A request from another origin is served
/// without CORS headers rather than refused, so the browser decides (and
/// same-origin calls, which browsers also send with an `Origin`, work).
fn cors(origins: &[AllowedOrigin]) -> Cors {
    origins
        .iter()
        .fold(Cors::default(), |cors, origin| {
            cors.allowed_origin(origin.as_str())
        })
        .allowed_methods([Method::GET, Method::POST])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::HeaderName::from_static("apikey"),
        ])
        .max_age(3600)
        .block_on_origin_mismatch(false)
}

/// The request line as the log shows it: the method, the route's pattern
/// (`/people/{id}`) in place of the path, and the version; `unmatched`
/// for a path no route serves. Never the path or the query as sent, so
/// the log keeps no question asked (`/?q=...`), no id of a person looked
/// at or changed, no SCIM filter, and no sign-in secret. At most
/// [`LOGGED_LINE`] bytes, so a client's odd method cannot make one log
/// line as long as its request head.
fn request_line(req: &ServiceRequest) -> String {
    let route = req.match_pattern().unwrap_or_else(|| UNMATCHED.to_owned());
    let mut line = format!("{} {} {:?}", req.method(), route, req.version());
    if line.len() > LOGGED_LINE {
        let cut = (0..=LOGGED_LINE)
            .rev()
            .find(|&i| line.is_char_boundary(i))
            .unwrap_or(0);
        line.truncate(cut);
        line.push_str("...");
    }
    line
}

/// What the log writes for the route of a path no route serves.
const UNMATCHED: &str = "unmatched";

/// The most bytes of a request line the log keeps.
const LOGGED_LINE: usize = 256;
