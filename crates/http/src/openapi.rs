//! The connector API's OpenAPI 3.1 document, derived from the handlers'
//! annotations and the types their answers are made of, and its reference
//! page (Swagger UI, served from the binary).

use actix_web::{web, HttpResponse};
use kenning_domain::RunReport;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{OpenApi as Document, RefOr, Schema};
use utoipa::{Modify, OpenApi};

use crate::assets::{self, asset, Asset, SCRIPT, STYLE};
use crate::state::AppState;
use crate::{connector, health, sources};

/// Where the document is served.
pub const DOCUMENT_PATH: &str = "/connectors/api/v1/openapi.json";
/// Where the reference page is served.
pub const PAGE_PATH: &str = "/connectors/api/v1/docs";
/// Where the reference page's files are served.
pub const ASSETS_PATH: &str = "/connectors/api/v1/docs/{file}";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Kenning connector API",
        description = "Connector scripts send the documents, chats and e-mails of an organisation with the actions people took on them; Kenning learns from them who knows what. Authenticate with an API key (`kenning apikey create`) in the `APIKEY` header. Every refusal is a JSON `error` object with a stable `code`; a refused body lists every field at fault.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    paths(
        connector::upload,
        connector::upload_batch,
        sources::people,
        sources::report_run,
        health::alive,
        health::ready
    ),
    modifiers(&ApiKeyScheme),
    tags(
        (name = "uploads", description = "What connectors send"),
        (name = "sources", description = "What ready connectors ask and report beside their uploads"),
        (name = "probes", description = "For load balancers and orchestrators"),
    )
)]
struct ConnectorApi;

/// The `APIKEY` header as the connector endpoints' security scheme.
struct ApiKeyScheme;

impl Modify for ApiKeyScheme {
    fn modify(&self, openapi: &mut Document) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "APIKEY",
                "A connector API key, from `kenning apikey create`",
            ))),
        );
    }
}

/// The document of a server whose batches hold at most `batch_items`
/// uploads.
pub fn document(batch_items: usize) -> Document {
    let mut document = ConnectorApi::openapi();
    document.info.version = env!("CARGO_PKG_VERSION").to_owned();
    if let Some(RefOr::T(Schema::Array(items))) = property(&mut document, "BatchRequest", "items") {
        items.max_items = Some(batch_items);
    }
    // The derive has no attribute for an object's number of properties.
    if let Some(RefOr::T(Schema::Object(refused))) =
        property(&mut document, "RunRequest", "refused")
    {
        refused.max_properties = Some(RunReport::MAX_REFUSAL_CODES);
    }
    document
}

/// The property `name` of the document's schema `schema`, if it has one.
fn property<'a>(
    document: &'a mut Document,
    schema: &str,
    name: &str,
) -> Option<&'a mut RefOr<Schema>> {
    let schema = document.components.as_mut()?.schemas.get_mut(schema)?;
    match schema {
        RefOr::T(Schema::Object(object)) => object.properties.get_mut(name),
        _ => None,
    }
}

/// `GET /connectors/api/v1/openapi.json`.
pub async fn serve_document(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(document(state.config.batch_items))
}

/// The page's policy: scripts, styles and requests only from this server,
/// no inline scripts, nothing framed; Swagger UI sets element styles and
/// draws icons from data URLs.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE: &str = include_str!("../assets/swagger-ui/index.html");

const ASSETS: [Asset; 3] = [
    asset!("swagger-ui", "swagger-ui-bundle.js", SCRIPT),
    asset!("swagger-ui", "swagger-ui.css", STYLE),
    asset!("swagger-ui", "kenning-swagger.js", SCRIPT),
];

/// `GET /connectors/api/v1/docs`: the reference page.
pub async fn page() -> HttpResponse {
    assets::page(PAGE, PAGE_POLICY)
}

/// `GET /connectors/api/v1/docs/{file}`: one of the page's files.
pub async fn asset(file: web::Path<String>) -> HttpResponse {
    assets::serve(&ASSETS, &file).await
}

#[cfg(test)]
mod tests {
    use kenning_domain::{RefusalCode, RunError, RunReport, SourceIdentity, Upload};
    use serde_json::Value;

    use super::*;
    use crate::config::HttpConfig;

    /// Every description of the document, its lines and spaces run
    /// together.
    fn descriptions(value: &Value, into: &mut Vec<String>) {
        match value {
            Value::Object(fields) => {
                for (name, field) in fields {
                    match (name.as_str(), field) {
                        ("description" | "summary", Value::String(text)) => {
                            into.push(text.split_whitespace().collect::<Vec<_>>().join(" "));
                        }
                        _ => descriptions(field, into),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| descriptions(i, into)),
            _ => {}
        }
    }

    /// utoipa takes a description as written: each number written there is
    /// checked against the constant or default it copies, so that a changed
    /// one fails here until its description says so.
    #[test]
    fn the_descriptions_state_the_limits_the_server_applies() {
        let config = HttpConfig::default();
        let document = serde_json::to_value(document(config.batch_items)).unwrap();
        let mut all = Vec::new();
        descriptions(&document, &mut all);
        let text = all.join(" | ");
        let mib = |bytes: usize| bytes / (1024 * 1024);
        for expected in [
            format!("uploads ({} unless configured)", config.batch_items),
            format!(
                "({} MiB for one upload, {} MiB for a batch, unless configured)",
                mib(config.body_limit),
                mib(config.batch_body_limit)
            ),
            format!("array of 1 to {}", Upload::MAX_TEXTS),
            format!("1 to {} texts", Upload::MAX_TEXTS),
            format!("at most {} hours", Upload::MAX_CLOCK_SKEW_HOURS),
            format!("1 to {} identities", SourceIdentity::MAX_PER_REQUEST),
            format!("The newest {} runs", RunReport::KEPT),
            format!(
                "runs of at most {} sources",
                kenning_app::MAX_SOURCES_PER_KEY
            ),
            format!(
                "at most {} codes of 1 to {} characters",
                RunReport::MAX_REFUSAL_CODES,
                RefusalCode::MAX_CHARS
            ),
            format!("at most {} characters", RunError::MAX_CHARS),
        ] {
            assert!(text.contains(&expected), "no {expected:?} in: {text}");
        }
    }
}
