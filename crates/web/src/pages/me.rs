//! The signed-in person's own profile, with a button per topic to hide it
//! and one per hidden topic to show it again, and the topics they say
//! they know, to add and remove.

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
    let notice = held_notice(&req);
    match web::block(move || super::person::profile(&acting, &me, me.user(), true, None)).await {
        Ok(Ok(mut profile)) => {
            profile.done = notice;
            respond(StatusCode::OK, &profile)
        }
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}

/// What `/me?hid=N` (or `?shown=N`) says after a subject was hidden (or
/// shown) with `N` other topics that hold it.
fn held_notice(req: &HttpRequest) -> Option<String> {
    let query =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()?;
    let (done, n) = [("hid", "Hidden"), ("shown", "Shown again")]
        .into_iter()
        .find_map(|(name, done)| Some((done, query.get(name)?.parse::<usize>().ok()?)))?;
    Some(match n {
        0 => format!("{done}."),
        1 => format!("{done}, with 1 other topic that holds the same subject."),
        n => format!("{done}, with {n} other topics that hold the same subject."),
    })
}

/// `POST /me/topics`: hides the subject `topic` (`hidden=true`) with the
/// person's topics that hold it, or shows it again (`hidden=false`), then
/// back to `/me`, which says how many topics went with it.
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
    let id = person.user().id();
    let changed = web::block(move || acting.expertise.set_topic_hidden(id, &topic, hidden)).await;
    match changed {
        Ok(Ok(done)) => {
            let others = done.changed.len().saturating_sub(1);
            let location = format!("/me?{}={others}", if hidden { "hid" } else { "shown" });
            HttpResponse::SeeOther()
                .insert_header((header::LOCATION, location))
                .finish()
        }
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

/// `POST /me/declared`: adds the topic `topic` to those the person says
/// they know, or removes the one of key `key`, then back to `/me`.
pub(crate) async fn declare(
    req: HttpRequest,
    app: web::Data<Web>,
    body: web::Bytes,
) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let mut csrf = String::new();
    let (mut topic, mut key) = (None, None);
    for (name, value) in url::form_urlencoded::parse(&body) {
        match name.as_ref() {
            "csrf" => csrf = value.into_owned(),
            "topic" => topic = Some(value.into_owned()),
            "key" => key = Some(value.into_owned()),
            _ => {}
        }
    }
    if let Some(refused) = forms::refusal(&req, &app, &person, &csrf) {
        return refused;
    }
    let acting = person.use_cases(&app);
    let id = person.user().id();
    let changed = match (topic, key) {
        (Some(topic), None) => web::block(move || acting.expertise.declare_topic(id, &topic)).await,
        (None, Some(key)) => web::block(move || acting.expertise.withdraw_topic(id, &key)).await,
        _ => {
            return message_page(
                StatusCode::BAD_REQUEST,
                Chrome::of(Some(&person)),
                "Which topic?",
                "The form named no topic to add or to remove. Go back to your profile and use \
                 its form.",
            )
        }
    };
    match changed {
        Ok(Ok(_)) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/me#says-they-know"))
            .finish(),
        Ok(Err(ServiceError::Validation(e))) => {
            let text = match &e.first().rule {
                Rule::TooMany { max } => format!(
                    "You say you know {max} topics already, as many as a person may. Remove one, \
                     then add this one."
                ),
                Rule::TooLong { limit } => {
                    format!("A topic is named in at most {limit} characters.")
                }
                Rule::Required => "Write the topic you know, then add it.".to_owned(),
                _ => e.to_string(),
            };
            message_page(
                StatusCode::BAD_REQUEST,
                Chrome::of(Some(&person)),
                "That topic was not added",
                &text,
            )
        }
        Ok(Err(ServiceError::Forbidden(why))) => message_page(
            StatusCode::FORBIDDEN,
            Chrome::of(Some(&person)),
            "Not yours to change",
            &why,
        ),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}
