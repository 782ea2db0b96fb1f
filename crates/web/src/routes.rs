//! Every path of the web app and what answers it.

use actix_web::middleware::from_fn;
use actix_web::web;

use crate::paths::{CALLBACK_PATH, LINK_PREFIX};
use crate::state::Web;
use crate::{assets, pages};

/// The path of the sign-in link whose secret is `secret`.
pub fn link_path(secret: &str) -> String {
    format!("{LINK_PREFIX}{secret}")
}

/// Registers the web app's routes.
pub fn configure(cfg: &mut web::ServiceConfig, app: Web) {
    cfg.app_data(web::Data::new(app))
        .route("/", web::get().to(pages::search::page))
        .route("/people/{id}", web::get().to(pages::person::page))
        .route("/me", web::get().to(pages::me::page))
        .route("/me/topics", web::post().to(pages::me::change_topic))
        .route("/me/declared", web::post().to(pages::me::declare))
        .route("/me/data", web::get().to(pages::privacy::confirm_download))
        .route("/me/data", web::post().to(pages::privacy::download))
        .route("/me/learning", web::post().to(pages::privacy::set_learning))
        .route("/me/forget", web::get().to(pages::privacy::confirm_forget))
        .route("/me/forget", web::post().to(pages::privacy::forget))
        .route("/signin", web::get().to(pages::auth::signin_page))
        .route(
            &format!("{LINK_PREFIX}{{secret}}"),
            web::get().to(pages::link::page),
        )
        .route(
            &format!("{LINK_PREFIX}{{secret}}"),
            web::post().to(pages::link::sign_in),
        )
        .route("/auth/signout", web::post().to(pages::auth::sign_out))
        .route("/auth/oidc", web::get().to(pages::auth::oidc_begin))
        .route(CALLBACK_PATH, web::get().to(pages::auth::oidc_callback))
        .route(assets::PATH, web::get().to(assets::serve));
    admin(cfg);
}

/// The admin console's paths, every one behind the console's guard
/// ([`pages::admin::administrators_only`]); any other path under `/admin`
/// is answered as a page that does not exist, once the person is known to
/// be an administrator (anyone else gets the console's 403 page there
/// too).
fn admin(cfg: &mut web::ServiceConfig) {
    use pages::admin::{
        audit, credentials, gaps, groups, rules, sources, user, user_privacy, users,
    };
    let console = web::scope("/admin")
        .wrap(from_fn(pages::admin::administrators_only))
        .route("", web::get().to(users::directory))
        .route("", web::route().to(pages::admin::elsewhere))
        .route("/users", web::get().to(users::directory))
        .route("/users/new", web::get().to(users::new_user))
        .route("/users/new", web::post().to(users::create))
        .route("/users/{id}", web::get().to(user::page))
        .route("/users/{id}", web::post().to(user::update))
        .route("/users/{id}/email", web::post().to(user::update_email))
        .route(
            "/users/{id}/learning",
            web::post().to(user_privacy::set_learning),
        )
        .route(
            "/users/{id}/data",
            web::get().to(user_privacy::confirm_download),
        )
        .route("/users/{id}/data", web::post().to(user_privacy::download))
        .route(
            "/users/{id}/forget",
            web::get().to(user_privacy::confirm_forget),
        )
        .route("/users/{id}/forget", web::post().to(user_privacy::forget))
        .route("/users/{id}/{change}", web::post().to(user::change_status))
        .route("/groups", web::get().to(groups::groups))
        .route("/groups", web::post().to(groups::create))
        .route("/groups/{id}", web::get().to(groups::group))
        .route("/groups/{id}", web::post().to(groups::rename))
        .route(
            "/groups/{id}/{change:.+}",
            web::post().to(groups::change_of),
        )
        .route("/audit", web::get().to(audit::page))
        .route("/credentials", web::get().to(credentials::page))
        .route("/credentials", web::post().to(credentials::issue))
        .route(
            "/credentials/{kind}/{id}/revoke",
            web::post().to(credentials::revoke),
        )
        .route("/rules", web::get().to(rules::page))
        .route("/rules", web::post().to(rules::change))
        .route("/gaps", web::get().to(gaps::page))
        .route("/sources", web::get().to(sources::page))
        .route("/sources/runs", web::get().to(sources::runs))
        .route("/{rest:.*}", web::route().to(pages::admin::elsewhere));
    cfg.service(console);
}
