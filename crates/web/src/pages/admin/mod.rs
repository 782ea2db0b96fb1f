//! The admin console under `/admin`: users, groups, the audit trail,
//! credentials, the sources connectors read, the rules on learning and
//! what people ask that nobody knows, for administrators (the ACTIVE members of the group
//! `--admin-group` names). Anyone else signed in gets a 403 page on every
//! path, read or form. The pages call the same use cases as the API, as
//! an administrator ([`kenning_app::Caller::is_administrator`]), their changes recorded as the person's; a
//! refusal's field problems are shown beside the fields.

pub(crate) mod audit;
pub(crate) mod credentials;
pub(crate) mod gaps;
pub(crate) mod groups;
mod profile;
pub(crate) mod rules;
pub(crate) mod sources;
pub(crate) mod user;
pub(crate) mod user_privacy;
pub(crate) mod users;

use std::future::Future;
use std::pin::Pin;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest, HttpResponse};
use kenning_app::ServiceError;
use kenning_domain::UserId;
use uuid::Uuid;

pub(crate) use crate::forms::{blocking, see_other, Form};
use crate::render::{internal_error, message_page};
use crate::session::signed_in;
use crate::state::Web;
use crate::view::Chrome;
pub(crate) use crate::visitor::Visitor;

/// The user the path's `id` names; `None` when it names none.
pub(crate) fn user_id(id: &str) -> Option<UserId> {
    Uuid::try_parse(id).ok().map(UserId::from_uuid)
}

/// The administrator signed in on `req`, or the answer for anyone else:
/// the sign-in page for nobody signed in, the 403 page for a person who
/// is no administrator now.
async fn administrator(req: &HttpRequest, app: &web::Data<Web>) -> Result<Visitor, HttpResponse> {
    let visitor = signed_in(req, app).await?;
    if visitor.is_administrator() {
        return Ok(visitor);
    }
    let text = match app.gate.administrators_group() {
        Some(group) => format!(
            "The admin console is for administrators: the active members of {group}. \
             Ask one of them to add you to it."
        ),
        None => "The admin console is for administrators, and nobody is one yet: whoever runs \
                 Kenning names the group whose active members are, with the setting \
                 --admin-group (the group's id or externalId; or the environment variable \
                 KENNING_ADMIN_GROUP), and restarts it."
            .to_owned(),
    };
    Err(message_page(
        StatusCode::FORBIDDEN,
        Chrome::of(Some(&visitor)),
        "Only for administrators",
        &text,
    ))
}

/// The administrator and the form of a `POST` to the console, read once
/// the console's guard let the request through; a form not sent from the
/// session's own pages is refused before the page sees it.
#[derive(Debug)]
pub(crate) struct Posted(pub(crate) Visitor, pub(crate) Form);

impl FromRequest for Posted {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let admin = Admin::from_request(&req, payload);
        let body = web::Bytes::from_request(&req, payload);
        Box::pin(async move {
            let Admin(visitor) = admin.await?;
            let form = Form::parse(&body.await?);
            let Some(app) = req.app_data::<web::Data<Web>>() else {
                let missing = internal_error("the web app's state is missing");
                return Err(InternalError::from_response("no state", missing).into());
            };
            match form.refusal(&req, app, &visitor) {
                Some(refused) => Err(InternalError::from_response("refused form", refused).into()),
                None => Ok(Posted(visitor, form)),
            }
        })
    }
}

/// The console's one guard, around every path under `/admin`: the
/// request goes on to its page only for an administrator signed in, who
/// the page then reads as [`Admin`]; anyone else gets the answer
/// [`administrator`] gives instead.
pub(crate) async fn administrators_only<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let Some(app) = req.app_data::<web::Data<Web>>().cloned() else {
        let refused = internal_error("the web app's state is missing");
        return Ok(req.into_response(refused).map_into_right_body());
    };
    match administrator(req.request(), &app).await {
        Ok(visitor) => {
            req.extensions_mut().insert(visitor);
            Ok(next.call(req).await?.map_into_left_body())
        }
        Err(answer) => Ok(req.into_response(answer).map_into_right_body()),
    }
}

