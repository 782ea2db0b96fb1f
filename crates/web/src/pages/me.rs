//! The signed-in person's own profile, with a button per topic to hide it
//! and one per hidden topic to show it again.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use kenning_app::ServiceError;
use kenning_domain::Rule;

use crate::forms;
use crate::render::{internal_error, message_page, respond};
use crate::session::signed_in;
use crate::state::Web;
use crate::view::Chrome;

/// `GET /me`.
pub(crate) async fn page(req: HttpRequest, app: web::Data<Web>) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let acting = person.use_cases(&app);
    let me = person.clone();
    match web::block(move || super::person::profile(&acting, &me, &me.user, true, None)).await {
        Ok(Ok(profile)) => respond(StatusCode::OK, &profile),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}

/// `POST /me/topics`: hides the topic `topic` (`hidden=true`) or shows it
/// again (`hidden=false`), then back to `/me`.
pub(crate) async fn change_topic(
    req: HttpRequest,
    app: web::Data<Web>,
    body: web::Bytes,
) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let mut csrf = String::new();
    let mut topic = None;
    let mut hidden = None;
    for (name, value) in url::form_urlencoded::parse(&body) {
        match name.as_ref() {
            "csrf" => csrf = value.into_owned(),
            "topic" => topic = Some(value.into_owned()),
            "hidden" => hidden = Some(value == "true"),
            _ => {}
        }
    }
    if let Some(refused) = forms::refusal(&req, &app, &person, &csrf) {
        return refused;
    }
    let (Some(topic), Some(hidden)) = (topic.filter(|t| !t.trim().is_empty()), hidden) else {
        return message_page(
            StatusCode::BAD_REQUEST,
            Chrome::of(Some(&person)),
            "Which topic?",
            "The form named no topic, or not whether to hide or show it. Go back to your \
             profile and use its buttons.",
        );
    };
    let acting = person.use_cases(&app);
    let id = person.user.id();
    let changed = web::block(move || acting.expertise.set_topic_hidden(id, &topic, hidden)).await;
    match changed {
        Ok(Ok(_)) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/me"))
            .finish(),
        Ok(Err(ServiceError::Forbidden(why))) => message_page(
            StatusCode::FORBIDDEN,
            Chrome::of(Some(&person)),
            "Not yours to change",
            &why,
        ),
        Ok(Err(ServiceError::Validation(e))) => {
            let (title, text) = match &e.first().rule {
                Rule::TooMany { max } => (
                    "You hide as many topics as you may",
                    format!(
                        "A person hides at most {max} topics. Show one of them again, then \
                         hide this one."
                    ),
                ),
                Rule::TooLong { limit } => (
                    "Which topic?",
                    format!(
                        "A topic is named in at most {limit} characters; use your profile's \
                         buttons to hide one."
                    ),
                ),
                _ => ("Which topic?", e.to_string()),
            };
            message_page(
                StatusCode::BAD_REQUEST,
                Chrome::of(Some(&person)),
                title,
                &text,
            )
        }
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}
