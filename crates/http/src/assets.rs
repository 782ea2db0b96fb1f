//! Pages and files served from the binary (the browser pages, their
//! scripts and styles); the files change only with the binary, so
//! browsers may keep them for a day.

use actix_web::http::header;
use actix_web::HttpResponse;

use crate::problem;

/// One file: its name in the URL, content type and bytes.
#[derive(Debug)]
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

/// An [`Asset`] of `assets/<folder>/<name>`.
macro_rules! asset {
    ($folder:literal, $name:literal, $content_type:expr) => {
        $crate::assets::Asset {
            name: $name,
            content_type: $content_type,
            bytes: include_bytes!(concat!("../assets/", $folder, "/", $name)),
        }
    };
}
pub(crate) use asset;

/// The content type of scripts.
pub const SCRIPT: &str = "text/javascript; charset=utf-8";
/// The content type of style sheets.
pub const STYLE: &str = "text/css; charset=utf-8";

/// A page of the binary's, under `policy` (its Content-Security-Policy).
pub fn page(html: &'static str, policy: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, policy))
        .body(html)
}

/// The file of `assets` named `file`, or 404.
pub async fn serve(assets: &[Asset], file: &str) -> HttpResponse {
    match assets.iter().find(|a| a.name == file) {
        Some(asset) => HttpResponse::Ok()
            .content_type(asset.content_type)
            .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
            .body(asset.bytes),
        None => problem::not_found().await,
    }
}
