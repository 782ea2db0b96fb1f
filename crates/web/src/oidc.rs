//! Signing in with the organisation's OpenID Connect provider (Entra ID,
//! Okta, Keycloak, Google, ...): the authorization code flow with PKCE,
//! `state` and `nonce`, the provider found by discovery, and the ID
//! token's signature checked against the provider's keys, with its
//! issuer, audience, expiry and nonce (the `openidconnect` crate does the
//! protocol). What the flow yields is an identity claim; who that is, and
//! whether they may sign in, the use cases decide.
//!
//! The flow's secrets (state, nonce, PKCE verifier) wait in a short-lived
//! cookie of the browser that began it, so a sign-in may finish on any
//! instance. Which claims are believed is decided in [`claims`].

mod claims;
mod error;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreIdTokenClaims, CoreProviderMetadata, CoreTokenResponse,
    CoreUserInfoClaims,
};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, IssuerUrl, Nonce,
    OAuth2TokenResponse as _, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    TokenResponse as _,
};

use claims::{admitted, verified_email, EmailClaims};
pub use claims::{AllowedDomain, ExternalIdClaim};
pub(crate) use error::OidcError;

/// How long the provider's discovery document and keys are kept before
/// they are read again (a key rotation is picked up within this time, or
/// at once when a token names a key not known).
const METADATA_LIFETIME: Duration = Duration::from_secs(3600);

/// The largest answer read from the provider.
const MAX_ANSWER: u64 = 1024 * 1024;

/// How the provider is reached and what it asserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcConfig {
    /// The provider's issuer URL (discovery is read below it).
    pub issuer: String,
    /// The client id Kenning is registered under.
    pub client_id: String,
    /// The client's secret (none for a public client).
    pub client_secret: Option<String>,
    /// The claim matched against a user's `externalId`; `None`: the
    /// verified `email` claim is matched against the e-mail address.
    pub external_id_claim: Option<ExternalIdClaim>,
    /// The domains whose accounts may sign in; empty: any account the
    /// provider signs in.
    pub allowed_domains: Vec<AllowedDomain>,
    /// The provider's name on the sign-in button.
    pub name: String,
    /// How long one call to the provider may take.
    pub timeout: Duration,
}

/// Who the provider says signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Claimed {
    /// The verified e-mail address.
    Email(String),
    /// The value of the configured claim, for `externalId`.
    ExternalId(String),
}

/// The flow's secrets, kept in the browser until the provider sends the
/// person back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pending {
    state: String,
    nonce: String,
    verifier: String,
}

impl Pending {
    /// As a cookie's value.
    pub(crate) fn to_cookie(&self) -> String {
        format!("{}.{}.{}", self.state, self.nonce, self.verifier)
    }

    /// Read back from a cookie's value.
    pub(crate) fn from_cookie(value: &str) -> Option<Self> {
        let mut parts = value.split('.');
        let (state, nonce, verifier) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || [state, nonce, verifier].iter().any(|p| p.is_empty()) {
            return None;
        }
        Some(Self {
            state: state.to_owned(),
            nonce: nonce.to_owned(),
            verifier: verifier.to_owned(),
        })
    }

    /// Whether the `state` the provider sent back is this flow's
    /// (compared in constant time).
    pub(crate) fn state_matches(&self, state: &str) -> bool {
        use subtle::ConstantTimeEq as _;
        bool::from(self.state.as_bytes().ct_eq(state.as_bytes()))
    }
}

/// The client of a discovered provider: its authorization endpoint set,
/// its token and UserInfo endpoints as the discovery document names them.
type ProviderClient = CoreClient<
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
>;

/// The organisation's provider, discovered when first needed.
pub(crate) struct Provider {
    config: OidcConfig,
    redirect: RedirectUrl,
    agent: ureq::Agent,
    metadata: Mutex<Option<(Instant, CoreProviderMetadata)>>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("issuer", &self.config.issuer)
            .field("client_id", &self.config.client_id)
            .finish_non_exhaustive()
    }
}

