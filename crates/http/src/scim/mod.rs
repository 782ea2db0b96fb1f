//! SCIM 2.0 (RFC 7643, RFC 7644) at [`SCIM_PATH`]: identity providers
//! provision users through the same use cases, with the same rules, as
//! the GraphQL API. `docs/scim.md` says what is supported and how a user
//! maps to a SCIM User.
//!
//! Access tokens authenticate (`Authorization: Bearer`): `users:read` for
//! reads and discovery, `users:write` for changes. Bodies are JSON
//! (`application/scim+json` or `application/json`) within the body limit;
//! every refusal is a SCIM error ([`error::ScimError`]).

mod discovery;
mod error;
mod filter;
mod group;
mod patch;
mod resource;

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use kenning_app::{Missing, ServiceError, UserService};
use kenning_domain::{Group, GroupId, Scope, User, UserId};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use self::error::ScimError;
use crate::body::read_json_of;
use crate::AppState;

/// The base path of the SCIM endpoint.
pub const SCIM_PATH: &str = "/accounts/api/v1/scim/v2";

/// The media type of SCIM bodies.
pub const SCIM_CONTENT_TYPE: &str = "application/scim+json";

/// The schema of a list answer.
const LIST_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/// The most users one list answer holds (`filter.maxResults`), and how
/// many it holds when `count` is not given.
pub const MAX_RESULTS: u32 = 200;

/// How often a PATCH without `If-Match` is re-applied when the user
/// changed between its read and its write.
const PATCH_ATTEMPTS: usize = 3;

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
    ScimError::new(
        StatusCode::BAD_REQUEST,
        Some("invalidVers"),
        format!("this server speaks SCIM 2.0 only, at {SCIM_PATH}"),
    )
    .into_response()
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
    ScimError::new(StatusCode::NOT_FOUND, None, "no such SCIM resource").into_response()
}

async fn method_not_allowed() -> HttpResponse {
    ScimError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        "this resource does not answer this method",
    )
    .into_response()
}

/// The absolute URL of the SCIM endpoint as the client reached it.
fn base(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}{SCIM_PATH}", info.scheme(), info.host())
}

/// Whether the request's access token carries `scope`.
async fn allow(req: &HttpRequest, state: &AppState, scope: Scope) -> Result<(), ScimError> {
    let principal = crate::graphql::authenticate(req, state).await?;
    principal.require(scope).map_err(|e| ScimError::service(&e))
}

/// Runs a blocking use case on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ServiceError> + Send + 'static,
) -> Result<T, ScimError> {
    match web::block(work).await {
        Ok(result) => result.map_err(|e| ScimError::service(&e)),
        Err(e) => Err(ScimError::service(&ServiceError::Internal(e.to_string()))),
    }
}

/// A SCIM answer.
fn answer(status: StatusCode, body: &Value) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, SCIM_CONTENT_TYPE))
        .body(body.to_string())
}

/// A user's resource, with its ETag (and `Location` when created).
fn user_answer(status: StatusCode, user: &User, req: &HttpRequest, shown: &Shown) -> HttpResponse {
    let resource = resource::render(user, &base(req));
    resource_answer(status, resource, shown, &resource::etag(user))
}

/// A resource as answered with the attributes `shown` asks for: its
/// `ETag`, and when it was just created the `Location` its `meta` gives
/// (whether or not `meta` is shown).
fn resource_answer(status: StatusCode, resource: Value, shown: &Shown, etag: &str) -> HttpResponse {
    let mut builder = HttpResponse::build(status);
    builder
        .insert_header((header::CONTENT_TYPE, SCIM_CONTENT_TYPE))
        .insert_header((header::ETAG, etag));
    if status == StatusCode::CREATED {
        if let Some(location) = resource["meta"]["location"].as_str() {
            builder.insert_header((header::LOCATION, location));
        }
    }
    builder.body(shown.apply(resource).to_string())
}

fn outcome(result: Result<HttpResponse, ScimError>) -> HttpResponse {
    result.unwrap_or_else(ScimError::into_response)
}

async fn service_provider_config(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    outcome(
        async {
            allow(&req, &state, Scope::UsersRead).await?;
            Ok(answer(
                StatusCode::OK,
                &discovery::service_provider_config(&base(&req)),
            ))
        }
        .await,
    )
}

