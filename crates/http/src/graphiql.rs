//! GraphiQL, served from the binary: the page and every file it loads come
//! from this server, so it works without reaching any other host, and its
//! Content-Security-Policy allows nothing else.

use actix_web::http::header;
use actix_web::{web, HttpResponse};

use crate::problem;

/// The path under which GraphiQL's files are served.
pub const ASSETS_PATH: &str = "/accounts/api/v1/graphiql/{file}";

/// The page's policy: scripts, styles and requests only from this server,
/// no inline scripts, nothing framed, fonts and icons inline as data
/// URLs (GraphiQL's stylesheet embeds its fonts). Styles may be inline
/// because the editor sets element styles.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE: &str = include_str!("../assets/graphiql/index.html");

/// One file of GraphiQL: its name in the URL, content type and bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $content_type:literal) => {
        Asset {
            name: $name,
            content_type: $content_type,
            bytes: include_bytes!(concat!("../assets/graphiql/", $name)),
        }
    };
}

const ASSETS: [Asset; 6] = [
    asset!("graphiql.min.js", "text/javascript; charset=utf-8"),
    asset!("graphiql.min.css", "text/css; charset=utf-8"),
    asset!("react.production.min.js", "text/javascript; charset=utf-8"),
    asset!(
        "react-dom.production.min.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("kenning-graphiql.js", "text/javascript; charset=utf-8"),
    asset!("kenning-graphiql.css", "text/css; charset=utf-8"),
];

/// `GET /accounts/api/v1/graphql`: the GraphiQL page.
pub async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, PAGE_POLICY))
        .body(PAGE)
}

/// `GET /accounts/api/v1/graphiql/{file}`: one of GraphiQL's files, which
/// change only with the binary, so browsers may keep them for a day.
pub async fn asset(file: web::Path<String>) -> HttpResponse {
    match ASSETS.iter().find(|a| a.name == file.as_str()) {
        Some(asset) => HttpResponse::Ok()
            .content_type(asset.content_type)
            .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
            .body(asset.bytes),
        None => problem::not_found().await,
    }
}