/// One HTTP exchange with the provider, redirects not followed (the
/// protocol has none, and following one would let the provider's answer
/// send Kenning elsewhere).
fn exchange(
    agent: &ureq::Agent,
    request: openidconnect::HttpRequest,
) -> Result<openidconnect::HttpResponse, ureq::Error> {
    let response = agent.run(request)?;
    let (parts, body) = response.into_parts();
    let bytes = body.into_with_config().limit(MAX_ANSWER).read_to_vec()?;
    Ok(openidconnect::http::Response::from_parts(parts, bytes))
}

/// The words of `error` and every cause beneath it.
fn chain(error: &dyn std::error::Error) -> String {
    let mut words = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        words.push_str(": ");
        words.push_str(&c.to_string());
        cause = c.source();
    }
    words
}

impl Provider {
    /// The provider `config` names, sending people back to `redirect`.
    pub(crate) fn new(config: OidcConfig, redirect: &str) -> Result<Self, String> {
        IssuerUrl::new(config.issuer.clone()).map_err(|e| format!("the issuer URL: {e}"))?;
        let redirect =
            RedirectUrl::new(redirect.to_owned()).map_err(|e| format!("the redirect URL: {e}"))?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(config.timeout))
            .build()
            .into();
        Ok(Self {
            config,
            redirect,
            agent,
            metadata: Mutex::new(None),
        })
    }

    /// The provider's name, for the sign-in button.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    fn http(
        &self,
    ) -> impl Fn(openidconnect::HttpRequest) -> Result<openidconnect::HttpResponse, ureq::Error> + '_
    {
        move |request| exchange(&self.agent, request)
    }

    /// The provider's metadata and keys: kept for [`METADATA_LIFETIME`],
    /// read again sooner when `fresh`.
    fn metadata(&self, fresh: bool) -> Result<CoreProviderMetadata, OidcError> {
        let mut kept = self.metadata.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((read, metadata)) = kept.as_ref() {
            if !fresh && read.elapsed() < METADATA_LIFETIME {
                return Ok(metadata.clone());
            }
        }
        let issuer = IssuerUrl::new(self.config.issuer.clone())
            .map_err(|e| OidcError::Refused(e.to_string()))?;
        let metadata = CoreProviderMetadata::discover(&issuer, &self.http()).map_err(|e| {
            let words = chain(&e);
            match e {
                openidconnect::DiscoveryError::Request(_) => OidcError::Unreachable(words),
                _ => OidcError::Refused(words),
            }
        })?;
        *kept = Some((Instant::now(), metadata.clone()));
        Ok(metadata)
    }

    fn client(&self, metadata: CoreProviderMetadata) -> ProviderClient {
        CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.config.client_id.clone()),
            self.config.client_secret.clone().map(ClientSecret::new),
        )
        .set_redirect_uri(self.redirect.clone())
    }

    /// Where to send the person to sign in, and the flow's secrets to keep
    /// in their browser meanwhile.
    pub(crate) fn begin(&self) -> Result<(String, Pending), OidcError> {
        let client = self.client(self.metadata(false)?);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        // `profile` carries Entra ID's `oid`; `email` the address, which
        // names the person, or whose domain is checked when the provider
        // names no hosted domain.
        let scopes = [
            ("profile", self.config.external_id_claim.is_some()),
            (
                "email",
                self.config.external_id_claim.is_none() || !self.config.allowed_domains.is_empty(),
            ),
        ];
        let (url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scopes(
                scopes
                    .iter()
                    .filter(|(_, wanted)| *wanted)
                    .map(|(scope, _)| Scope::new((*scope).to_owned())),
            )
            .set_pkce_challenge(challenge)
            .url();
        Ok((
            url.to_string(),
            Pending {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                verifier: verifier.secret().clone(),
            },
        ))
    }

    /// Exchanges the `code` the provider sent back for an ID token,
    /// checks it, and returns who it says signed in.
    pub(crate) fn finish(&self, pending: &Pending, code: &str) -> Result<Claimed, OidcError> {
        let client = self.client(self.metadata(false)?);
        let tokens = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| OidcError::Refused(chain(&e)))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier.clone()))
            .request(&self.http())
            .map_err(|e| {
                let words = chain(&e);
                match e {
                    openidconnect::RequestTokenError::Request(_) => OidcError::Unreachable(words),
                    _ => OidcError::Refused(words),
                }
            })?;
        let token = tokens
            .id_token()
            .ok_or_else(|| OidcError::Refused("its answer held no ID token".to_owned()))?;
        let nonce = Nonce::new(pending.nonce.clone());
        let claims = match token.claims(&client.id_token_verifier(), &nonce) {
            Ok(claims) => claims.clone(),
            // A key the provider rotated in since its keys were read:
            // read them again, once.
            Err(openidconnect::ClaimsVerificationError::SignatureVerification(_)) => {
                let client = self.client(self.metadata(true)?);
                let verifier = client.id_token_verifier();
                let claims = token
                    .claims(&verifier, &nonce)
                    .map_err(|e| OidcError::Untrusted(chain(&e)))?
                    .clone();
                claims
            }
            Err(e) => return Err(OidcError::Untrusted(chain(&e))),
        };
        let jwt = token.to_string();
        let hd = claim_of(&jwt, "hd");
        let from_token = EmailClaims {
            email: claims.email().map(|e| e.as_str().to_owned()),
            verified: claims.email_verified(),
        };
        let email = || verified_email(from_token, || self.user_info(&client, &tokens, &claims));
        let allowed = &self.config.allowed_domains;
        match self.config.external_id_claim {
            None => {
                let email = email()?;
                admitted(allowed, hd.as_deref(), || Ok(email.clone()))?;
                Ok(Claimed::Email(email))
            }
            Some(claim) => {
                admitted(allowed, hd.as_deref(), email)?;
                match claim {
                    ExternalIdClaim::Sub => Some(claims.subject().as_str().to_owned()),
                    ExternalIdClaim::Oid => claim_of(&jwt, claim.name()),
                }
                .map(Claimed::ExternalId)
                .ok_or_else(|| OidcError::NoIdentity(format!("the claim `{}`", claim.name())))
            }
        }
    }

    /// The e-mail claims of the UserInfo answer, for the subject the ID
    /// token names: some providers put the scope's claims there alone (as
    /// OpenID Connect allows).
    fn user_info(
        &self,
        client: &ProviderClient,
        tokens: &CoreTokenResponse,
        claims: &CoreIdTokenClaims,
    ) -> Result<EmailClaims, OidcError> {
        let info: CoreUserInfoClaims = client
            .user_info(
                tokens.access_token().clone(),
                Some(claims.subject().clone()),
            )
            .map_err(|e| OidcError::Refused(chain(&e)))?
            .request(&self.http())
            .map_err(|e| {
                let words = chain(&e);
                match e {
                    openidconnect::UserInfoError::Request(_) => OidcError::Unreachable(words),
                    _ => OidcError::Refused(words),
                }
            })?;
        Ok(EmailClaims {
            email: info.email().map(|e| e.as_str().to_owned()),
            verified: info.email_verified(),
        })
    }
}

