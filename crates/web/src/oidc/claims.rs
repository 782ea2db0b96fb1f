//! What Kenning believes of a provider's answer: which claims may name a
//! person, where the e-mail address and its verification come from, and
//! whether the account is one of the organisation's domains.

use super::error::OidcError;

/// A claim of the ID token matched against a user's `externalId`
/// (`--oidc-external-id-claim`): only one the provider itself assigns and
/// never lets the person choose, so that nobody can name themselves
/// someone else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalIdClaim {
    /// `sub`, the subject: the provider's own stable, unique identifier
    /// of the person at this issuer (OpenID Connect Core).
    Sub,
    /// `oid`, Microsoft Entra ID's object id: immutable and unique in the
    /// tenant the issuer names, and what SCIM provisioning from Entra
    /// commonly sets as `externalId`.
    Oid,
}

impl ExternalIdClaim {
    /// The claims accepted, by name.
    pub const ACCEPTED: [Self; 2] = [Self::Sub, Self::Oid];

    /// The claim named `raw` (exactly, as a JWT names it), when it is one
    /// of [`ExternalIdClaim::ACCEPTED`]. Any other is refused: a claim
    /// such as `preferred_username`, `email` or one an administrator
    /// mapped from a profile attribute may be chosen or changed by the
    /// person it describes, or go unverified.
    pub fn parse(raw: &str) -> Result<Self, String> {
        Self::ACCEPTED
            .into_iter()
            .find(|claim| claim.name() == raw.trim())
            .ok_or_else(|| {
                format!(
                    "`{}` is not a claim the provider vouches for; the externalId is matched \
                     against `sub` or `oid` alone (see docs/web.md)",
                    raw.trim()
                )
            })
    }

    /// The claim's name in the ID token.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sub => "sub",
            Self::Oid => "oid",
        }
    }
}

/// A domain whose accounts may sign in (`--oidc-allowed-domain`), such as
/// `example.com`: a host name in ASCII (an international domain in its
/// `xn--` form), kept in lower case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AllowedDomain(String);

impl AllowedDomain {
    /// The longest domain name DNS allows.
    const MAX_CHARS: usize = 253;

    /// Trims and lower-cases `raw` and checks it is a domain name: labels
    /// of letters, digits and inner hyphens, 63 characters at most each,
    /// joined by dots. An address (`@`), a URL or a wildcard is refused.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let name = raw.trim().to_ascii_lowercase();
        let label_ok = |label: &str| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        };
        if name.is_empty() || name.len() > Self::MAX_CHARS || !name.split('.').all(label_ok) {
            return Err(format!(
                "`{}` is not a domain name such as example.com (letters, digits, hyphens and \
                 dots; an international domain in its xn-- form)",
                raw.trim()
            ));
        }
        Ok(Self(name))
    }

    /// The domain, in lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An e-mail address and whether the provider verified it, as one source
/// (the ID token, or the UserInfo answer) asserted them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EmailClaims {
    pub(crate) email: Option<String>,
    pub(crate) verified: Option<bool>,
}

impl EmailClaims {
    /// Whether this source asserted both the address and its verification.
    fn whole(&self) -> bool {
        self.email.is_some() && self.verified.is_some()
    }
}

/// The verified e-mail address: both claims from the ID token when it
/// holds both, otherwise both from the UserInfo answer (asked only then),
/// never the address from one and its verification from the other; no
/// address unless that one source says it is verified.
pub(crate) fn verified_email(
    id_token: EmailClaims,
    user_info: impl FnOnce() -> Result<EmailClaims, OidcError>,
) -> Result<String, OidcError> {
    let source = if id_token.whole() {
        id_token
    } else {
        user_info()?
    };
    match source {
        EmailClaims {
            email: Some(email),
            verified: Some(true),
        } => Ok(email),
        _ => Err(OidcError::NoIdentity(
            "a verified e-mail address".to_owned(),
        )),
    }
}