/// The administrator a console page is for, as [`administrators_only`]
/// let the request through.
#[derive(Debug, Clone)]
pub(crate) struct Admin(pub(crate) Visitor);

impl FromRequest for Admin {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let visitor = req.extensions().get::<Visitor>().cloned();
        std::future::ready(visitor.map(Admin).ok_or_else(|| {
            InternalError::from_response(
                "no guard",
                internal_error("a console page was reached without the console's guard"),
            )
            .into()
        }))
    }
}

/// What a refused form shows: each field's problem beside the field (by
/// the public name the use case gave it), and what concerns the whole
/// form above it.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    fields: Vec<(String, String)>,
    /// What concerns the whole form.
    pub(crate) general: Option<String>,
}

impl Problems {
    /// The problems of the refusal `e`, when a form can show them; `None`
    /// for a refusal that needs a page of its own ([`failure`]).
    pub(crate) fn of_refusal(e: &ServiceError) -> Option<Self> {
        match e {
            ServiceError::Validation(errors) => Some(Self {
                fields: errors
                    .violations()
                    .iter()
                    .map(|v| (v.field.to_string(), v.rule.to_string()))
                    .collect(),
                general: Some("Nothing was changed: correct the fields marked below.".to_owned()),
            }),
            ServiceError::Conflict { resource, field } => Some(Self {
                fields: vec![(
                    (*field).to_owned(),
                    format!("is already used by another {resource}"),
                )],
                general: Some("Nothing was changed: correct the fields marked below.".to_owned()),
            }),
            ServiceError::StaleVersion { .. }
            | ServiceError::InvalidTransition { .. }
            | ServiceError::GracePeriodExpired { .. }
            | ServiceError::Forbidden(_) => Some(Self {
                fields: Vec::new(),
                general: Some(format!("Nothing was changed: {e}.")),
            }),
            _ => None,
        }
    }

    /// The status of a page showing these problems: 422 when a form was
    /// refused, else 200.
    pub(crate) fn status(&self) -> StatusCode {
        if self.general.is_some() {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            StatusCode::OK
        }
    }

    /// A problem of the field `field` alone.
    pub(crate) fn of_field(field: &str, problem: String) -> Self {
        Self {
            fields: vec![(field.to_owned(), problem)],
            general: None,
        }
    }

    /// The problem of the field `field` (its public name), if it has one.
    pub(crate) fn of(&self, field: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(name, _)| name == field)
            .map(|(_, problem)| problem.as_str())
    }
}

/// The page of a refusal no form shows: no such thing (404), a change
/// refused (409), anything else the 500 page.
pub(crate) fn failure(visitor: &Visitor, e: &ServiceError) -> HttpResponse {
    let chrome = Chrome::of(Some(visitor));
    match e {
        ServiceError::NotFound(missing) => message_page(
            StatusCode::NOT_FOUND,
            chrome,
            "There is no such thing",
            &format!("{missing}. Start again from the admin console."),
        ),
        ServiceError::Forbidden(why) => {
            message_page(StatusCode::FORBIDDEN, chrome, "Not allowed", why)
        }
        ServiceError::Validation(_)
        | ServiceError::Conflict { .. }
        | ServiceError::StaleVersion { .. }
        | ServiceError::InvalidTransition { .. }
        | ServiceError::GracePeriodExpired { .. } => message_page(
            StatusCode::CONFLICT,
            chrome,
            "Nothing was changed",
            &e.to_string(),
        ),
        other => internal_error(&other.log_message()),
    }
}

/// Any other path under `/admin`, by any method: the console's 403 page
/// for anyone but an administrator, else the page that does not exist.
pub(crate) async fn elsewhere(Admin(visitor): Admin) -> HttpResponse {
    message_page(
        StatusCode::NOT_FOUND,
        Chrome::of(Some(&visitor)),
        "There is no such page",
        "Check the address, or choose a page of the admin console.",
    )
}

/// The query string of `req` as name and value pairs; anything malformed
/// reads as absent.
pub(crate) fn query(req: &HttpRequest) -> Form {
    Form::parse(req.query_string().as_bytes())
}