async fn resource_types(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    outcome(
        async {
            allow(&req, &state, Scope::UsersRead).await?;
            let base = base(&req);
            let types = vec![
                discovery::user_resource_type(&base),
                discovery::group_resource_type(&base),
            ];
            Ok(answer(StatusCode::OK, &discovery::list(types)))
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
            allow(&req, &state, Scope::UsersRead).await?;
            let found = match name.as_str() {
                "User" => discovery::user_resource_type(&base(&req)),
                "Group" => discovery::group_resource_type(&base(&req)),
                _ => {
                    return Err(ScimError::new(
                        StatusCode::NOT_FOUND,
                        None,
                        "no such resource type",
                    ))
                }
            };
            Ok(answer(StatusCode::OK, &found))
        }
        .await,
    )
}

fn all_schemas(base: &str) -> Vec<Value> {
    vec![
        discovery::user_schema(base),
        discovery::enterprise_schema(base),
        discovery::group_schema(base),
    ]
}

async fn schemas(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    outcome(
        async {
            allow(&req, &state, Scope::UsersRead).await?;
            Ok(answer(
                StatusCode::OK,
                &discovery::list(all_schemas(&base(&req))),
            ))
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
            allow(&req, &state, Scope::UsersRead).await?;
            all_schemas(&base(&req))
                .into_iter()
                .find(|s| s["id"] == id.as_str())
                .map(|s| answer(StatusCode::OK, &s))
                .ok_or_else(|| ScimError::new(StatusCode::NOT_FOUND, None, "no such schema"))
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

fn parameter<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Which attributes an answer shows (`attributes`, `excludedAttributes`).
#[derive(Debug, Default)]
struct Shown {
    only: Option<Vec<String>>,
    excluded: Vec<String>,
}

fn attribute_list(raw: Option<&str>) -> Option<Vec<String>> {
    raw.map(|list| {
        list.split(',')
            .map(|a| filter::plain_path(a.trim()))
            .filter(|a| !a.is_empty())
            .collect()
    })
}

impl Shown {
    fn of(params: &[(String, String)]) -> Self {
        Self {
            only: attribute_list(parameter(params, "attributes")),
            excluded: attribute_list(parameter(params, "excludedAttributes")).unwrap_or_default(),
        }
    }

    /// `resource` with only the attributes asked for; `id` and `schemas`
    /// always stay.
    fn apply(&self, resource: Value) -> Value {
        let Value::Object(fields) = resource else {
            return resource;
        };
        let enterprise = resource::ENTERPRISE_SCHEMA.to_ascii_lowercase();
        let mut out = Map::new();
        for (key, value) in fields {
            let lower = key.to_ascii_lowercase();
            if lower == "id" || lower == "schemas" {
                out.insert(key, value);
                continue;
            }
            let named = |list: &[String]| -> Vec<Option<String>> {
                list.iter()
                    .filter_map(|a| {
                        if *a == lower {
                            Some(None)
                        } else {
                            a.strip_prefix(&format!("{lower}."))
                                .or_else(|| {
                                    (lower == enterprise)
                                        .then(|| a.strip_prefix(&format!("{enterprise}:")))
                                        .flatten()
                                })
                                .map(|sub| Some(sub.to_owned()))
                        }
                    })
                    .collect()
            };
            let keep = |value: Value, subs: &[Option<String>], wanted: bool| -> Option<Value> {
                if subs.iter().any(Option::is_none) {
                    return wanted.then_some(value);
                }
                let Value::Object(inner) = value else {
                    return (!wanted).then_some(value);
                };
                let listed: Map<String, Value> = inner
                    .into_iter()
                    .filter(|(k, _)| {
                        let hit = subs.iter().flatten().any(|s| s.eq_ignore_ascii_case(k));
                        hit == wanted
                    })
                    .collect();
                (!listed.is_empty()).then_some(Value::Object(listed))
            };
            let value = match &self.only {
                Some(only) => {
                    let subs = named(only);
                    if subs.is_empty() {
                        continue;
                    }
                    keep(value, &subs, true)
                }
                None => Some(value),
            };
            let excluded = named(&self.excluded);
            let value = match value {
                Some(v) if !excluded.is_empty() => keep(v, &excluded, false),
                other => other,
            };
            if let Some(value) = value {
                out.insert(key, value);
            }
        }
        Value::Object(out)
    }
}

/// A user id from the path; an id that is no UUID names nobody.
fn user_id(raw: &str) -> Result<UserId, ScimError> {
    Uuid::parse_str(raw)
        .map(UserId::from_uuid)
        .map_err(|_| ScimError::not_found())
}

/// The user as SCIM sees it: ACTIVE or DEACTIVATED; one pending deletion
/// or deleted is gone.
async fn visible(users: &UserService, id: UserId) -> Result<User, ScimError> {
    let users = users.clone();
    let user = blocking(move || users.get(id)).await?;
    if user.is_provisioned() {
        Ok(user)
    } else {
        Err(ScimError::not_found())
    }
}

/// The version an `If-Match` header asks for: `None` without one or for
/// `*`; a tag that cannot be a version of Kenning's fails at once (412).
fn if_match(req: &HttpRequest) -> Result<Option<u64>, ScimError> {
    let Some(value) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let stale = || {
        ScimError::new(
            StatusCode::PRECONDITION_FAILED,
            None,
            "If-Match does not name the user's current version",
        )
    };
    let text = value.to_str().map_err(|_| stale())?.trim();
    if text == "*" {
        return Ok(None);
    }
    version_of(text).map(Some).ok_or_else(stale)
}

/// Whether `If-None-Match` names `version` (or is `*`): a read answered
/// 304.
fn unchanged(req: &HttpRequest, version: u64) -> bool {
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == "*" || version_of(t) == Some(version))
        })
}

