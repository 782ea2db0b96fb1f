//! The app's one style sheet, served from the binary.

use actix_web::http::header;
use actix_web::{web, HttpResponse};

use crate::render::not_found_page;

/// Where the app's files are served.
pub(crate) const PATH: &str = "/static/{file}";

const STYLE: &[u8] = include_bytes!("../assets/kenning.css");

/// `GET /static/{file}`: the style sheet, kept by browsers for a day.
pub(crate) async fn serve(file: web::Path<String>) -> HttpResponse {
    if file.as_str() != "kenning.css" {
        return not_found_page();
    }
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .body(STYLE)
}
