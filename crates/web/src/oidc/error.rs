//! How a sign-in with the provider fails.

/// Why a sign-in with the provider failed, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OidcError {
    /// The provider could not be reached or did not answer in time.
    #[error("the identity provider did not answer ({0}); try again in a moment, or tell the people who run Kenning if it persists")]
    Unreachable(String),
    /// The provider refused, or answered what is no valid OpenID Connect.
    #[error("the identity provider refused the sign-in ({0}); try again from the sign-in page")]
    Refused(String),
    /// The ID token failed a check (signature, issuer, audience, expiry,
    /// nonce).
    #[error("the identity provider's answer failed a check ({0}), so it was not trusted; try again from the sign-in page")]
    Untrusted(String),
    /// The provider did not assert a verified e-mail address (or the
    /// configured claim).
    #[error("the identity provider did not confirm {0}, which Kenning needs to know who you are")]
    NoIdentity(String),
    /// The account is not of a domain `--oidc-allowed-domain` names.
    #[error("the identity provider signed you in with an account of {0}, which is not one of the organisation's domains; sign in with your organisation's account")]
    OutsideDomains(String),
}
