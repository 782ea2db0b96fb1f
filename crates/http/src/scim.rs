//! SCIM 2.0 over HTTP at [`SCIM_PATH`]: the routes, each reading its
//! request, calling the use cases and answering what `kenning_scim` makes
//! of the outcome. Identity providers provision users through the same use
//! cases, with the same rules, as the GraphQL API.
//!
//! Access tokens authenticate (`Authorization: Bearer`): `users:read` for
//! reads and discovery, `users:write` for changes. Bodies are JSON
//! (`application/scim+json` or `application/json`) within the body limit;
//! every refusal is a SCIM error ([`ScimError`]).

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use kenning_app::{ServiceError, UseCases, UserService};
use kenning_domain::{Actor, Channel, Group, User, UserId};
use kenning_scim::{discover, groups, users, Kind, ListRequest, ScimError, Shown};
use serde_json::Value;

use crate::body::{read_json_of, BodyError};
use crate::credential;
use crate::problem::Problem;
use crate::state::AppState;

/// The base path of the SCIM endpoint.
pub const SCIM_PATH: &str = "/accounts/api/v1/scim/v2";

/// Registers the SCIM routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(SCIM_PATH)
            .service(read_only("/ServiceProviderConfig", service_provider_config))
            .service(read_only("/ResourceTypes", resource_types))
            .service(read_only("/ResourceTypes/{name}", resource_type))
            .service(read_only("/Schemas", schemas))
            .service(read_only("/Schemas/{id}", schema))
            .service(
                web::resource("/Users")
                    .route(web::get().to(list_users))
                    .route(web::post().to(create))
                    .default_service(web::to(method_not_allowed)),
            )
            .service(
                web::resource("/Users/.search")
                    .route(web::post().to(search_users))
                    .default_service(web::to(method_not_allowed)),
            )
            .service(
                web::resource("/Users/{id}")
                    .route(web::get().to(get))
                    .route(web::put().to(replace))
                    .route(web::patch().to(patch))
                    .route(web::delete().to(delete))
                    .default_service(web::to(method_not_allowed)),
            )
            .service(
                web::resource("/Groups")
                    .route(web::get().to(list_groups))
                    .route(web::post().to(create_group))
                    .default_service(web::to(method_not_allowed)),
            )
            .service(
                web::resource("/Groups/.search")
                    .route(web::post().to(search_groups))
                    .default_service(web::to(method_not_allowed)),
            )
            .service(
                web::resource("/Groups/{id}")
                    .route(web::get().to(get_group))
                    .route(web::put().to(replace_group))
                    .route(web::patch().to(patch_group))
                    .route(web::delete().to(delete_group))
                    .default_service(web::to(method_not_allowed)),
            )
            .service(
                web::resource("/.search")
                    .route(web::post().to(search_all))
                    .default_service(web::to(method_not_allowed)),
            )
            .default_service(web::to(not_found)),
    )
    .route(
        "/accounts/api/v1/scim/{version}/{rest:.*}",
        web::route().to(other_version),
    );
}

/// A request for another SCIM version than 2.0 (RFC 7644 §3.13).
async fn other_version() -> HttpResponse {
    respond(ScimError::new(
        400,
        Some("invalidVers"),
        format!("this server speaks SCIM 2.0 only, at {SCIM_PATH}"),
    ))
}

/// A discovery resource: `GET` only, 405 for any other method.
fn read_only<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::get().to(handler))
        .default_service(web::to(method_not_allowed))
}

async fn not_found() -> HttpResponse {
    respond(ScimError::no_such("SCIM resource"))
}

async fn method_not_allowed() -> HttpResponse {
    respond(ScimError::new(
        405,
        None,
        "this resource does not answer this method",
    ))
}

/// A refusal in SCIM's envelope, with `Retry-After` when it has one and
/// the Bearer scheme named on a 401.
fn respond(error: ScimError) -> HttpResponse {
    let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut builder = HttpResponse::build(status);
    builder.insert_header((header::CONTENT_TYPE, kenning_scim::CONTENT_TYPE));
    if let Some(seconds) = error.retry_after {
        builder.insert_header((header::RETRY_AFTER, seconds));
    }
    if error.is_unauthenticated() {
        builder.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"kenning\""));
    }
    builder.body(error.body().to_string())
}

/// A refusal of the HTTP layer (credential, rate limit, body) in SCIM's
/// envelope, with its status; a body that is not JSON is `invalidSyntax`.
fn from_problem(problem: Problem) -> ScimError {
    let scim_type = (problem.status == StatusCode::BAD_REQUEST).then_some("invalidSyntax");
    let mut error = ScimError::new(problem.status.as_u16(), scim_type, problem.message);
    error.retry_after = problem.retry_after;
    error
}

