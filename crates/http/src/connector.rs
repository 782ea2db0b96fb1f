//! The connector endpoints: `POST /connectors/api/v1/entities-with-action`
//! and its batch form, `.../entities-with-action/batch`.
//!
//! A connector script authenticates with the `APIKEY` header and sends one
//! entity with the action a user took on it. The answer is 201 with the
//! stored action's id and the topics learned, or a JSON problem:
//! 401 `Unauthenticated`, 415 `UnsupportedMediaType`, 413
//! `PayloadTooLarge`, 400 `BadRequest` (not JSON, or not an object), 422
//! `ValidationError` (every bad field at once) or `UnknownUser`, 409
//! `DuplicateAlias`.
//!
//! The batch form takes `{"items": [upload, ...]}` and answers 200 with one
//! result per item, in request order: what the single endpoint would have
//! answered for it, its status included. The request itself is refused
//! (401, 413, 415, 400, or 422 `ValidationError` on `items`) only when it
//! cannot be read as a list of items.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use kenning_app::{Accepted, Connector, ServiceError};
use kenning_app::{UploadStage, UPLOAD_STAGES};
use kenning_domain::{Raw, TextInput, UploadInput};
use serde_json::{Map, Value};

use crate::body::read_json;
use crate::credential;
use crate::problem::Problem;
use crate::state::AppState;

use crate::wire::{
    self, AcceptedItem, BatchAnswer, ErrorEnvelope, ItemResult, LearnedTopic, RefusedItem,
};

/// `POST /connectors/api/v1/entities-with-action`.
#[utoipa::path(
    post,
    path = "/connectors/api/v1/entities-with-action",
    tag = "uploads",
    operation_id = "upload",
    summary = "Upload one entity and the action a user took on it",
    description = "Checks the upload, extracts the topics of its texts and records what the action teaches its user; answers once the action is durable.",
    request_body(content = wire::UploadRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Stored; the topics it taught", body = wire::Accepted),
        wire::Refusals,
        (status = 409, description = "`DuplicateAlias`: an upload with this `action_alias` was accepted before; the message names the action that holds it and when it was received", body = ErrorEnvelope),
        (status = 422, description = "`ValidationError` (every bad field, each with its rule) or `UnknownUser` (no ACTIVE or DEACTIVATED user has `user_email`)", body = ErrorEnvelope),
    ),
    security(("api_key" = []))
)]
pub async fn upload(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let mut spent = Spent::new();
    let outcome = run(req, payload, &state, &mut spent).await;
    count(&state, &outcome);
    let response = match outcome {
        Ok(accepted) => HttpResponse::Created().json(created(accepted)),
        Err(problem) => problem.into_response(),
    };
    spent.done();
    response
}

/// The time a request of the upload endpoints spends in HTTP and JSON:
/// all of its handler's but the use case's, which times its own stages.
struct Spent {
    started: Instant,
    in_use_case: Duration,
}

impl Spent {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            in_use_case: Duration::ZERO,
        }
    }

    /// Runs the use case's `work` on the blocking pool, its time not the
    /// handler's.
    async fn block<T: Send + 'static>(
        &mut self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, actix_web::error::BlockingError> {
        let started = Instant::now();
        let done = web::block(work).await;
        self.in_use_case += started.elapsed();
        done
    }

    /// Adds the handler's own time to the HTTP and JSON stage.
    fn done(self) {
        let spent = self.started.elapsed().saturating_sub(self.in_use_case);
        UPLOAD_STAGES.add(UploadStage::HttpJson, spent);
    }
}

/// Counts one upload's outcome, and the topics it taught.
fn count(state: &AppState, outcome: &Result<Accepted, Problem>) {
    match outcome {
        Ok(accepted) => {
            state.metrics.count_upload("Accepted");
            state.metrics.count_topics(accepted.topics.len());
        }
        Err(problem) => state.metrics.count_upload(problem.code),
    }
}

