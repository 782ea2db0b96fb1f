//! `kenning token` and `kenning apikey`: issue, list and revoke the
//! credentials of the GraphQL API and of connectors.

use std::io::Write as _;

use clap::Subcommand;
use kenning::Services;
use kenning_app::{id_of_secret, Credential, ServiceError};
use kenning_domain::{CredentialKind, Lifetime, Scope};
use uuid::Uuid;

#[derive(Debug, Subcommand)]
pub(crate) enum TokenCommand {
    /// Issue a token; prints the secret alone on stdout, once.
    Create {
        #[arg(long)]
        name: String,
        /// users:read, users:write, expertise:read, audit:read,
        /// webhooks:manage or administrators:write (issued here only);
        /// repeat for several (none: all scopes).
        #[arg(long = "scope")]
        scopes: Vec<Scope>,
        /// Accepted for this many days (1 to 3650); without: until revoked.
        #[arg(long, value_parser = parse_lifetime)]
        expires_in_days: Option<Lifetime>,
    },
    /// List tokens (never their secrets).
    List,
    /// Revoke a token by its id or its secret; running servers refuse it
    /// within a second.
    Revoke {
        #[arg(value_name = "ID_OR_SECRET", value_parser = token_id)]
        id: Uuid,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ApikeyCommand {
    /// Issue a connector API key; prints the secret alone on stdout, once.
    Create {
        #[arg(long)]
        name: String,
        /// Accepted for this many days (1 to 3650); without: until revoked.
        #[arg(long, value_parser = parse_lifetime)]
        expires_in_days: Option<Lifetime>,
    },
    /// List API keys (never their secrets).
    List,
    /// Revoke an API key by its id or its secret; running servers refuse
    /// it within a second.
    Revoke {
        #[arg(value_name = "ID_OR_SECRET", value_parser = key_id)]
        id: Uuid,
    },
}

/// A credential's id, as listed, or the id its secret names.
fn credential_id(kind: CredentialKind, raw: &str) -> Result<Uuid, String> {
    Uuid::try_parse(raw.trim())
        .ok()
        .or_else(|| id_of_secret(kind, raw))
        .ok_or_else(|| {
            format!(
                "not an id (as `list` shows) nor the secret of an {}",
                match kind {
                    CredentialKind::AccessToken => "access token (kn_tok_...)",
                    CredentialKind::ApiKey => "API key (kn_key_...)",
                }
            )
        })
}

fn token_id(raw: &str) -> Result<Uuid, String> {
    credential_id(CredentialKind::AccessToken, raw)
}

fn key_id(raw: &str) -> Result<Uuid, String> {
    credential_id(CredentialKind::ApiKey, raw)
}

pub(crate) fn create(
    services: &Services,
    kind: CredentialKind,
    name: &str,
    scopes: &[Scope],
    lifetime: Option<Lifetime>,
) -> anyhow::Result<()> {
    let issued = services.credentials.issue(kind, name, scopes, lifetime)?;
    eprintln!(
        "issued {} {} ({}); the secret is shown only now:",
        kind.as_str(),
        issued.credential.id,
        issued.credential.name
    );
    println!("{}", issued.secret);
    Ok(())
}

pub(crate) fn list(services: &Services, kind: CredentialKind) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "ID\tNAME\tSCOPES\tCREATED\tREVOKED")?;
    for c in services.credentials.list(kind)? {
        writeln!(out, "{}", row(&c))?;
    }
    Ok(())
}

fn row(c: &Credential) -> String {
    let scopes: Vec<&str> = c.scopes.iter().map(Scope::as_str).collect();
    format!(
        "{}\t{}\t{}\t{}\t{}",
        c.id,
        c.name,
        if scopes.is_empty() {
            "-".to_owned()
        } else {
            scopes.join(",")
        },
        c.created.to_rfc3339(),
        c.revoked
            .map(|r| r.to_rfc3339())
            .unwrap_or_else(|| "-".to_owned())
    )
}

pub(crate) fn revoke(services: &Services, kind: CredentialKind, id: Uuid) -> anyhow::Result<()> {
    match services.credentials.revoke(kind, id) {
        Err(ServiceError::NotFound(_)) => {
            anyhow::bail!("no live {} has the id {id}", kind.as_str())
        }
        other => other?,
    }
    eprintln!("revoked {} {id}", kind.as_str());
    Ok(())
}

/// A credential's lifetime, as `--expires-in-days` gives it: 1 to 3650
/// days.
fn parse_lifetime(raw: &str) -> Result<Lifetime, String> {
    match Lifetime::read(raw) {
        Ok(Some(lifetime)) => Ok(lifetime),
        Ok(None) => Err("a number of days is required".to_owned()),
        Err(violation) => Err(violation.rule.to_string()),
    }
}
