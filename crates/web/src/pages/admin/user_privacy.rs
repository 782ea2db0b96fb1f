//! A person's data as an administrator handles it on their request, from
//! the user's page (`/admin/users/{id}`): whether Kenning learns about
//! them and their switch, the download of everything kept about them (a
//! form's button, since the hand-out is recorded), and forgetting what was
//! learned, behind a confirmation page. The same use cases as the
//! person's own pages under `/me`.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use kenning_app::{Missing, ServiceError, UseCases};
use kenning_domain::{Learning, UserId};

use super::user_id;
use super::{blocking, failure, see_other, Admin, Posted, Visitor};
use crate::pages::privacy::{data_download, forgetting_confirmed, learning_asked};
use crate::render::{message_page, respond};
use crate::state::Web;
use crate::view::Chrome;

/// A person's learning as their page tells it.
#[derive(Debug)]
pub(crate) struct Privacy {
    pub(crate) learns: bool,
    /// Whether Kenning learns about them, in words.
    pub(crate) state: &'static str,
    /// Their own choice and what the rules make of it, in words.
    pub(crate) choice: String,
    pub(crate) opted_out: bool,
}

impl Privacy {
    /// What `learning` means, in words.
    pub(crate) fn of(learning: Learning) -> Self {
        let state = if learning.learns {
            "Kenning learns from their activity."
        } else {
            "Kenning does not learn from their activity: uploads naming them teach nothing, \
             and no search finds them."
        };
        let choice = match learning.choice {
            Some(true) => "Their own choice: learn about me.",
            Some(false) => "Their own choice: do not learn about me.",
            None => "They never chose, so the organisation's rule for new people holds.",
        };
        let rules = if !learning.learns && learning.choice != Some(false) {
            " The rules on learning leave them out."
        } else {
            ""
        };
        Self {
            learns: learning.learns,
            state,
            choice: format!("{choice}{rules}"),
            opted_out: learning.choice == Some(false),
        }
    }
}