async fn run(
    req: HttpRequest,
    payload: web::Payload,
    state: &AppState,
    spent: &mut Spent,
) -> Result<Accepted, Problem> {
    let limit = state.config.body_limit;
    let (connector, fields) = read_object(&req, payload, state, limit, UPLOAD_OBJECT).await?;
    let input = upload_input(fields);
    match spent.block(move || connector.upload(input)).await {
        Ok(Ok(accepted)) => Ok(accepted),
        Ok(Err(e)) => Err(problem(e)),
        Err(e) => Err(internal(&e)),
    }
}

/// What the body of an upload (and each item of a batch) must be.
const UPLOAD_OBJECT: &str =
    "an upload must be a JSON object with entity_type, action_type, action_date, user_email and text or texts";

/// Authenticates the request and reads its body, up to `limit` bytes, as
/// a JSON object; `shape` says what the object must hold. What the
/// connector whose API key was presented may do, and the object.
pub(crate) async fn read_object(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    limit: usize,
    shape: &'static str,
) -> Result<(Connector, Map<String, Value>), Problem> {
    let connector = state
        .gate
        .connector(credential::api_key(req, state).await?)
        .map_err(|_| Problem::unauthenticated("the connectors' API takes an API key"))?;
    let body = read_json(req, payload, limit, state.config.body_timeout).await?;
    let value: Value = serde_json::from_slice(&body)
        .map_err(|e| Problem::bad_request(format!("the body is not valid JSON: {e}")))?;
    match value {
        Value::Object(fields) => Ok((connector, fields)),
        _ => Err(Problem::bad_request(shape)),
    }
}

/// What the body of a batch must be.
const BATCH_OBJECT: &str = "the body must be a JSON object with items, an array of uploads";

/// `POST /connectors/api/v1/entities-with-action/batch`.
#[utoipa::path(
    post,
    path = "/connectors/api/v1/entities-with-action/batch",
    tag = "uploads",
    operation_id = "uploadBatch",
    summary = "Upload many entities at once, each answered on its own",
    description = "Takes up to the server's limit of uploads (100 unless configured) and answers each as the single endpoint would, in request order: a refused item does not stop the others. Uploads of concurrent requests are written together; the answer comes once every accepted item is durable. An alias repeated within a batch: the first item with it that is stored wins.",
    request_body(content = wire::BatchRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "One result per item, in request order", body = BatchAnswer),
        wire::Refusals,
        (status = 422, description = "`ValidationError`: `items` is not an array of 1 to the limit's number of items, or the body has another field", body = ErrorEnvelope),
    ),
    security(("api_key" = []))
)]
pub async fn upload_batch(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let mut spent = Spent::new();
    let response = match run_batch(req, payload, &state, &mut spent).await {
        Ok(outcomes) => {
            let results: Vec<ItemResult> = outcomes
                .into_iter()
                .map(|outcome| {
                    count(&state, &outcome);
                    match outcome {
                        Ok(done) => ItemResult::Accepted(AcceptedItem {
                            status: StatusCode::CREATED.as_u16(),
                            accepted: created(done),
                        }),
                        Err(problem) => ItemResult::Refused(RefusedItem {
                            status: problem.status.as_u16(),
                            error: problem.into_error_body(),
                        }),
                    }
                })
                .collect();
            let accepted = results
                .iter()
                .filter(|r| matches!(r, ItemResult::Accepted(_)))
                .count();
            HttpResponse::Ok().json(BatchAnswer {
                accepted,
                refused: results.len() - accepted,
                results,
            })
        }
        Err(problem) => {
            state.metrics.count_upload(problem.code);
            problem.into_response()
        }
    };
    spent.done();
    response
}

