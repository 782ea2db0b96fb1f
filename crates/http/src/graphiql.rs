//! GraphiQL, served from the binary: the page and every file it loads come
//! from this server, so it works without reaching any other host, and its
//! Content-Security-Policy allows nothing else.

use actix_web::{web, HttpResponse};

use crate::assets::{self, asset, Asset, SCRIPT, STYLE};

/// The path under which GraphiQL's files are served.
pub const ASSETS_PATH: &str = "/accounts/api/v1/graphiql/{file}";

/// The page's policy: scripts, styles and requests only from this server,
/// no inline scripts, nothing framed, fonts and icons inline as data
/// URLs (GraphiQL's stylesheet embeds its fonts). Styles may be inline
/// because the editor sets element styles.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE: &str = include_str!("../assets/graphiql/index.html");

const ASSETS: [Asset; 6] = [
    asset!("graphiql", "graphiql.min.js", SCRIPT),
    asset!("graphiql", "graphiql.min.css", STYLE),
    asset!("graphiql", "react.production.min.js", SCRIPT),
    asset!("graphiql", "react-dom.production.min.js", SCRIPT),
    asset!("graphiql", "kenning-graphiql.js", SCRIPT),
    asset!("graphiql", "kenning-graphiql.css", STYLE),
];

/// `GET /accounts/api/v1/graphql`: the GraphiQL page.
pub async fn page() -> HttpResponse {
    assets::page(PAGE, PAGE_POLICY)
}

/// `GET /accounts/api/v1/graphiql/{file}`: one of GraphiQL's files.
pub async fn asset(file: web::Path<String>) -> HttpResponse {
    assets::serve(&ASSETS, &file).await
}