/// The version of an entity tag `W/"3"` or `"3"`.
fn version_of(tag: &str) -> Option<u64> {
    let tag = tag.trim();
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    tag.strip_prefix('"')?.strip_suffix('"')?.parse().ok()
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
        &["application/scim+json", "application/json"],
    )
    .await?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ScimError::invalid_syntax(format!("the body is not valid JSON: {e}")))
}

async fn get(req: HttpRequest, state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    outcome(
        async {
            allow(&req, &state, Scope::UsersRead).await?;
            let users = state.users.clone();
            let shown = Shown::of(&query(&req)?);
            let user = visible(&users, user_id(&id)?).await?;
            if unchanged(&req, user.version()) {
                return Ok(HttpResponse::NotModified()
                    .insert_header((header::ETAG, resource::etag(&user)))
                    .finish());
            }
            Ok(user_answer(StatusCode::OK, &user, &req, &shown))
        }
        .await,
    )
}

/// Which resources a list or search is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Users,
    Groups,
    /// Users, then groups (a search at the root, RFC 7644 §3.4.3).
    All,
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
            allow(&req, &state, Scope::UsersRead).await?;
            list_page(&req, &state, kind, &query(&req)?).await
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
            allow(&req, &state, Scope::UsersRead).await?;
            let request = body(&req, payload, &state).await?;
            if !request.is_object() {
                return Err(ScimError::invalid_syntax(
                    "a SearchRequest is a JSON object",
                ));
            }
            let mut params = Vec::new();
            for name in [
                "filter",
                "startIndex",
                "count",
                "attributes",
                "excludedAttributes",
            ] {
                let value = match filter::field(&request, name) {
                    None | Some(Value::Null) => continue,
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    Some(Value::Array(items)) => {
                        let names: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                        names
                            .ok_or_else(|| {
                                ScimError::invalid_value(format!(
                                    "{name} must list attribute names"
                                ))
                            })?
                            .join(",")
                    }
                    Some(_) => {
                        return Err(ScimError::invalid_value(format!(
                            "{name} has the wrong type"
                        )))
                    }
                };
                params.push((name.to_owned(), value));
            }
            list_page(&req, &state, kind, &params).await
        }
        .await,
    )
}