/// The learning of the user `id` for their page; `None` for a user
/// erased, whom nothing is learned about any more.
pub(crate) fn learning_of(acting: &UseCases, id: UserId) -> Result<Option<Privacy>, ServiceError> {
    match acting.privacy.learning_of(id) {
        Ok(learning) => Ok(Some(Privacy::of(learning))),
        Err(ServiceError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The answer to `visitor` for a path that names no user.
fn no_such_user(visitor: &Visitor) -> HttpResponse {
    failure(visitor, &ServiceError::NotFound(Missing::User))
}

/// `POST /admin/users/{id}/learning`, on the person's request:
/// `learning=off` stops learning from their activity, `learning=on`
/// starts it again; then back to their page.
pub(crate) async fn set_learning(
    app: web::Data<Web>,
    Posted(visitor, form): Posted,
    id: web::Path<String>,
) -> HttpResponse {
    let Some(id) = user_id(&id) else {
        return no_such_user(&visitor);
    };
    let Some(choice) = learning_asked(&form) else {
        return message_page(
            StatusCode::BAD_REQUEST,
            Chrome::of(Some(&visitor)),
            "On or off?",
            "The form said neither to start nor to stop learning. Go back to the user's page \
             and use its button.",
        );
    };
    let acting = visitor.use_cases(&app);
    let done = blocking(move || acting.privacy.set_learning(id, Some(choice))).await;
    match done {
        Ok(Ok(_)) => see_other(&format!("/admin/users/{id}#privacy")),
        Ok(Err(e)) => failure(&visitor, &e),
        Err(response) => response,
    }
}

/// The name the user `id` is shown by, for the pages about their data;
/// the answer for a user erased or that could not be read.
async fn name_of(
    app: &web::Data<Web>,
    visitor: &crate::visitor::Visitor,
    id: UserId,
) -> Result<String, HttpResponse> {
    let acting = visitor.use_cases(app);
    let user = match blocking(move || acting.users.get(id)).await {
        Ok(Ok(user)) => user,
        Ok(Err(e)) => return Err(failure(visitor, &e)),
        Err(response) => return Err(response),
    };
    user.profile()
        .map(|profile| profile.display_name())
        .ok_or_else(|| failure(visitor, &ServiceError::NotFound(Missing::User)))
}

/// The page that hands out a user's data.
#[derive(Template)]
#[template(path = "admin/data.html")]
struct DataPage {
    chrome: Chrome,
    section: &'static str,
    id: String,
    name: String,
}

/// `GET /admin/users/{id}/data`: what the download holds, and the button
/// that hands it out. Opening it records nothing, so a link from another
/// site cannot make the trail say the data was handed out.
pub(crate) async fn confirm_download(
    app: web::Data<Web>,
    Admin(visitor): Admin,
    id: web::Path<String>,
) -> HttpResponse {
    confirmation(&visitor, &app, &id, |chrome, id, name| DataPage {
        chrome,
        section: "users",
        id,
        name,
    })
    .await
}

/// The page before a change to the user `id` names: `page` of the
/// visitor's chrome, the user's id and name, shown to an administrator.
async fn confirmation<P: Template>(
    visitor: &Visitor,
    app: &web::Data<Web>,
    id: &str,
    page: impl FnOnce(Chrome, String, String) -> P,
) -> HttpResponse {
    let Some(id) = user_id(id) else {
        return no_such_user(visitor);
    };
    match name_of(app, visitor, id).await {
        Ok(name) => respond(
            StatusCode::OK,
            &page(Chrome::of(Some(visitor)), id.to_string(), name),
        ),
        Err(response) => response,
    }
}

/// `POST /admin/users/{id}/data`: everything Kenning keeps about the
/// user, as a JSON file to hand them; the hand-out is in the audit trail
/// as the administrator's.
pub(crate) async fn download(
    app: web::Data<Web>,
    Posted(visitor, _): Posted,
    id: web::Path<String>,
) -> HttpResponse {
    let Some(id) = user_id(&id) else {
        return no_such_user(&visitor);
    };
    let acting = visitor.use_cases(&app);
    match blocking(move || acting.privacy.export(id)).await {
        Ok(Ok(data)) => data_download(&data, &data_file(id)),
        Ok(Err(e)) => failure(&visitor, &e),
        Err(response) => response,
    }
}

/// The name the data of `id` is downloaded under.
fn data_file(id: UserId) -> String {
    format!("kenning-data-{id}.json")
}

/// The confirmation page before forgetting what was learned about a user.
#[derive(Template)]
#[template(path = "admin/forget.html")]
struct ForgetPage {
    chrome: Chrome,
    section: &'static str,
    id: String,
    name: String,
}

/// `GET /admin/users/{id}/forget`: what forgetting erases, and the button
/// that does it.
pub(crate) async fn confirm_forget(
    app: web::Data<Web>,
    Admin(visitor): Admin,
    id: web::Path<String>,
) -> HttpResponse {
    confirmation(&visitor, &app, &id, |chrome, id, name| ForgetPage {
        chrome,
        section: "users",
        id,
        name,
    })
    .await
}

/// `POST /admin/users/{id}/forget` with `confirm=yes`: erases the user's
/// actions and topics; then back to their page.
pub(crate) async fn forget(
    app: web::Data<Web>,
    Posted(visitor, form): Posted,
    id: web::Path<String>,
) -> HttpResponse {
    let Some(id) = user_id(&id) else {
        return no_such_user(&visitor);
    };
    if !forgetting_confirmed(&form) {
        return message_page(
            StatusCode::BAD_REQUEST,
            Chrome::of(Some(&visitor)),
            "Nothing was forgotten",
            "Forgetting needs the confirmation on its page. Go back and confirm it.",
        );
    }
    let acting = visitor.use_cases(&app);
    match blocking(move || acting.privacy.forget(id)).await {
        Ok(Ok(())) => see_other(&format!("/admin/users/{id}#privacy")),
        Ok(Err(e)) => failure(&visitor, &e),
        Err(response) => response,
    }
}
