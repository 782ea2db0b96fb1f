//! The endpoints the ready connectors (`kenning connect`) call beside
//! their uploads, with the same API key, body limit and error envelope:
//! `POST /connectors/api/v1/people`, which users a source's identities
//! are, and `POST /connectors/api/v1/runs`, how a run went.
//!
//! Both are refused as the upload is (401, 413, 415, 400) before their use
//! case sees them; the use case refuses a bad body with 422
//! `ValidationError`, every bad field at once.

use actix_web::{web, HttpRequest, HttpResponse};
use kenning_domain::{IdentityInput, Raw, RunInput};
use serde_json::{Map, Value};

use crate::connector::{problem_of, read_object, string_field, unknown};
use crate::problem::Problem;
use crate::state::AppState;
use crate::wire::{self, ErrorEnvelope, PeopleAnswer, PersonFound, RunRecorded};

/// What the body of a question about identities must be.
const PEOPLE_OBJECT: &str =
    "the body must be a JSON object with identities, an array of objects with email and external_id";

/// What the body of a run's report must be.
const RUN_OBJECT: &str = "a run's report must be a JSON object with source, name, started, finished, the counts and dry_run";

/// `POST /connectors/api/v1/people`.
#[utoipa::path(
    post,
    path = "/connectors/api/v1/people",
    tag = "sources",
    operation_id = "people",
    summary = "Find which users a source's identities are",
    description = "For each identity, in order: the user an upload naming it would teach (found by e-mail without regard to case, else by externalId exactly; not pending deletion nor deleted), or null. Creates nobody. A user found is answered with their e-mail address in Kenning (`user_email`), by which an upload names them: for an identity given by e-mail, the address given as Kenning spells it; for one given by externalId alone, the user's address, which the key's holder learns this way. Nothing else about them is answered. An API key may teach about anyone it names, so it is trusted with this: keep API keys as secret as tokens that read users.",
    request_body(content = wire::PeopleRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "One entry per identity, in request order", body = PeopleAnswer),
        wire::Refusals,
        (status = 422, description = "`ValidationError`: `identities` is not an array of 1 to 1000 identities, an identity gives neither `email` nor `external_id`, or the body has another field", body = ErrorEnvelope),
    ),
    security(("api_key" = []))
)]
pub async fn people(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    match find_people(req, payload, &state).await {
        Ok(answer) => HttpResponse::Ok().json(answer),
        Err(problem) => problem.into_response(),
    }
}

async fn find_people(
    req: HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<PeopleAnswer, Problem> {
    let limit = state.config.body_limit;
    let (connector, mut fields) = read_object(&req, payload, state, limit, PEOPLE_OBJECT).await?;
    let identities = match fields.remove("identities") {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(Value::Array(entries)) => Raw::Value(entries.into_iter().map(identity).collect()),
        Some(_) => Raw::Refused("must be an array of identities"),
    };
    let refused = unknown(fields);
    if !refused.is_empty() {
        return Err(Problem::validation(
            refused
                .into_iter()
                .map(|(field, rule)| (field, rule.to_owned()))
                .collect(),
        ));
    }
    match web::block(move || connector.identify(identities)).await {
        Ok(Ok(found)) => Ok(PeopleAnswer {
            people: found
                .into_iter()
                .map(|email| {
                    email.map(|email| PersonFound {
                        user_email: email.as_str().to_owned(),
                    })
                })
                .collect(),
        }),
        Ok(Err(e)) => Err(problem_of(e, "finding people")),
        Err(e) => Err(Problem::internal("finding people", &e)),
    }
}

/// One identity as the domain reads it.
fn identity(entry: Value) -> Raw<IdentityInput> {
    let Value::Object(mut fields) = entry else {
        return Raw::Refused("must be an object");
    };
    Raw::Value(IdentityInput {
        email: string_field(&mut fields, "email"),
        external_id: string_field(&mut fields, "external_id"),
        refused_fields: unknown(fields),
    })
}

/// `POST /connectors/api/v1/runs`.
#[utoipa::path(
    post,
    path = "/connectors/api/v1/runs",
    tag = "sources",
    operation_id = "reportRun",
    summary = "Report how a run of a connector went",
    description = "Records the run with the API key that reports it and the moment it is received; the admin console's Sources page shows each source's last run. The newest 1000 runs of each source (its kind and name) are kept. A source is reported by the API key of its last run: another key is refused (403 `Forbidden`) while that key is neither revoked nor expired, so that no key buries another's failed runs; and one key reports runs of at most 1000 sources (403 `Forbidden` for one more).",
    request_body(content = wire::RunRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Recorded", body = RunRecorded),
        (status = 403, description = "`Forbidden`: the source is another live key's, or this key reports as many sources as one key may", body = ErrorEnvelope),
        wire::Refusals,
        (status = 422, description = "`ValidationError`: every bad field, each with its rule", body = ErrorEnvelope),
    ),
    security(("api_key" = []))
)]
pub async fn report_run(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    match record(req, payload, &state).await {
        Ok(id) => HttpResponse::Created().json(RunRecorded { id }),
        Err(problem) => problem.into_response(),
    }
}

