//! Kenning's web app for people, served by the same binary under `/`:
//! the search page ("who knows about ..."), a person's page, the signed-in
//! person's own profile with a say over its topics, sign-in (a link, or
//! the organisation's OpenID Connect provider) and sign-out.
//!
//! Pages are rendered on the server from templates that escape every
//! value; they need no script, so they work by keyboard and in any
//! browser, and their Content-Security-Policy allows nothing from another
//! host. This crate is an adapter like GraphQL: it reads a request, asks
//! the use cases as the visitor calls them (each says what the visitor
//! may do) and renders the answer. See `docs/web.md`.

mod assets;
mod config;
mod contact;
mod forms;
mod oidc;
mod pages;
mod paths;
mod render;
mod routes;
mod session;
mod signin;
mod state;
mod view;
mod visitor;

pub use config::{WebConfig, SESSION_COOKIE};
pub use contact::{ContactLink, ContactLinkError};
pub use oidc::{AllowedDomain, ExternalIdClaim, OidcConfig};
pub use render::{not_found_page, too_many_requests_page};
pub use routes::{configure, link_path};
pub use session::{presented_session, VerifiedSession};
pub use state::Web;
