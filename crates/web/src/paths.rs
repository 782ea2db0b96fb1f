//! The paths of the web app that other modules build or recognise.

/// The path a sign-in link's secret follows.
pub(crate) const LINK_PREFIX: &str = "/auth/link/";
/// Where the identity provider sends a person back.
pub(crate) const CALLBACK_PATH: &str = "/auth/callback";