async fn record(
    req: HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<uuid::Uuid, Problem> {
    let limit = state.config.body_limit;
    let (connector, fields) = read_object(&req, payload, state, limit, RUN_OBJECT).await?;
    let input = run_input(fields);
    match web::block(move || connector.record_run(input)).await {
        Ok(Ok(id)) => Ok(id),
        Ok(Err(e)) => Err(problem_of(e, "recording a run")),
        Err(e) => Err(Problem::internal("recording a run", &e)),
    }
}

/// The reason given for a count that is not a whole number.
const NOT_A_COUNT: &str = "must be a whole number";

/// A count as the domain reads it: a JSON number without a fraction.
fn count(value: Option<Value>) -> Raw<i128> {
    match value {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(Value::Number(n)) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .map_or(Raw::Refused(NOT_A_COUNT), Raw::Value),
        Some(_) => Raw::Refused(NOT_A_COUNT),
    }
}

/// The report's fields, each as sent; values of the wrong JSON type and
/// unknown fields are refused here, the domain checks the rest.
fn run_input(mut fields: Map<String, Value>) -> RunInput {
    let refused = match fields.remove("refused") {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(Value::Object(codes)) => Raw::Value(
            codes
                .into_iter()
                .map(|(code, n)| (code, count(Some(n))))
                .collect(),
        ),
        Some(_) => Raw::Refused("must be an object of counts by code"),
    };
    let dry_run = match fields.remove("dry_run") {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(Value::Bool(dry_run)) => Raw::Value(dry_run),
        Some(_) => Raw::Refused("must be true or false"),
    };
    RunInput {
        source: string_field(&mut fields, "source"),
        name: string_field(&mut fields, "name"),
        started: string_field(&mut fields, "started"),
        finished: string_field(&mut fields, "finished"),
        read: count(fields.remove("read")),
        sent: count(fields.remove("sent")),
        known: count(fields.remove("known")),
        not_found: count(fields.remove("not_found")),
        refused,
        failed: count(fields.remove("failed")),
        dry_run,
        error: string_field(&mut fields, "error"),
        refused_fields: unknown(fields),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use kenning_domain::{RefusalCode, RunCounts, RunError, RunReport, SourceKind, SourceName};
    use serde_json::json;

    use super::*;

    /// The property names of a schema of the OpenAPI document.
    fn documented(schema: &str) -> Map<String, Value> {
        let document = serde_json::to_value(crate::openapi::document(100)).unwrap();
        document["components"]["schemas"][schema]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("no schema {schema}"))
            .clone()
    }

    /// Every documented field of a run is read (none refused as
    /// unknown), and given them all, the handler misses none.
    #[test]
    fn the_document_names_the_fields_the_run_handler_reads() {
        let values = json!({
            "source": "git", "name": "n", "started": "s", "finished": "f",
            "read": 1, "sent": 2, "known": 3, "not_found": 4, "failed": 5,
            "refused": { "UnknownUser": 6 }, "dry_run": true, "error": "e",
        });
        let body: Map<String, Value> = documented("RunRequest")
            .keys()
            .map(|name| (name.clone(), values[name].clone()))
            .collect();
        let input = run_input(body);
        assert!(
            input.refused_fields.is_empty(),
            "{:?}",
            input.refused_fields
        );
        for (name, field) in [
            ("source", &input.source),
            ("name", &input.name),
            ("started", &input.started),
            ("finished", &input.finished),
            ("error", &input.error),
        ] {
            assert!(matches!(field, Raw::Value(_)), "{name}");
        }
        let counts = [
            &input.read,
            &input.sent,
            &input.known,
            &input.not_found,
            &input.failed,
        ];
        assert_eq!(counts.map(|c| c.clone()), [1, 2, 3, 4, 5].map(Raw::Value));
        assert_eq!(
            input.refused,
            Raw::Value(vec![("UnknownUser".to_owned(), Raw::Value(6))])
        );
        assert_eq!(input.dry_run, Raw::Value(true));
    }

    #[test]
    fn the_document_names_the_fields_the_people_handler_reads() {
        let fields: Vec<String> = documented("Identity").keys().cloned().collect();
        let entry: Map<String, Value> = fields.iter().map(|f| (f.clone(), json!("x"))).collect();
        let Raw::Value(read) = identity(Value::Object(entry)) else {
            panic!("an object is an identity")
        };
        assert!(read.refused_fields.is_empty(), "{:?}", read.refused_fields);
        assert_eq!(read.email, Raw::Value("x".to_owned()));
        assert_eq!(read.external_id, Raw::Value("x".to_owned()));
        assert_eq!(
            documented("PeopleRequest").keys().collect::<Vec<_>>(),
            ["identities"]
        );
    }

    /// The limits the document states are the domain's.
    #[test]
    fn the_document_states_the_domains_limits() {
        let run = documented("RunRequest");
        assert_eq!(run["source"]["maxLength"], SourceKind::MAX_CHARS);
        assert_eq!(run["name"]["maxLength"], SourceName::MAX_CHARS);
        assert_eq!(run["error"]["maxLength"], RunError::MAX_CHARS);
        assert_eq!(run["read"]["maximum"], RunCounts::MAX);
        assert_eq!(
            run["refused"]["maxProperties"],
            RunReport::MAX_REFUSAL_CODES
        );
        assert_eq!(RefusalCode::MAX_CHARS, 100, "RunRequest's refused says so");
        let people = documented("PeopleRequest");
        assert_eq!(
            people["identities"]["maxItems"],
            kenning_domain::SourceIdentity::MAX_PER_REQUEST
        );
    }

    #[test]
    fn values_of_the_wrong_type_are_refused_with_the_reason() {
        let Value::Object(body) = json!({
            "read": 1.5, "sent": "3", "known": -1, "not_found": u64::MAX,
            "refused": [1], "dry_run": "no", "name": 7, "extra": true,
        }) else {
            unreachable!()
        };
        let input = run_input(body);
        assert_eq!(input.read, Raw::Refused(NOT_A_COUNT));
        assert_eq!(input.sent, Raw::Refused(NOT_A_COUNT));
        assert_eq!(input.known, Raw::Value(-1));
        assert_eq!(input.not_found, Raw::Value(i128::from(u64::MAX)));
        assert_eq!(input.failed, Raw::Missing);
        assert_eq!(
            input.refused,
            Raw::Refused("must be an object of counts by code")
        );
        assert_eq!(input.dry_run, Raw::Refused("must be true or false"));
        assert_eq!(input.name, Raw::Refused("must be a string"));
        assert_eq!(
            input.refused_fields,
            vec![("extra".to_owned(), "is not a known field")]
        );
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap();
        let fields: Vec<String> = RunReport::parse(input, now)
            .unwrap_err()
            .violations()
            .iter()
            .map(|v| v.field.to_string())
            .collect();
        assert_eq!(
            fields,
            [
                "extra",
                "source",
                "name",
                "started",
                "finished",
                "read",
                "sent",
                "known",
                "not_found",
                "refused",
                "failed",
                "dry_run"
            ]
        );
    }
}
