//! Credentials (`/admin/credentials`): access tokens and API keys listed,
//! issued (the secret shown once, on the answer) and revoked, through the
//! use cases the command line uses.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use kenning_app::{Credential, Missing, ServiceError};
use kenning_domain::{CredentialKind, Lifetime, Scope};
use uuid::Uuid;

use super::profile::Field;
use super::{blocking, failure, see_other, Admin, Form, Posted, Problems};
use crate::render::respond;
use crate::state::Web;
use crate::view::Chrome;
use crate::visitor::Visitor;

/// The kinds, in the order listed, with their headings.
const KINDS: [(CredentialKind, &str); 2] = [
    (CredentialKind::AccessToken, "Access tokens"),
    (CredentialKind::ApiKey, "API keys"),
];

/// A credential as the page lists it.
#[derive(Debug)]
struct Row {
    id: String,
    name: String,
    scopes: String,
    created: String,
    state: String,
    live: bool,
    /// Where it was issued.
    issuer: &'static str,
}

/// How long a token issued here is accepted unless the form says
/// otherwise, in days.
const DEFAULT_LIFETIME_DAYS: &str = "90";

impl Row {
    fn of(c: &Credential) -> Self {
        let at = |t: chrono::DateTime<chrono::Utc>| t.format("%-d %b %Y %H:%M UTC").to_string();
        Self {
            id: c.id.to_string(),
            name: c.name.clone(),
            scopes: c
                .scopes
                .iter()
                .map(Scope::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            created: at(c.created),
            state: match (c.revoked, c.expires) {
                (Some(r), _) => format!("revoked {}", at(r)),
                (None, Some(e)) => format!("live until {}", at(e)),
                (None, None) => "live, without end".to_owned(),
            },
            live: c.revoked.is_none(),
            issuer: match c.issued_by {
                Some(_) => "in the console",
                None => "at the command line",
            },
        }
    }
}

#[derive(Template)]
#[template(path = "admin/credentials.html")]
struct CredentialsPage {
    chrome: Chrome,
    section: &'static str,
    lists: Vec<(&'static str, &'static str, Vec<Row>)>,
    api_key: bool,
    name: Field,
    lifetime: Field,
    scopes: Vec<(&'static str, bool)>,
    problems: Problems,
}

/// The kind a form or path names (`token` or `apikey`).
fn kind(raw: &str) -> Option<CredentialKind> {
    KINDS
        .iter()
        .map(|(kind, _)| *kind)
        .find(|kind| kind.as_str() == raw)
}

/// The lists, and the form to issue one as `form` wrote it.
async fn list(app: &Web, visitor: &Visitor, form: &Form, problems: Problems) -> HttpResponse {
    let acting = visitor.use_cases(app);
    let issuable = acting.credentials.issuable_scopes();
    let read = blocking(move || {
        let credentials = acting.credentials;
        KINDS
            .iter()
            .map(|(kind, heading)| {
                let rows = credentials.list(*kind)?.iter().rev().map(Row::of).collect();
                Ok((*heading, kind.as_str(), rows))
            })
            .collect::<Result<Vec<_>, ServiceError>>()
    })
    .await;
    let lists = match read {
        Ok(Ok(lists)) => lists,
        Ok(Err(e)) => return failure(visitor, &e),
        Err(response) => return response,
    };
    let written = form.values("scope");
    let status = problems.status();
    respond(
        status,
        &CredentialsPage {
            chrome: Chrome::of(Some(visitor)),
            section: "credentials",
            lists,
            api_key: form.value("kind") == CredentialKind::ApiKey.as_str(),
            name: Field::text("name", "Name", form.value("name"), &problems),
            lifetime: Field::text(
                "expiresInDays",
                "Expires after this many days (empty: never)",
                if form.is_empty() {
                    DEFAULT_LIFETIME_DAYS.to_owned()
                } else {
                    form.value("expiresInDays")
                },
                &problems,
            ),
            scopes: issuable
                .iter()
                .map(|s| (s.as_str(), written.iter().any(|w| w == s.as_str())))
                .collect(),
            problems,
        },
    )
}

/// `GET /admin/credentials`, newest first.
pub(crate) async fn page(app: web::Data<Web>, Admin(visitor): Admin) -> HttpResponse {
    list(&app, &visitor, &Form::default(), Problems::default()).await
}

#[derive(Template)]
#[template(path = "admin/issued.html")]
struct IssuedPage {
    chrome: Chrome,
    section: &'static str,
    kind: &'static str,
    name: String,
    secret: String,
}

/// `POST /admin/credentials`: issues a credential and answers with its
/// secret, this once (the page is never cached, and reloading it asks to
/// send the form again rather than showing the secret again).
pub(crate) async fn issue(app: web::Data<Web>, Posted(visitor, form): Posted) -> HttpResponse {
    let Some(kind) = kind(&form.value("kind")) else {
        let problems = Problems {
            general: Some("Choose the kind: an access token or an API key.".to_owned()),
            ..Problems::default()
        };
        return list(&app, &visitor, &form, problems).await;
    };
    // An unknown scope is refused by name: left out, a form naming only
    // unknown scopes would ask for none, which means every scope.
    let mut scopes: Vec<Scope> = Vec::new();
    for written in form.values("scope") {
        let Ok(scope) = written.parse() else {
            let problems = Problems {
                general: Some(format!(
                    "\u{201c}{written}\u{201d} is no scope Kenning knows: choose among the scopes listed."
                )),
                ..Problems::default()
            };
            return list(&app, &visitor, &form, problems).await;
        };
        scopes.push(scope);
    }
    let name = form.value("name");
    let lifetime = match Lifetime::read(&form.value("expiresInDays")) {
        Ok(lifetime) => lifetime,
        Err(violation) => {
            let refusal = ServiceError::Validation(violation.into());
            let problems = Problems::of_refusal(&refusal).unwrap_or_default();
            return list(&app, &visitor, &form, problems).await;
        }
    };
    let acting = visitor.use_cases(&app);
    match blocking(move || acting.credentials.issue(kind, &name, &scopes, lifetime)).await {
        Ok(Ok(issued)) => respond(
            StatusCode::OK,
            &IssuedPage {
                chrome: Chrome::of(Some(&visitor)),
                section: "credentials",
                kind: match kind {
                    CredentialKind::AccessToken => "Access token",
                    CredentialKind::ApiKey => "API key",
                },
                name: issued.credential.name,
                secret: issued.secret,
            },
        ),
        Ok(Err(e)) => match Problems::of_refusal(&e) {
            Some(problems) => list(&app, &visitor, &form, problems).await,
            None => failure(&visitor, &e),
        },
        Err(response) => response,
    }
}

/// `POST /admin/credentials/{kind}/{id}/revoke`.
pub(crate) async fn revoke(
    app: web::Data<Web>,
    Posted(visitor, _): Posted,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    let (kind_name, id) = path.into_inner();
    let (Some(kind), Ok(id)) = (kind(&kind_name), Uuid::try_parse(&id)) else {
        return failure(&visitor, &ServiceError::NotFound(Missing::Credential));
    };
    let acting = visitor.use_cases(&app);
    match blocking(move || acting.credentials.revoke(kind, id)).await {
        Ok(Ok(())) => see_other("/admin/credentials"),
        Ok(Err(e)) => failure(&visitor, &e),
        Err(response) => response,
    }
}