/// The absolute URL of the SCIM endpoint as the client reached it.
fn base(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}{SCIM_PATH}", info.scheme(), info.host())
}

/// The use cases as the request's access token calls them, once it is a
/// live token: each refuses what the token's scopes do not allow, and the
/// audit trail records the changes as the token's.
async fn called(req: &HttpRequest, state: &AppState) -> Result<UseCases, ScimError> {
    let machine = credential::bearer(req, state).await.map_err(from_problem)?;
    let actor = Actor::credential(machine.credential_id(), machine.name(), Channel::Scim);
    let caller = state
        .gate
        .for_token(machine)
        .map_err(|_| Problem::unauthenticated("SCIM takes an access token, not an API key"))
        .map_err(from_problem)?;
    Ok(state.gate.called_by(caller, actor))
}

/// `Forbidden` unless the request's token may read the directory, which
/// the discovery documents describe.
async fn may_read(req: &HttpRequest, state: &AppState) -> Result<(), ScimError> {
    Ok(called(req, state).await?.users.may_read()?)
}

/// Runs blocking work (a use case and what SCIM makes of its answer) on
/// the blocking pool.
async fn blocking<T: Send + 'static, E: Into<ScimError> + Send + 'static>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, ScimError> {
    match web::block(work).await {
        Ok(result) => result.map_err(Into::into),
        Err(e) => Err(ScimError::service(&ServiceError::Internal(e.to_string()))),
    }
}

/// A SCIM answer.
fn answer(status: StatusCode, body: &Value) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, kenning_scim::CONTENT_TYPE))
        .body(body.to_string())
}

/// A user's resource, with its ETag (and `Location` when created).
fn user_answer(status: StatusCode, user: &User, req: &HttpRequest, shown: &Shown) -> HttpResponse {
    let resource = users::render(user, &base(req));
    resource_answer(status, resource, shown, &users::etag(user))
}

/// A group's resource, with its ETag (and `Location` when created).
fn group_answer(status: StatusCode, g: &Group, req: &HttpRequest, shown: &Shown) -> HttpResponse {
    resource_answer(
        status,
        groups::render(g, &base(req)),
        shown,
        &groups::etag(g),
    )
}

/// A resource as answered with the attributes `shown` asks for: its
/// `ETag`, and when it was just created the `Location` its `meta` gives
/// (whether or not `meta` is shown).
fn resource_answer(status: StatusCode, resource: Value, shown: &Shown, etag: &str) -> HttpResponse {
    let mut builder = HttpResponse::build(status);
    builder
        .insert_header((header::CONTENT_TYPE, kenning_scim::CONTENT_TYPE))
        .insert_header((header::ETAG, etag));
    if status == StatusCode::CREATED {
        if let Some(location) = resource["meta"]["location"].as_str() {
            builder.insert_header((header::LOCATION, location));
        }
    }
    builder.body(shown.apply(resource).to_string())
}

/// A read answered 304 when `If-None-Match` names the version it has.
fn not_modified(req: &HttpRequest, version: u64, etag: String) -> Option<HttpResponse> {
    let tags = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .map(|v| v.as_bytes());
    kenning_scim::unchanged(tags, version).then(|| {
        HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish()
    })
}

fn outcome(result: Result<HttpResponse, ScimError>) -> HttpResponse {
    result.unwrap_or_else(respond)
}

async fn service_provider_config(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    outcome(
        async {
            may_read(&req, &state).await?;
            let config = discover::service_provider_config(&base(&req));
            Ok(answer(StatusCode::OK, &config))
        }
        .await,
    )
}

async fn resource_types(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    outcome(
        async {
            may_read(&req, &state).await?;
            Ok(answer(
                StatusCode::OK,
                &discover::resource_types(&base(&req)),
            ))
        }
        .await,
    )
}

async fn resource_type(
    req: HttpRequest,
    state: web::Data<AppState>,
    name: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            may_read(&req, &state).await?;
            discover::resource_type(&name, &base(&req))
                .map(|found| answer(StatusCode::OK, &found))
                .ok_or_else(|| ScimError::no_such("resource type"))
        }
        .await,
    )
}

async fn schemas(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    outcome(
        async {
            may_read(&req, &state).await?;
            Ok(answer(StatusCode::OK, &discover::schemas(&base(&req))))
        }
        .await,
    )
}

async fn schema(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            may_read(&req, &state).await?;
            discover::schema(&id, &base(&req))
                .map(|s| answer(StatusCode::OK, &s))
                .ok_or_else(|| ScimError::no_such("schema"))
        }
        .await,
    )
}

