//! The user directory (`/admin`, `/admin/users`): found as the API's
//! `usersConnection` finds them, a page at a time; and a new user
//! (`/admin/users/new`).

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_domain::{Limit, SearchText, User, UserCursor};

use super::profile::{self, Field};
use super::{blocking, failure, query, see_other, Admin, Form, Posted, Problems};
use crate::render::respond;
use crate::state::Web;
use crate::view::{query_param, Chrome};

/// How many users a page lists.
const PAGE: i64 = 50;

/// A user as the directory lists them.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) email: String,
    pub(crate) status: &'static str,
}

impl Row {
    pub(crate) fn of(user: &User) -> Self {
        let profile = user.profile();
        Self {
            id: user.id().to_string(),
            name: profile
                .map(|p| p.display_name())
                .unwrap_or_else(|| "(erased)".to_owned()),
            email: profile
                .map(|p| p.email.as_str().to_owned())
                .unwrap_or_default(),
            status: user.status().name(),
        }
    }
}

#[derive(Template)]
#[template(path = "admin/users.html")]
struct UsersPage {
    chrome: Chrome,
    section: &'static str,
    query: String,
    query_link: String,
    problem: Option<String>,
    rows: Vec<Row>,
    paged: bool,
    next: Option<String>,
}

/// `GET /admin` and `GET /admin/users?q=&after=`: the users `q` matches,
/// from the position `after` on.
pub(crate) async fn directory(
    req: HttpRequest,
    app: web::Data<Web>,
    Admin(visitor): Admin,
) -> HttpResponse {
    let params = query(&req);
    let text = params.value("q");
    let after = params.given("after");
    let acting = visitor.use_cases(&app);
    let asked = text.clone();
    let paged = after.is_some();
    let found = blocking(move || {
        let users = acting.users;
        let search = SearchText::parse(Some(&asked));
        let cursor = after.as_deref().map(UserCursor::parse).transpose();
        let (search, cursor) = match (search, cursor) {
            (Ok(search), Ok(cursor)) => (search, cursor),
            (Err(v), _) | (_, Err(v)) => return Ok(Err(v.rule.to_string())),
        };
        Ok(Ok(users.search_after(
            &search,
            cursor.as_ref(),
            Limit::parse(PAGE)?,
        )?))
    })
    .await;
    let (rows, next, problem) = match found {
        Ok(Ok(Ok(page))) => {
            let next = page.more.then(|| page.users.last()).flatten().map(|last| {
                format!(
                    "/admin/users?q={}&after={}",
                    query_param(&text),
                    UserCursor::of(last)
                )
            });
            (page.users.iter().map(Row::of).collect(), next, None)
        }
        Ok(Ok(Err(problem))) => (Vec::new(), None, Some(format!("The text {problem}."))),
        Ok(Err(e)) => return failure(&visitor, &e),
        Err(response) => return response,
    };
    respond(
        StatusCode::OK,
        &UsersPage {
            chrome: Chrome::of(Some(&visitor)),
            section: "users",
            query_link: query_param(&text),
            query: text,
            problem,
            rows,
            paged,
            next,
        },
    )
}

#[derive(Template)]
#[template(path = "admin/new_user.html")]
struct NewUserPage {
    chrome: Chrome,
    section: &'static str,
    problems: Problems,
    fields: Vec<Field>,
}

fn new_user_page(
    chrome: Chrome,
    status: StatusCode,
    form: &Form,
    problems: Problems,
) -> HttpResponse {
    let mut fields = vec![profile::email_field(form.value("email"), &problems)];
    fields.extend(profile::as_written(form, &problems));
    respond(
        status,
        &NewUserPage {
            chrome,
            section: "users",
            problems,
            fields,
        },
    )
}

/// `GET /admin/users/new`: the form of a new user.
pub(crate) async fn new_user(Admin(visitor): Admin) -> HttpResponse {
    new_user_page(
        Chrome::of(Some(&visitor)),
        StatusCode::OK,
        &Form::default(),
        Problems::default(),
    )
}

/// `POST /admin/users/new`: creates an ACTIVE user, then on to their
/// page; a refused form again, with each problem beside its field.
pub(crate) async fn create(app: web::Data<Web>, Posted(visitor, form): Posted) -> HttpResponse {
    let acting = visitor.use_cases(&app);
    let input = profile::new_user(&form);
    let created = blocking(move || acting.users.create(input)).await;
    match created {
        Ok(Ok(user)) => see_other(&format!("/admin/users/{}", user.id())),
        Ok(Err(e)) => match Problems::of_refusal(&e) {
            Some(problems) => new_user_page(
                Chrome::of(Some(&visitor)),
                StatusCode::UNPROCESSABLE_ENTITY,
                &form,
                problems,
            ),
            None => failure(&visitor, &e),
        },
        Err(response) => response,
    }
}