async fn run_batch(
    req: HttpRequest,
    payload: web::Payload,
    state: &AppState,
    spent: &mut Spent,
) -> Result<Vec<Result<Accepted, Problem>>, Problem> {
    let limit = state.config.batch_body_limit;
    let (connector, mut fields) = read_object(&req, payload, state, limit, BATCH_OBJECT).await?;
    let most = state.config.batch_items;
    let items = match fields.remove("items") {
        Some(Value::Array(items)) if (1..=most).contains(&items.len()) => Some(items),
        _ => None,
    };
    let mut refused: Vec<(String, String)> = unknown(fields)
        .into_iter()
        .map(|(field, rule)| (field, rule.to_owned()))
        .collect();
    let items = match items {
        Some(items) if refused.is_empty() => items,
        Some(_) => return Err(Problem::validation(refused)),
        None => {
            let rule = format!("must be an array of 1 to {most} upload objects");
            refused.insert(0, ("items".to_owned(), rule));
            return Err(Problem::validation(refused));
        }
    };
    // Items that are objects go to the use case together; the others are
    // refused as the single endpoint refuses such a body.
    let mut outcomes: Vec<Option<Result<Accepted, Problem>>> = Vec::with_capacity(items.len());
    let mut inputs = Vec::new();
    for item in items {
        match item {
            Value::Object(fields) => {
                inputs.push(upload_input(fields));
                outcomes.push(None);
            }
            _ => outcomes.push(Some(Err(Problem::bad_request(UPLOAD_OBJECT)))),
        }
    }
    let mut answers = match spent.block(move || connector.upload_all(inputs)).await {
        Ok(answers) => answers.into_iter(),
        Err(e) => return Err(internal(&e)),
    };
    Ok(outcomes
        .into_iter()
        .map(|outcome| match outcome {
            Some(refused) => refused,
            None => match answers.next() {
                Some(answer) => answer.map_err(problem),
                None => Err(internal(&"the batch was answered short")),
            },
        })
        .collect())
}

fn internal(e: &dyn std::fmt::Display) -> Problem {
    Problem::internal("an upload", e)
}

/// The answer for a use-case error of an upload, under the error's own
/// code.
fn problem(e: ServiceError) -> Problem {
    problem_of(e, "an upload")
}

/// The answer for a use-case error of the connector endpoints, under the
/// error's own code; an error that is not the caller's is logged as `what`
/// failing.
pub(crate) fn problem_of(e: ServiceError, what: &str) -> Problem {
    let (status, fields) = match &e {
        ServiceError::Validation(errors) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            errors
                .violations()
                .iter()
                .map(|v| (v.field.to_string(), v.rule.to_string()))
                .collect(),
        ),
        ServiceError::UnknownUser => (
            StatusCode::UNPROCESSABLE_ENTITY,
            vec![("user_email".to_owned(), e.to_string())],
        ),
        ServiceError::DuplicateAlias { .. } => (
            StatusCode::CONFLICT,
            vec![("action_alias".to_owned(), e.to_string())],
        ),
        _ => return Problem::internal(what, &e.log_message()),
    };
    let mut problem = Problem::service(status, &e, e.to_string());
    problem.fields = fields;
    problem
}

/// The body of an accepted upload's answer.
fn created(accepted: Accepted) -> wire::Accepted {
    wire::Accepted {
        id: accepted.action_id,
        global_user_id: accepted.user.as_uuid(),
        topics: accepted
            .topics
            .into_iter()
            .map(|t| LearnedTopic {
                topic: t.label,
                key: t.key,
                score: t.score,
                shown: t.shown,
            })
            .collect(),
    }
}

/// The reason given for a field that is not a string.
const NOT_A_STRING: &str = "must be a string";
/// The reason given for a field the body (or a text) does not have.
const UNKNOWN_FIELD: &str = "is not a known field";

/// One field as the domain reads it: missing, null, a string, or refused
/// for being of another JSON type.
pub(crate) fn string_field(fields: &mut Map<String, Value>, name: &str) -> Raw<String> {
    match fields.remove(name) {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(Value::String(s)) => Raw::Value(s),
        Some(_) => Raw::Refused(NOT_A_STRING),
    }
}

/// The fields left once the known ones are taken: each is refused.
pub(crate) fn unknown(fields: Map<String, Value>) -> Vec<(String, &'static str)> {
    fields
        .into_iter()
        .map(|(name, _)| (name, UNKNOWN_FIELD))
        .collect()
}