/// The query parameters of a request; `invalidSyntax` for a malformed query.
fn query(req: &HttpRequest) -> Result<Vec<(String, String)>, ScimError> {
    web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|e| ScimError::invalid_syntax(format!("the query string is malformed: {e}")))
}

/// The user as SCIM sees it, as `read` reads it (to show it, or as a
/// change of it starts from it); one pending deletion or deleted is gone.
async fn visible(
    service: &UserService,
    id: &str,
    read: fn(&UserService, UserId) -> Result<User, ServiceError>,
) -> Result<User, ScimError> {
    let id = users::user_id(id)?;
    let service = service.clone();
    blocking(move || read(&service, id))
        .await
        .and_then(users::visible)
}

/// The version `If-Match` asks a write of a `resource` for.
fn if_match(req: &HttpRequest, resource: &str) -> Result<Option<u64>, ScimError> {
    let tag = req.headers().get(header::IF_MATCH).map(|v| v.as_bytes());
    kenning_scim::expected_version(tag, resource)
}

/// The JSON body of a write.
async fn body(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<Value, ScimError> {
    let bytes = read_json_of(
        req,
        payload,
        state.config.body_limit,
        state.config.body_timeout,
        &kenning_scim::BODY_TYPES,
    )
    .await
    .map_err(|e: BodyError| from_problem(e.into()))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ScimError::invalid_syntax(format!("the body is not valid JSON: {e}")))
}

async fn get(req: HttpRequest, state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    outcome(
        async {
            let called = called(&req, &state).await?;
            let shown = Shown::of(&query(&req)?);
            let user = visible(&called.users, &id, UserService::get).await?;
            if let Some(answer) = not_modified(&req, user.version(), users::etag(&user)) {
                return Ok(answer);
            }
            Ok(user_answer(StatusCode::OK, &user, &req, &shown))
        }
        .await,
    )
}

async fn list_users(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    list(req, state, Kind::Users).await
}

async fn list_groups(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    list(req, state, Kind::Groups).await
}

/// `GET` of a list: its parameters in the query string.
async fn list(req: HttpRequest, state: web::Data<AppState>, kind: Kind) -> HttpResponse {
    outcome(
        async {
            let called = called(&req, &state).await?;
            list_page(&req, &state, &called, kind, &query(&req)?).await
        }
        .await,
    )
}

async fn search_users(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    search(req, payload, state, Kind::Users).await
}

async fn search_all(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    search(req, payload, state, Kind::All).await
}

async fn search_groups(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    search(req, payload, state, Kind::Groups).await
}

/// `POST .search` (RFC 7644 §3.4.3): the parameters of a list in a
/// SearchRequest body.
async fn search(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    kind: Kind,
) -> HttpResponse {
    outcome(
        async {
            let called = called(&req, &state).await?;
            let request = body(&req, payload, &state).await?;
            let params = kenning_scim::search_parameters(&request)?;
            list_page(&req, &state, &called, kind, &params).await
        }
        .await,
    )
}

/// A page of the resources a list's parameters ask for, read as `called`
/// (who may read or not). Paging by position reads every result before the page; as
/// deep as GraphQL's offsets may go, and no deeper.
async fn list_page(
    req: &HttpRequest,
    state: &AppState,
    called: &UseCases,
    kind: Kind,
    params: &[(String, String)],
) -> Result<HttpResponse, ScimError> {
    let deepest = u64::from(state.schema.limits().max_offset);
    let list = ListRequest::parse(params, kind, deepest)?;
    let base = base(req);
    let (skip, take) = (list.skip, list.take);
    let mut total = 0;
    let mut resources: Vec<Value> = Vec::new();
    if let Some(filter) = list.users.clone() {
        let service = called.users.clone();
        let page = blocking(move || service.filter(filter.as_ref(), skip, take)).await?;
        total += page.total;
        resources.extend(
            page.users
                .iter()
                .map(|u| list.shown.apply(users::render(u, &base))),
        );
    }
    if let Some(filter) = list.groups.clone() {
        let service = called.groups.clone();
        let skip = skip.saturating_sub(total);
        let take = take.saturating_sub(u32::try_from(resources.len()).unwrap_or(u32::MAX));
        let page = blocking(move || service.list(&filter, skip, take)).await?;
        total += page.total;
        resources.extend(
            page.groups
                .iter()
                .map(|g| list.shown.apply(groups::render(g, &base))),
        );
    }
    Ok(answer(StatusCode::OK, &list.answer(total, resources)))
}