/// A page of the resources a list's parameters ask for, once the caller
/// may read.
async fn list_page(
    req: &HttpRequest,
    state: &AppState,
    kind: Kind,
    params: &[(String, String)],
) -> Result<HttpResponse, ScimError> {
    let number = |name: &str, default: i64| -> Result<i64, ScimError> {
        parameter(params, name).map_or(Ok(default), |raw| {
            raw.trim().parse::<i64>().map_err(|_| {
                ScimError::invalid_value(format!("{name} must be a whole number, not {raw:?}"))
            })
        })
    };
    let start = number("startIndex", 1)?.max(1);
    let count = number("count", i64::from(MAX_RESULTS))?.clamp(0, i64::from(MAX_RESULTS));
    let skip = u64::try_from(start - 1).unwrap_or_default();
    // Paging by position reads every result before the page; as deep as
    // GraphQL's offsets may go, and no deeper.
    let deepest = state.schema.limits().max_offset;
    if skip > u64::from(deepest) {
        return Err(ScimError::new(
            StatusCode::BAD_REQUEST,
            Some("tooMany"),
            format!(
                "startIndex may be at most {}: narrow the filter to reach what lies deeper",
                u64::from(deepest) + 1
            ),
        ));
    }
    let take = u32::try_from(count).unwrap_or(MAX_RESULTS);
    let expr = parameter(params, "filter")
        .map(filter::parse)
        .transpose()
        .map_err(ScimError::invalid_filter)?;
    let shown = Shown::of(params);
    let base = base(req);
    // A filter that applies to one kind of resource finds none of the
    // other at the root; one that applies to neither is refused.
    let user_filter = expr.as_ref().map(filter::user_filter).transpose();
    let group_filter = expr.as_ref().map(group::filter).transpose();
    let (user_filter, group_filter) = match (kind, user_filter, group_filter) {
        (Kind::Users, Err(e), _) | (Kind::Groups, _, Err(e)) | (Kind::All, Err(e), Err(_)) => {
            return Err(ScimError::invalid_filter(e))
        }
        (_, users, groups) => (users.ok(), groups.ok()),
    };
    let mut total = 0;
    let mut resources: Vec<Value> = Vec::new();
    if let (Kind::Users | Kind::All, Some(filter)) = (kind, user_filter) {
        let users = state.users.clone();
        let page = blocking(move || users.filter(filter.as_ref(), skip, take)).await?;
        total += page.total;
        resources.extend(
            page.users
                .iter()
                .map(|u| shown.apply(resource::render(u, &base))),
        );
    }
    if let (Kind::Groups | Kind::All, Some(filter)) = (kind, group_filter) {
        let groups = state.groups.clone();
        let skip = skip.saturating_sub(total);
        let take = take.saturating_sub(u32::try_from(resources.len()).unwrap_or(u32::MAX));
        let filter = filter.unwrap_or_default();
        let page = blocking(move || groups.list(&filter, skip, take)).await?;
        total += page.total;
        resources.extend(
            page.groups
                .iter()
                .map(|g| shown.apply(group::render(g, &base))),
        );
    }
    Ok(answer(
        StatusCode::OK,
        &json!({
            "schemas": [LIST_SCHEMA],
            "totalResults": total,
            "startIndex": start,
            "itemsPerPage": resources.len(),
            "Resources": resources,
        }),
    ))
}

async fn create(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    outcome(
        async {
            allow(&req, &state, Scope::UsersWrite).await?;
            let users = state.users.clone();
            let resource = body(&req, payload, &state).await?;
            let (input, active) = resource::parse(&resource, None)?
                .own_display_name(None)
                .into_new();
            let user = blocking(move || users.create_as(input, active)).await?;
            Ok(user_answer(
                StatusCode::CREATED,
                &user,
                &req,
                &Shown::of(&query(&req)?),
            ))
        }
        .await,
    )
}

/// What a `PUT` or `PATCH` of one resource brings, once the token may
/// write: the version `If-Match` asks for, the id as written, and the
/// JSON body.
struct Write {
    expected: Option<u64>,
    id_text: String,
    body: Value,
}

