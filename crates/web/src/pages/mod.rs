//! The pages, one module each.

pub(crate) mod admin;
pub(crate) mod auth;
pub(crate) mod link;
pub(crate) mod me;
pub(crate) mod person;
pub(crate) mod privacy;
pub(crate) mod search;
