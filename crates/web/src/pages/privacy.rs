//! A person's say over their own data: the download of everything kept
//! about them, their switch for learning, and forgetting what was learned.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_app::{Caller, Operation, ServiceError};

use crate::forms;
use crate::render::{internal_error, message_page, respond};
use crate::session::signed_in;
use crate::state::Web;
use crate::view::Chrome;

/// The name a person's data is downloaded under.
const DATA_FILE: &str = "kenning-my-data.json";

/// The fields of a form, by name (the last of a name wins).
fn fields(body: &[u8]) -> std::collections::HashMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

/// `GET /me/data`: everything Kenning keeps about the signed-in person,
/// as a JSON file; the hand-out is in the audit trail.
pub(crate) async fn download(req: HttpRequest, app: web::Data<Web>) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let worker = app.clone();
    let me = person.clone();
    let exported = web::block(move || {
        let id = me.user.id();
        Caller::Person(id).require(Operation::ReadDataOf(id))?;
        worker.privacy.acting_as(me.actor()).export(id)
    })
    .await;
    match exported {
        Ok(Ok(data)) => HttpResponse::Ok()
            .content_type("application/json")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{DATA_FILE}\""),
            ))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .body(data.to_string()),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}

/// `POST /me/learning`: `learning=off` stops learning from the person's
/// activity, `learning=on` starts it again; then back to `/me`.
pub(crate) async fn set_learning(
    req: HttpRequest,
    app: web::Data<Web>,
    body: web::Bytes,
) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let form = fields(&body);
    let csrf = form.get("csrf").map(String::as_str).unwrap_or_default();
    if let Some(refused) = forms::refusal(&req, &app, &person, csrf) {
        return refused;
    }
    let choice = match form.get("learning").map(String::as_str) {
        Some("on") => true,
        Some("off") => false,
        _ => {
            return message_page(
                StatusCode::BAD_REQUEST,
                Chrome::of(Some(&person)),
                "On or off?",
                "The form said neither to start nor to stop learning. Go back to your profile \
                 and use its button.",
            )
        }
    };
    let worker = app.clone();
    let me = person.clone();
    let changed = web::block(move || {
        let id = me.user.id();
        Caller::Person(id).require(Operation::ChangeLearningOf(id))?;
        worker
            .privacy
            .acting_as(me.actor())
            .set_learning(id, Some(choice))
    })
    .await;
    after_change(&person, changed.map_err(|e| e.to_string()), "/me#your-data")
}

/// The confirmation page before forgetting.
#[derive(Template)]
#[template(path = "forget.html")]
struct ForgetPage {
    chrome: Chrome,
}

/// `GET /me/forget`: what forgetting erases, and the button that does it.
pub(crate) async fn confirm_forget(req: HttpRequest, app: web::Data<Web>) -> HttpResponse {
    match signed_in(&req, &app).await {
        Ok(person) => respond(
            StatusCode::OK,
            &ForgetPage {
                chrome: Chrome::of(Some(&person)),
            },
        ),
        Err(response) => response,
    }
}

/// `POST /me/forget` with `confirm=yes`: erases the person's actions and
/// topics; then back to `/me`.
pub(crate) async fn forget(
    req: HttpRequest,
    app: web::Data<Web>,
    body: web::Bytes,
) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let form = fields(&body);
    let csrf = form.get("csrf").map(String::as_str).unwrap_or_default();
    if let Some(refused) = forms::refusal(&req, &app, &person, csrf) {
        return refused;
    }
    if form.get("confirm").map(String::as_str) != Some("yes") {
        return message_page(
            StatusCode::BAD_REQUEST,
            Chrome::of(Some(&person)),
            "Nothing was forgotten",
            "Forgetting needs the confirmation on its page. Go back and confirm it.",
        );
    }
    let worker = app.clone();
    let me = person.clone();
    let forgotten = web::block(move || {
        let id = me.user.id();
        Caller::Person(id).require(Operation::ChangeLearningOf(id))?;
        worker.privacy.acting_as(me.actor()).forget(id)
    })
    .await;
    after_change(&person, forgotten.map_err(|e| e.to_string()), "/me")
}

/// A redirect to `next` after a change that worked, else the page that
/// says why it did not.
fn after_change<T>(
    person: &crate::visitor::Visitor,
    outcome: Result<Result<T, ServiceError>, String>,
    next: &str,
) -> HttpResponse {
    match outcome {
        Ok(Ok(_)) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, next))
            .finish(),
        Ok(Err(ServiceError::Forbidden(why))) => message_page(
            StatusCode::FORBIDDEN,
            Chrome::of(Some(person)),
            "Not yours to change",
            &why,
        ),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e),
    }
}