async fn write_request(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    id: String,
) -> Result<Write, ScimError> {
    allow(req, state, Scope::UsersWrite).await?;
    let expected = if_match(req)?;
    let body = body(req, payload, state).await?;
    Ok(Write {
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
            let Write {
                expected,
                id_text,
                body: resource,
            } = write_request(&req, payload, &state, id.into_inner()).await?;
            let users = state.users.clone();
            let user_id = user_id(&id_text)?;
            let current = visible(&users, user_id).await?;
            let (email, changes, active) = resource::parse(&resource, Some(&id_text))?
                .own_display_name(Some(&current))
                .into_patch();
            let user =
                blocking(move || users.replace(user_id, expected, &email, changes, active)).await?;
            Ok(user_answer(
                StatusCode::OK,
                &user,
                &req,
                &Shown::of(&query(&req)?),
            ))
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
            let Write {
                expected,
                id_text,
                body: request,
            } = write_request(&req, payload, &state, id.into_inner()).await?;
            let users = state.users.clone();
            let user_id = user_id(&id_text)?;
            let base = base(&req);
            let mut attempt = 0;
            loop {
                attempt += 1;
                let current = visible(&users, user_id).await?;
                let mut resource = resource::render_stored(&current, &base);
                patch::apply(&mut resource, &request)?;
                let (email, changes, active) = resource::parse(&resource, Some(&id_text))?
                    .own_display_name(Some(&current))
                    .into_patch();
                // Applied to the version read, so a change made meanwhile is
                // never overwritten with what was read before it.
                let version = expected.unwrap_or(current.version());
                let service = users.clone();
                let result = blocking(move || {
                    service.replace(user_id, Some(version), &email, changes, active)
                })
                .await;
                match result {
                    Err(e)
                        if e.status == StatusCode::PRECONDITION_FAILED
                            && expected.is_none()
                            && attempt < PATCH_ATTEMPTS => {}
                    Err(e) => return Err(e),
                    Ok(user) => {
                        return Ok(user_answer(
                            StatusCode::OK,
                            &user,
                            &req,
                            &Shown::of(&query(&req)?),
                        ))
                    }
                }
            }
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
            allow(&req, &state, Scope::UsersWrite).await?;
            let users = state.users.clone();
            let expected = if_match(&req)?;
            let user_id = user_id(&id)?;
            visible(&users, user_id).await?;
            blocking(move || users.delete_expecting(user_id, expected)).await?;
            Ok(HttpResponse::NoContent().finish())
        }
        .await,
    )
}

/// A group id from the path; an id that is no UUID names no group.
fn group_id(raw: &str) -> Result<GroupId, ScimError> {
    Uuid::parse_str(raw)
        .map(GroupId::from_uuid)
        .map_err(|_| ScimError::service(&ServiceError::NotFound(Missing::Group)))
}

/// A group's resource, with its ETag (and `Location` when created).
fn group_answer(status: StatusCode, g: &Group, req: &HttpRequest, shown: &Shown) -> HttpResponse {
    resource_answer(status, group::render(g, &base(req)), shown, &group::etag(g))
}

async fn create_group(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    outcome(
        async {
            allow(&req, &state, Scope::UsersWrite).await?;
            let resource = body(&req, payload, &state).await?;
            let input = group::parse(&resource, None)?;
            let groups = state.groups.clone();
            let created = blocking(move || groups.create(input)).await?;
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
            allow(&req, &state, Scope::UsersRead).await?;
            let shown = Shown::of(&query(&req)?);
            let id = group_id(&id)?;
            let groups = state.groups.clone();
            let found = blocking(move || groups.get(id)).await?;
            if unchanged(&req, found.version()) {
                return Ok(HttpResponse::NotModified()
                    .insert_header((header::ETAG, group::etag(&found)))
                    .finish());
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
            let write = write_request(&req, payload, &state, id.into_inner()).await?;
            let id = group_id(&write.id_text)?;
            let input = group::parse(&write.body, Some(&write.id_text))?;
            let groups = state.groups.clone();
            let expected = write.expected;
            let replaced = blocking(move || groups.replace(id, expected, input)).await?;
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
            let write = write_request(&req, payload, &state, id.into_inner()).await?;
            let id = group_id(&write.id_text)?;
            let base = base(&req);
            let mut attempt = 0;
            loop {
                attempt += 1;
                let groups = state.groups.clone();
                let current = blocking(move || groups.get(id)).await?;
                let mut resource = group::render(&current, &base);
                patch::apply(&mut resource, &write.body)?;
                let input = group::parse(&resource, Some(&write.id_text))?;
                let version = write.expected.unwrap_or(current.version());
                let groups = state.groups.clone();
                match blocking(move || groups.replace(id, Some(version), input)).await {
                    Err(e)
                        if e.status == StatusCode::PRECONDITION_FAILED
                            && write.expected.is_none()
                            && attempt < PATCH_ATTEMPTS => {}
                    Err(e) => return Err(e),
                    Ok(patched) => {
                        let shown = Shown::of(&query(&req)?);
                        return Ok(group_answer(StatusCode::OK, &patched, &req, &shown));
                    }
                }
            }
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
            allow(&req, &state, Scope::UsersWrite).await?;
            let expected = if_match(&req)?;
            let id = group_id(&id)?;
            let groups = state.groups.clone();
            blocking(move || groups.delete(id, expected)).await?;
            Ok(HttpResponse::NoContent().finish())
        }
        .await,
    )
}
