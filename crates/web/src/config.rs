//! How the web app is set up: where people reach it, and how they may
//! sign in.

use std::sync::Arc;

use url::Url;

use crate::contact::ContactLink;
use crate::oidc::{OidcConfig, Provider};

/// The name of the session cookie over plain http; over https it carries
/// the `__Host-` prefix, which browsers accept only from a secure origin
/// for the whole site.
pub const SESSION_COOKIE: &str = "kenning_session";

/// The name of the cookie that holds a sign-in with the identity provider
/// under way, over plain http; over https it carries the `__Host-` prefix
/// too.
const PENDING_COOKIE: &str = "kenning_oidc";

/// How the web app is set up.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// The address people reach Kenning at (`--public-url`): links and
    /// redirects are made from it, and a form is accepted only from its
    /// origin (or the request's own host).
    pub public_url: Url,
    /// Whether sign-in links are accepted.
    pub links: bool,
    /// The organisation's OpenID Connect provider, when one is set up.
    pub(crate) oidc: Option<Arc<Provider>>,
    /// The chat link each card and person page offers beside the e-mail
    /// (`--contact-link`): none until an operator sets one.
    pub contact_link: Option<ContactLink>,
}

impl WebConfig {
    /// The app at `public_url`, accepting sign-in links.
    pub fn new(public_url: Url) -> Self {
        Self {
            public_url,
            links: true,
            oidc: None,
            contact_link: None,
        }
    }

    /// The same app, signing people in with the provider `oidc` too; its
    /// redirect URI is `<public URL>/auth/callback`. Refused when the
    /// issuer or the redirect is no URL.
    pub fn with_oidc(mut self, oidc: OidcConfig) -> Result<Self, String> {
        let redirect = self.url_of(crate::paths::CALLBACK_PATH);
        self.oidc = Some(Arc::new(Provider::new(oidc, &redirect)?));
        Ok(self)
    }

    /// The redirect URI to register with the identity provider.
    pub fn redirect_uri(&self) -> String {
        self.url_of(crate::paths::CALLBACK_PATH)
    }

    /// Whether the public address is https: then the cookie is `Secure`.
    pub fn secure(&self) -> bool {
        self.public_url.scheme() == "https"
    }

    /// The session cookie's name.
    pub fn cookie_name(&self) -> String {
        self.host_only(SESSION_COOKIE)
    }

    /// The name of the cookie that holds a sign-in with the identity
    /// provider under way.
    pub(crate) fn pending_cookie_name(&self) -> String {
        self.host_only(PENDING_COOKIE)
    }

    /// `name` with the `__Host-` prefix over https: a browser then takes
    /// the cookie only from this host, `Secure`, for `Path=/` and without
    /// `Domain`, so a neighbouring subdomain cannot plant one under the
    /// name Kenning reads. Plain http (a trial on one's own machine) has
    /// no such guard, and browsers refuse the prefix there.
    fn host_only(&self, name: &str) -> String {
        if self.secure() {
            format!("__Host-{name}")
        } else {
            name.to_owned()
        }
    }

    /// The public address's origin, as a browser writes it in `Origin`.
    pub fn origin(&self) -> String {
        self.public_url.origin().ascii_serialization()
    }

    /// The public URL of `path` (which starts with `/`).
    pub fn url_of(&self, path: &str) -> String {
        format!("{}{}", self.public_url.as_str().trim_end_matches('/'), path)
    }
}