/// Whether an account is of one of the `allowed` domains (when none are
/// set, every account is): by its hosted domain `hd` when the provider
/// names one (Google, for a Workspace account), otherwise by the domain of
/// its verified e-mail address (asked only then); compared without regard
/// to case.
pub(crate) fn admitted(
    allowed: &[AllowedDomain],
    hd: Option<&str>,
    verified_email: impl FnOnce() -> Result<String, OidcError>,
) -> Result<(), OidcError> {
    if allowed.is_empty() {
        return Ok(());
    }
    let domain = match hd {
        Some(hd) => hd.to_owned(),
        None => verified_email()?
            .rsplit_once('@')
            .map(|(_, domain)| domain.to_owned())
            .ok_or_else(|| OidcError::NoIdentity("the domain of your account".to_owned()))?,
    }
    .trim()
    .to_ascii_lowercase();
    if allowed.iter().any(|a| a.as_str() == domain) {
        Ok(())
    } else {
        Err(OidcError::OutsideDomains(domain))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(email: Option<&str>, verified: Option<bool>) -> EmailClaims {
        EmailClaims {
            email: email.map(str::to_owned),
            verified,
        }
    }

    fn not_asked() -> Result<EmailClaims, OidcError> {
        panic!("UserInfo was asked although the ID token held both claims")
    }

    #[test]
    fn only_claims_the_provider_assigns_name_a_person() {
        assert_eq!(ExternalIdClaim::parse("sub"), Ok(ExternalIdClaim::Sub));
        assert_eq!(ExternalIdClaim::parse(" oid "), Ok(ExternalIdClaim::Oid));
        for refused in [
            "preferred_username",
            "email",
            "employee_id",
            "upn",
            "OID",
            "",
        ] {
            let why = ExternalIdClaim::parse(refused).unwrap_err();
            assert!(why.contains("`sub` or `oid` alone"), "{refused}: {why}");
            assert!(!why.contains('\n'), "one line: {why}");
        }
    }

    #[test]
    fn the_address_and_its_verification_come_from_one_source() {
        let verified = pair(Some("ada@example.com"), Some(true));
        assert_eq!(
            verified_email(verified.clone(), not_asked).as_deref(),
            Ok("ada@example.com")
        );
        // The ID token's own "not verified" is not overruled by UserInfo.
        let unverified = pair(Some("ada@example.com"), Some(false));
        assert!(verified_email(unverified, not_asked).is_err());
        // An address without its verification in the ID token is not
        // completed by UserInfo's verification of another address.
        let other = || Ok(pair(Some("mallory@elsewhere.example"), Some(true)));
        assert_eq!(
            verified_email(pair(Some("ada@example.com"), None), other).as_deref(),
            Ok("mallory@elsewhere.example")
        );
        assert_eq!(
            verified_email(pair(None, Some(true)), other).as_deref(),
            Ok("mallory@elsewhere.example")
        );
        let half = || Ok(pair(None, Some(true)));
        assert!(verified_email(pair(Some("ada@example.com"), None), half).is_err());
        let unverified = || Ok(pair(Some("ada@example.com"), None));
        assert!(verified_email(pair(None, Some(true)), unverified).is_err());
        let down = || Err(OidcError::Unreachable("down".to_owned()));
        assert_eq!(
            verified_email(EmailClaims::default(), down),
            Err(OidcError::Unreachable("down".to_owned()))
        );
    }

    #[test]
    fn a_domain_is_a_host_name_in_lower_case() {
        assert_eq!(
            AllowedDomain::parse(" Example.COM ").unwrap().as_str(),
            "example.com"
        );
        assert!(AllowedDomain::parse("xn--bcher-kva.example").is_ok());
        for refused in [
            "",
            "@example.com",
            "ada@example.com",
            "*.example.com",
            "https://example.com",
            "example.com.",
            ".example.com",
            "-example.com",
            "exa mple.com",
            "bücher.example",
        ] {
            assert!(AllowedDomain::parse(refused).is_err(), "{refused}");
        }
        assert!(AllowedDomain::parse(&format!("{}.com", "a".repeat(64))).is_err());
    }

    fn address(email: &str) -> impl FnOnce() -> Result<String, OidcError> + '_ {
        move || Ok(email.to_owned())
    }

    fn no_address() -> Result<String, OidcError> {
        panic!("the address was asked although it decides nothing")
    }

    #[test]
    fn the_hosted_domain_decides_and_else_the_address() {
        let allowed = [
            AllowedDomain::parse("example.com").unwrap(),
            AllowedDomain::parse("example.org").unwrap(),
        ];
        assert_eq!(admitted(&[], None, no_address), Ok(()));
        assert_eq!(admitted(&[], Some("elsewhere.example"), no_address), Ok(()));
        assert_eq!(admitted(&allowed, None, address("ada@Example.ORG")), Ok(()));
        assert_eq!(admitted(&allowed, Some("EXAMPLE.com"), no_address), Ok(()));
        assert_eq!(
            admitted(&allowed, None, address("mallory@elsewhere.example")),
            Err(OidcError::OutsideDomains("elsewhere.example".to_owned()))
        );
        // The hosted domain outranks the address, whichever it names.
        assert_eq!(
            admitted(&allowed, Some("elsewhere.example"), no_address),
            Err(OidcError::OutsideDomains("elsewhere.example".to_owned()))
        );
        // A subdomain is another domain.
        assert!(admitted(&allowed, None, address("ada@mail.example.com")).is_err());
        assert!(admitted(&allowed, None, address("no address")).is_err());
        let unverified = || {
            Err(OidcError::NoIdentity(
                "a verified e-mail address".to_owned(),
            ))
        };
        assert_eq!(
            admitted(&allowed, None, unverified),
            Err(OidcError::NoIdentity(
                "a verified e-mail address".to_owned()
            ))
        );
    }
}
