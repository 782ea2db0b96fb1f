//! A person's say over their own data: the download of everything kept
//! about them, their switch for learning, and forgetting what was learned.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_app::ServiceError;
use serde_json::Value;

use crate::forms::{blocking, see_other, Form};
use crate::render::{internal_error, message_page, respond};
use crate::session::signed_in;
use crate::state::Web;
use crate::view::Chrome;

/// The name a person's data is downloaded under.
const DATA_FILE: &str = "kenning-my-data.json";

/// A JSON file of everything kept about a person, `data`, downloaded
/// under the name `file`: the answer of `/me/data` and of the admin
/// console's download alike.
pub(crate) fn data_download(data: &Value, file: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file}\""),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(data.to_string())
}

/// What a learning form asks: `learning=on` to learn from the person's
/// activity, `learning=off` not to; `None` for anything else.
pub(crate) fn learning_asked(form: &Form) -> Option<bool> {
    match form.value("learning").as_str() {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// Whether a forgetting form carries its page's confirmation.
pub(crate) fn forgetting_confirmed(form: &Form) -> bool {
    form.value("confirm") == "yes"
}

/// The page that hands out a person's own data.
#[derive(Template)]
#[template(path = "data.html")]
struct DataPage {
    chrome: Chrome,
}

/// `GET /me/data`: what the download holds, and the button that hands
/// it out. Opening it records nothing, so a link from another site cannot
/// make the trail say the data was handed out.
pub(crate) async fn confirm_download(req: HttpRequest, app: web::Data<Web>) -> HttpResponse {
    match signed_in(&req, &app).await {
        Ok(person) => respond(
            StatusCode::OK,
            &DataPage {
                chrome: Chrome::of(Some(&person)),
            },
        ),
        Err(response) => response,
    }
}

/// `POST /me/data`, the button of `/me`: everything Kenning keeps about
/// the signed-in person, as a JSON file; the hand-out is in the audit
/// trail.
pub(crate) async fn download(
    req: HttpRequest,
    app: web::Data<Web>,
    body: web::Bytes,
) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    if let Some(refused) = Form::parse(&body).refusal(&req, &app, &person) {
        return refused;
    }
    let acting = person.use_cases(&app);
    let id = person.user().id();
    let exported = blocking(move || acting.privacy.export(id)).await;
    match exported {
        Ok(Ok(data)) => data_download(&data, DATA_FILE),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(response) => response,
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
    let form = Form::parse(&body);
    if let Some(refused) = form.refusal(&req, &app, &person) {
        return refused;
    }
    let Some(choice) = learning_asked(&form) else {
        return message_page(
            StatusCode::BAD_REQUEST,
            Chrome::of(Some(&person)),
            "On or off?",
            "The form said neither to start nor to stop learning. Go back to your profile and \
             use its button.",
        );
    };
    let acting = person.use_cases(&app);
    let id = person.user().id();
    let changed = blocking(move || acting.privacy.set_learning(id, Some(choice))).await;
    after_change(&person, changed, "/me#your-data")
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
    let form = Form::parse(&body);
    if let Some(refused) = form.refusal(&req, &app, &person) {
        return refused;
    }
    if !forgetting_confirmed(&form) {
        return message_page(
            StatusCode::BAD_REQUEST,
            Chrome::of(Some(&person)),
            "Nothing was forgotten",
            "Forgetting needs the confirmation on its page. Go back and confirm it.",
        );
    }
    let acting = person.use_cases(&app);
    let id = person.user().id();
    let forgotten = blocking(move || acting.privacy.forget(id)).await;
    after_change(&person, forgotten, "/me")
}

/// A redirect to `next` after a change that worked, else the page that
/// says why it did not.
fn after_change<T>(
    person: &crate::visitor::Visitor,
    outcome: Result<Result<T, ServiceError>, HttpResponse>,
    next: &str,
) -> HttpResponse {
    match outcome {
        Ok(Ok(_)) => see_other(next),
        Ok(Err(ServiceError::Forbidden(why))) => message_page(
            StatusCode::FORBIDDEN,
            Chrome::of(Some(person)),
            "Not yours to change",
            &why,
        ),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(response) => response,
    }
}