/// The string claim `name` of a JWT whose signature was checked already
/// (a claim the `openidconnect` crate does not know, such as `oid` or
/// `hd`); `None` when it is absent, empty or no string.
fn claim_of(jwt: &str, name: &str) -> Option<String> {
    let payload = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    match &claims[name] {
        serde_json::Value::String(value) if !value.is_empty() => Some(value.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pending_flow_reads_back_from_its_cookie() {
        let pending = Pending {
            state: "s1".to_owned(),
            nonce: "n1".to_owned(),
            verifier: "v1".to_owned(),
        };
        assert_eq!(
            Pending::from_cookie(&pending.to_cookie()),
            Some(pending.clone())
        );
        assert!(pending.state_matches("s1"));
        assert!(!pending.state_matches("s2"));
        for broken in ["", "a.b", "a..c", "a.b.c.d"] {
            assert_eq!(Pending::from_cookie(broken), None, "{broken}");
        }
    }

    #[test]
    fn a_named_claim_is_read_from_the_payload() {
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(br#"{"sub":"x","oid":"0c5e-17","hd":"","n":42}"#);
        let jwt = format!("h.{payload}.s");
        assert_eq!(claim_of(&jwt, "oid").as_deref(), Some("0c5e-17"));
        assert_eq!(claim_of(&jwt, "hd"), None);
        assert_eq!(claim_of(&jwt, "n"), None);
        assert_eq!(claim_of(&jwt, "missing"), None);
    }
}