fn text_input(entry: Value) -> Raw<TextInput> {
    let Value::Object(mut fields) = entry else {
        return Raw::Refused("must be an object");
    };
    Raw::Value(TextInput {
        text_format: string_field(&mut fields, "text_format"),
        descriptor: string_field(&mut fields, "descriptor"),
        text: string_field(&mut fields, "text"),
        refused_fields: unknown(fields),
    })
}

/// The body's fields, each as sent; `texts` may be one object or an array.
/// Values of the wrong JSON type and unknown fields are refused here, with
/// the reason the client is given; the domain checks the rest and reports
/// every problem in one list.
fn upload_input(mut fields: Map<String, Value>) -> UploadInput {
    let texts = match fields.remove("texts") {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(object @ Value::Object(_)) => Raw::Value(vec![text_input(object)]),
        Some(Value::Array(entries)) => Raw::Value(entries.into_iter().map(text_input).collect()),
        Some(_) => Raw::Refused("must be an object or an array of objects"),
    };
    UploadInput {
        entity_type: string_field(&mut fields, "entity_type"),
        action_type: string_field(&mut fields, "action_type"),
        action_date: string_field(&mut fields, "action_date"),
        user_email: string_field(&mut fields, "user_email"),
        text: string_field(&mut fields, "text"),
        texts,
        action_alias: string_field(&mut fields, "action_alias"),
        refused_fields: unknown(fields),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use kenning_domain::{ActionAlias, ActionType, EntityType, Upload};
    use serde_json::json;

    use super::*;

    fn input(value: Value) -> UploadInput {
        match value {
            Value::Object(fields) => upload_input(fields),
            _ => unreachable!("tests pass objects"),
        }
    }

    /// The `fields` of the answer to `body`, as the client reads them.
    fn problems(body: Value) -> Vec<(String, String)> {
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap();
        let errors = Upload::parse(input(body), now).unwrap_err();
        problem(ServiceError::Validation(errors)).fields
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|(field, problem)| (field.to_string(), problem.to_string()))
            .collect()
    }

    /// The property names of a schema of the OpenAPI document.
    fn documented_fields(schema: &str) -> Vec<String> {
        let document = serde_json::to_value(crate::openapi::document(100)).unwrap();
        let properties = document["components"]["schemas"][schema]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("no schema {schema}"));
        properties.keys().cloned().collect()
    }

    /// The document's request bodies name exactly the fields the handler
    /// reads: every documented field is taken (none is refused as
    /// unknown), and given them all, the handler misses none.
    #[test]
    fn the_document_names_the_fields_the_handler_reads() {
        let text_fields = documented_fields("TextEntry");
        let text: Map<String, Value> = text_fields
            .iter()
            .map(|f| (f.clone(), json!("x")))
            .collect();
        let mut body: Map<String, Value> = documented_fields("UploadRequest")
            .into_iter()
            .map(|f| (f, json!("x")))
            .collect();
        body.insert("texts".to_owned(), Value::Object(text));
        let read = upload_input(body);
        assert!(read.refused_fields.is_empty(), "{:?}", read.refused_fields);
        for (name, field) in [
            ("entity_type", &read.entity_type),
            ("action_type", &read.action_type),
            ("action_date", &read.action_date),
            ("user_email", &read.user_email),
            ("text", &read.text),
            ("action_alias", &read.action_alias),
        ] {
            assert_eq!(field, &Raw::Value("x".to_owned()), "{name}");
        }
        let Raw::Value(texts) = read.texts else {
            panic!("texts not read")
        };
        let Raw::Value(entry) = &texts[0] else {
            panic!("the text entry not read")
        };
        assert!(
            entry.refused_fields.is_empty(),
            "{:?}",
            entry.refused_fields
        );
        for field in [&entry.text, &entry.text_format, &entry.descriptor] {
            assert_eq!(field, &Raw::Value("x".to_owned()));
        }
        assert_eq!(documented_fields("BatchRequest"), vec!["items".to_owned()]);
    }

    /// The limits the document states are the domain's.
    #[test]
    fn the_document_states_the_domains_limits() {
        let document = serde_json::to_value(crate::openapi::document(100)).unwrap();
        let upload = &document["components"]["schemas"]["UploadRequest"]["properties"];
        assert_eq!(upload["entity_type"]["maxLength"], EntityType::MAX_CHARS);
        assert_eq!(upload["action_type"]["maxLength"], ActionType::MAX_CHARS);
        assert_eq!(upload["action_alias"]["maxLength"], ActionAlias::MAX_CHARS);
        let texts = serde_json::to_string(&document["components"]["schemas"]["Texts"]).unwrap();
        assert!(texts.contains("TextEntry"), "{texts}");
        assert_eq!(
            Upload::MAX_TEXTS,
            100,
            "the doc comment of Texts says 1 to 100"
        );
    }

    #[test]
    fn texts_is_one_object_or_an_array() {
        let one = input(json!({ "texts": { "text": "a", "descriptor": "primary" } }));
        let Raw::Value(entries) = one.texts else {
            panic!("one object is one entry")
        };
        assert_eq!(entries.len(), 1);
        let many = input(json!({ "texts": [{ "text": "a" }, 3] }));
        let Raw::Value(entries) = many.texts else {
            panic!("an array is its entries")
        };
        assert!(matches!(entries[0], Raw::Value(_)));
        assert!(matches!(entries[1], Raw::Refused("must be an object")));
    }

    #[test]
    fn fields_keep_missing_null_and_wrong_types_apart() {
        let i = input(
            json!({ "entity_type": null, "action_type": 3, "user_email": "a@b.c", "extra": 1 }),
        );
        assert_eq!(i.entity_type, Raw::Null);
        assert_eq!(i.action_type, Raw::Refused("must be a string"));
        assert_eq!(i.action_date, Raw::Missing);
        assert_eq!(i.user_email, Raw::Value("a@b.c".to_owned()));
        assert_eq!(
            i.refused_fields,
            vec![("extra".to_owned(), "is not a known field")]
        );
    }

    #[test]
    fn wrong_types_and_unknown_fields_are_reported_among_every_problem() {
        let body = json!({
            "entity_type": "Document",
            "action_type": 7,
            "action_date": "yesterday",
            "user_email": "not-an-address",
            "texts": [
                true,
                { "text_format": "markdown", "descriptor": "main", "text": "  ", "lang": "en" },
            ],
            "action_alias": "a".repeat(256),
            "user": "ada",
        });
        assert_eq!(
            problems(body),
            pairs(&[
                ("user", "is not a known field"),
                (
                    "entity_type",
                    "must be lower-case letters, digits and underscores"
                ),
                ("action_type", "must be a string"),
                (
                    "action_date",
                    "must be an RFC 3339 timestamp with an offset, e.g. 2026-03-02T08:00:00.000Z"
                ),
                ("user_email", "must be a valid e-mail address"),
                ("action_alias", "must be at most 255 characters"),
                ("texts[0]", "must be an object"),
                ("texts[1].lang", "is not a known field"),
                ("texts[1].text_format", "must be one of plain, html"),
                (
                    "texts[1].descriptor",
                    "must be one of default, primary, secondary"
                ),
                ("texts[1].text", "is required and cannot be blank"),
            ])
        );
    }

    #[test]
    fn a_wrong_type_counts_as_sent() {
        let base = json!({
            "entity_type": "document",
            "action_type": "edit",
            "action_date": "2026-03-01T10:15:00Z",
            "user_email": "ada@example.com",
        });
        let with = |extra: Value| {
            let mut body = base.clone();
            for (name, value) in extra.as_object().into_iter().flatten() {
                body[name] = value.clone();
            }
            problems(body)
        };
        assert_eq!(
            with(json!({ "text": 12 })),
            pairs(&[("text", "must be a string")])
        );
        assert_eq!(
            with(json!({ "text": 12, "texts": [3] })),
            pairs(&[("text", "exactly one of this and texts is required")])
        );
        assert_eq!(
            with(json!({ "texts": "a text" })),
            pairs(&[("texts", "must be an object or an array of objects")])
        );
        assert_eq!(
            with(json!({ "text": "a", "action_alias": 5 })),
            pairs(&[("action_alias", "must be a string")])
        );
    }
}