async fn create(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    outcome(
        async {
            let service = called(&req, &state).await?.users;
            let resource = body(&req, payload, &state).await?;
            let (input, active) = users::parse(&resource, None)?
                .own_display_name(None)
                .into_new();
            let user = blocking(move || service.create_as(input, active)).await?;
            let shown = Shown::of(&query(&req)?);
            Ok(user_answer(StatusCode::CREATED, &user, &req, &shown))
        }
        .await,
    )
}

/// What a `PUT` or `PATCH` of one resource brings: the use cases as its
/// token calls them, the version `If-Match` asks for, the id as written,
/// and the JSON body.
struct Write {
    called: UseCases,
    expected: Option<u64>,
    id_text: String,
    body: Value,
}

async fn write_request(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    id: String,
    resource: &str,
) -> Result<Write, ScimError> {
    let called = called(req, state).await?;
    let expected = if_match(req, resource)?;
    let body = body(req, payload, state).await?;
    Ok(Write {
        called,
        expected,
        id_text: id,
        body,
    })
}

async fn replace(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let write = write_request(&req, payload, &state, id.into_inner(), "user").await?;
            let service = write.called.users;
            let current = visible(&service, &write.id_text, UserService::get_for_change).await?;
            let replacement = users::parse(&write.body, Some(&write.id_text))?
                .own_display_name(Some(&current))
                .into_patch();
            let user = blocking(move || {
                service.replace(
                    current.id(),
                    write.expected,
                    &replacement.email,
                    replacement.changes,
                    replacement.active,
                )
            })
            .await?;
            let shown = Shown::of(&query(&req)?);
            Ok(user_answer(StatusCode::OK, &user, &req, &shown))
        }
        .await,
    )
}

async fn patch(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let write = write_request(&req, payload, &state, id.into_inner(), "user").await?;
            let user_id = users::user_id(&write.id_text)?;
            let base = base(&req);
            let service = write.called.users;
            let user = blocking(move || {
                service.patch(user_id, write.expected, |current| {
                    users::patched(current, &base, &write.id_text, &write.body)
                })
            })
            .await?;
            let shown = Shown::of(&query(&req)?);
            Ok(user_answer(StatusCode::OK, &user, &req, &shown))
        }
        .await,
    )
}

async fn delete(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let service = called(&req, &state).await?.users;
            let expected = if_match(&req, "user")?;
            let user = visible(&service, &id, UserService::get_for_change).await?;
            blocking(move || service.delete_expecting(user.id(), expected)).await?;
            Ok(HttpResponse::NoContent().finish())
        }
        .await,
    )
}

async fn create_group(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    outcome(
        async {
            let service = called(&req, &state).await?.groups;
            let resource = body(&req, payload, &state).await?;
            let input = groups::parse(&resource, None)?;
            let created = blocking(move || service.create(input)).await?;
            let shown = Shown::of(&query(&req)?);
            Ok(group_answer(StatusCode::CREATED, &created, &req, &shown))
        }
        .await,
    )
}

async fn get_group(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let service = called(&req, &state).await?.groups;
            let shown = Shown::of(&query(&req)?);
            let id = groups::group_id(&id)?;
            let found = blocking(move || service.get(id)).await?;
            if let Some(answer) = not_modified(&req, found.version(), groups::etag(&found)) {
                return Ok(answer);
            }
            Ok(group_answer(StatusCode::OK, &found, &req, &shown))
        }
        .await,
    )
}

async fn replace_group(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let write = write_request(&req, payload, &state, id.into_inner(), "group").await?;
            let id = groups::group_id(&write.id_text)?;
            let input = groups::parse(&write.body, Some(&write.id_text))?;
            let service = write.called.groups;
            let replaced = blocking(move || service.replace(id, write.expected, input)).await?;
            let shown = Shown::of(&query(&req)?);
            Ok(group_answer(StatusCode::OK, &replaced, &req, &shown))
        }
        .await,
    )
}

async fn patch_group(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let write = write_request(&req, payload, &state, id.into_inner(), "group").await?;
            let id = groups::group_id(&write.id_text)?;
            let base = base(&req);
            let service = write.called.groups;
            let patched = blocking(move || {
                service.patch(id, write.expected, |current| {
                    groups::patched(current, &base, &write.id_text, &write.body)
                })
            })
            .await?;
            let shown = Shown::of(&query(&req)?);
            Ok(group_answer(StatusCode::OK, &patched, &req, &shown))
        }
        .await,
    )
}

async fn delete_group(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    outcome(
        async {
            let service = called(&req, &state).await?.groups;
            let expected = if_match(&req, "group")?;
            let id = groups::group_id(&id)?;
            blocking(move || service.delete(id, expected)).await?;
            Ok(HttpResponse::NoContent().finish())
        }
        .await,
    )
}
