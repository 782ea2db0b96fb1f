//! One user (`/admin/users/{id}`): the profile and the e-mail address
//! changed, the status changed (deactivate, reactivate, delete, cancel a
//! deletion), the groups they are in, and their data
//! ([`super::user_privacy`]).

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use kenning_app::{Missing, ServiceError, UseCases};
use kenning_domain::{GracePeriod, Status, StatusChange, User, UserId};

use super::profile::{self, Field};
use super::user_id;
use super::user_privacy::{self, Privacy};
use super::{blocking, failure, see_other, Admin, Form, Posted, Problems};
use crate::render::respond;
use crate::state::Web;
use crate::view::Chrome;
use crate::visitor::Visitor;

/// A change of status the page offers: its path, its button, what it does.
#[derive(Debug)]
struct Action {
    path: &'static str,
    label: &'static str,
    note: String,
}

/// The changes of status `changes` offers, each with its path, its
/// button and what it does: the use case says which the user takes now,
/// so the page offers what it allows without saying the rules again (the
/// use case decides when the form comes back).
fn offered(changes: Vec<StatusChange>) -> Vec<Action> {
    changes
        .into_iter()
        .map(|change| match change {
            StatusChange::Deactivate => Action {
                path: "deactivate",
                label: "Deactivate",
                note: "They can no longer sign in, and no answer lists them; all they taught \
                       is kept."
                    .to_owned(),
            },
            StatusChange::Reactivate => Action {
                path: "reactivate",
                label: "Reactivate",
                note: "They can sign in again, and answers list them.".to_owned(),
            },
            StatusChange::Delete => Action {
                path: "delete",
                label: "Delete",
                note: format!(
                    "Their personal data are erased for good {} days later; until then the \
                     deletion can be cancelled.",
                    GracePeriod::DAYS
                ),
            },
            StatusChange::CancelDeletion => Action {
                path: "cancel-deletion",
                label: "Cancel the deletion",
                note: "Nothing is erased; they stay deactivated until reactivated.".to_owned(),
            },
        })
        .collect()
}

/// The user's status in words: what it means, and when a deletion
/// becomes final.
fn status_words(user: &User) -> String {
    let when = |at: DateTime<Utc>| at.format("%-d %B %Y, %H:%M UTC").to_string();
    match user.status() {
        Status::Active => "They can sign in, and answers list them.".to_owned(),
        Status::Deactivated => "They cannot sign in, and no answer lists them.".to_owned(),
        Status::PendingDeletion { scheduled_for } => format!(
            "Deleted: their personal data are erased for good on {} unless the deletion is \
             cancelled before.",
            when(scheduled_for)
        ),
        Status::Deleted { at } => format!("Erased on {}; nothing can change them.", when(at)),
    }
}

#[derive(Template)]
#[template(path = "admin/user.html")]
struct UserPage {
    chrome: Chrome,
    section: &'static str,
    id: String,
    name: String,
    status: &'static str,
    status_words: String,
    version: u64,
    editable: bool,
    actions: Vec<Action>,
    groups: Vec<(String, String)>,
    privacy: Option<Privacy>,
    email: Field,
    fields: Vec<Field>,
    problems: Problems,
}

/// What the page shows besides the stored user: the forms as written when
/// one was refused.
#[derive(Default)]
struct Shown {
    profile: Option<Form>,
    email: Option<Form>,
    problems: Problems,
}

/// What the page reads of a user: the user, the changes of status they
/// take now, the names of their groups, their learning.
type Read = (
    User,
    Vec<StatusChange>,
    Vec<(String, String)>,
    Option<Privacy>,
);

/// The user `id`, the changes of status they take now, the names of their
/// groups and their learning, read now.
fn read(acting: &UseCases, id: UserId) -> Result<Read, ServiceError> {
    let user = acting.users.get(id)?;
    let changes = acting.users.status_changes(&user);
    let groups = acting
        .groups
        .groups_of(id)?
        .into_iter()
        .map(|m| {
            (
                m.group.as_uuid().to_string(),
                m.display_name.as_str().to_owned(),
            )
        })
        .collect();
    let privacy = user_privacy::learning_of(acting, id)?;
    Ok((user, changes, groups, privacy))
}

