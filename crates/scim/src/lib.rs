//! SCIM 2.0 (RFC 7643, RFC 7644) as Kenning speaks it, apart from any
//! transport: users and groups as SCIM resources both ways, the filter
//! grammar, the PATCH engine, lists and searches, entity tags, discovery
//! and the error envelope. The HTTP adapter serves it; `docs/scim.md`
//! says what is supported and how a user maps to a SCIM User.
//!
//! Nothing here reads a request or calls a use case: each function takes
//! what a request brought (a JSON body, query parameters, a header's
//! bytes) and answers a SCIM document or a [`ScimError`].

mod discovery;
mod error;
mod filter;
mod group;
mod list;
mod patch;
mod resource;
mod schemas;
mod version;

pub use error::ScimError;
pub use list::{search_parameters, Kind, ListRequest, Shown, MAX_RESULTS};
pub use schemas::{ENTERPRISE_SCHEMA, ERROR_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA};
pub use version::{expected as expected_version, unchanged};

/// The media type of SCIM bodies.
pub const CONTENT_TYPE: &str = "application/scim+json";

/// The media types a SCIM body may be sent as.
pub const BODY_TYPES: [&str; 2] = [CONTENT_TYPE, "application/json"];

/// Discovery (RFC 7644 §4): what the endpoint supports, every answer's
/// locations under `base`.
pub mod discover {
    pub use crate::discovery::{
        resource_type, resource_types, schema, schemas, service_provider_config,
    };
}

/// Users as SCIM User resources (RFC 7643 §4.1, with the enterprise
/// extension).
pub mod users {
    pub use crate::resource::{etag, parse, patched, render, user_id, visible, Attributes};
}

/// Groups as SCIM Group resources (RFC 7643 §4.2).
pub mod groups {
    pub use crate::group::{etag, group_id, parse, patched, render};
}