/// The page of the user `id`, showing `shown`.
async fn page_of(app: &Web, visitor: &Visitor, id: UserId, shown: Shown) -> HttpResponse {
    let acting = visitor.use_cases(app);
    let (user, changes, groups, privacy) = match blocking(move || read(&acting, id)).await {
        Ok(Ok(read)) => read,
        Ok(Err(e)) => return failure(visitor, &e),
        Err(response) => return response,
    };
    let refused = shown.problems.general.is_some() || shown.profile.is_some();
    let status = if refused || shown.email.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let stored = user.profile();
    let fields = match &shown.profile {
        Some(form) => profile::as_written(form, &shown.problems),
        None => profile::as_stored(stored),
    };
    let email = match &shown.email {
        Some(form) => profile::email_field(form.value("email"), &shown.problems),
        None => profile::email_field(
            stored
                .map(|p| p.email.as_str().to_owned())
                .unwrap_or_default(),
            &Problems::default(),
        ),
    };
    respond(
        status,
        &UserPage {
            chrome: Chrome::of(Some(visitor)),
            section: "users",
            id: user.id().to_string(),
            name: stored
                .map(|p| p.display_name())
                .unwrap_or_else(|| "An erased user".to_owned()),
            status: user.status().name(),
            status_words: status_words(&user),
            version: user.version(),
            editable: stored.is_some(),
            actions: offered(changes),
            groups,
            privacy,
            email,
            fields,
            problems: shown.problems,
        },
    )
}

/// `GET /admin/users/{id}`.
pub(crate) async fn page(
    app: web::Data<Web>,
    Admin(visitor): Admin,
    id: web::Path<String>,
) -> HttpResponse {
    match user_id(&id) {
        Some(id) => page_of(&app, &visitor, id, Shown::default()).await,
        None => failure(&visitor, &ServiceError::NotFound(Missing::User)),
    }
}

/// What a form of the page asks of the user use cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Profile,
    Email,
    Deactivate,
    Reactivate,
    Delete,
    CancelDeletion,
}

impl Change {
    /// The change of status the last part of a form's path names.
    fn of_status(path: &str) -> Option<Self> {
        match path {
            "deactivate" => Some(Change::Deactivate),
            "reactivate" => Some(Change::Reactivate),
            "delete" => Some(Change::Delete),
            "cancel-deletion" => Some(Change::CancelDeletion),
            _ => None,
        }
    }
}

/// Carries out `change` of the user `id` as the form `body` asks, then
/// back to the page (303); a refused form again with its problems.
async fn change(
    app: web::Data<Web>,
    Posted(visitor, form): Posted,
    id: &str,
    change: Option<Change>,
) -> HttpResponse {
    let (Some(id), Some(change)) = (user_id(id), change) else {
        return failure(&visitor, &ServiceError::NotFound(Missing::User));
    };
    // The version the page showed: a change made meanwhile is not
    // overwritten unseen.
    let version = form.value("version").parse::<u64>().ok();
    let acting = visitor.use_cases(&app);
    let written = form.clone();
    let done = blocking(move || {
        let users = acting.users;
        match change {
            Change::Profile => users.update(id, profile::changes(&written), version),
            Change::Email => users.update_email(id, &written.value("email"), version),
            Change::Deactivate => users.deactivate(id),
            Change::Reactivate => users.reactivate(id),
            Change::Delete => users.delete(id),
            Change::CancelDeletion => users.cancel_delete(id),
        }
    })
    .await;
    match done {
        Ok(Ok(user)) => see_other(&format!("/admin/users/{}", user.id())),
        Ok(Err(e)) => match Problems::of_refusal(&e) {
            Some(problems) => {
                let shown = match change {
                    Change::Profile => Shown {
                        profile: Some(form),
                        problems,
                        ..Shown::default()
                    },
                    Change::Email => Shown {
                        email: Some(form),
                        problems,
                        ..Shown::default()
                    },
                    _ => Shown {
                        problems,
                        ..Shown::default()
                    },
                };
                page_of(&app, &visitor, id, shown).await
            }
            None => failure(&visitor, &e),
        },
        Err(response) => response,
    }
}

/// `POST /admin/users/{id}`: the profile's fields as the form writes them.
pub(crate) async fn update(
    app: web::Data<Web>,
    posted: Posted,
    id: web::Path<String>,
) -> HttpResponse {
    change(app, posted, &id, Some(Change::Profile)).await
}

/// `POST /admin/users/{id}/email`: a new e-mail address.
pub(crate) async fn update_email(
    app: web::Data<Web>,
    posted: Posted,
    id: web::Path<String>,
) -> HttpResponse {
    change(app, posted, &id, Some(Change::Email)).await
}

/// `POST /admin/users/{id}/{deactivate|reactivate|delete|cancel-deletion}`.
pub(crate) async fn change_status(
    app: web::Data<Web>,
    posted: Posted,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    let (id, action) = path.into_inner();
    change(app, posted, &id, Change::of_status(&action)).await
}
