//! The connector endpoint: `POST /connectors/api/v1/entities-with-action`.
//!
//! A connector script authenticates with the `APIKEY` header and sends one
//! entity with the action a user took on it. The answer is 201 with the
//! stored action's id and the topics learned, or a JSON problem:
//! 401 `Unauthenticated`, 415 `UnsupportedMediaType`, 413
//! `PayloadTooLarge`, 400 `BadRequest` (not JSON, or not an object), 422
//! `ValidationError` (every bad field at once) or `UnknownUser`, 409
//! `DuplicateAlias`.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use kenning_app::{Accepted, ServiceError};
use kenning_domain::{CredentialKind, Raw, TextInput, UploadInput};
use serde_json::{json, Map, Value};

use crate::body::read_json;
use crate::credential;
use crate::problem::Problem;
use crate::AppState;

/// The header that carries the connector's key.
const API_KEY_HEADER: &str = "APIKEY";

/// `POST /connectors/api/v1/entities-with-action`.
pub async fn upload(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let outcome = run(req, payload, &state).await;
    let code = match &outcome {
        Ok(_) => "Accepted",
        Err(problem) => problem.code,
    };
    state.metrics.count_upload(code);
    match outcome {
        Ok(accepted) => {
            state.metrics.count_topics(accepted.topics.len());
            created(accepted)
        }
        Err(problem) => problem.into_response(),
    }
}

async fn run(
    req: HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<Accepted, Problem> {
    authenticate(&req, state).await?;
    let body = read_json(
        &req,
        payload,
        state.config.body_limit,
        state.config.body_timeout,
    )
    .await?;
    let value: Value = serde_json::from_slice(&body)
        .map_err(|e| Problem::bad_request(format!("the body is not valid JSON: {e}")))?;
    let Value::Object(fields) = value else {
        return Err(Problem::bad_request(
            "the body must be a JSON object with entity_type, action_type, action_date, user_email and text or texts",
        ));
    };
    let input = upload_input(fields);
    let expertise = state.expertise.clone();
    match web::block(move || expertise.upload(input)).await {
        Ok(Ok(accepted)) => Ok(accepted),
        Ok(Err(e)) => Err(problem(e)),
        Err(e) => Err(internal(&e)),
    }
}

fn internal(e: &dyn std::fmt::Display) -> Problem {
    Problem::internal("an upload", e)
}

/// Checks the `APIKEY` header: only connector keys pass, never access
/// tokens.
async fn authenticate(req: &HttpRequest, state: &AppState) -> Result<(), Problem> {
    const REFUSED: &str = "the API key is unknown or revoked";
    let key = match req.headers().get(API_KEY_HEADER) {
        None => Err(Problem::unauthenticated(
            "send the connector's API key in the APIKEY header",
        )),
        Some(value) => value
            .to_str()
            .map(|v| v.trim().to_owned())
            .map_err(|_| Problem::unauthenticated(REFUSED)),
    };
    credential::check(req, state, CredentialKind::ApiKey, key, REFUSED).await?;
    Ok(())
}

/// The answer for a use-case error.
fn problem(e: ServiceError) -> Problem {
    match e {
        ServiceError::Validation(errors) => Problem {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "ValidationError",
            message: errors.to_string(),
            fields: errors
                .violations()
                .iter()
                .map(|v| (v.field.to_string(), v.rule.to_string()))
                .collect(),
            retry_after: None,
        },
        ServiceError::UnknownUser => Problem {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "UnknownUser",
            message: e.to_string(),
            fields: vec![("user_email".to_owned(), e.to_string())],
            retry_after: None,
        },
        ServiceError::DuplicateAlias => Problem {
            status: StatusCode::CONFLICT,
            code: "DuplicateAlias",
            message: e.to_string(),
            fields: vec![("action_alias".to_owned(), e.to_string())],
            retry_after: None,
        },
        other => internal(&other.log_message()),
    }
}

fn created(accepted: Accepted) -> HttpResponse {
    let topics: Vec<Value> = accepted
        .topics
        .iter()
        .map(|t| json!({ "topic": t.label, "key": t.key, "score": t.score }))
        .collect();
    HttpResponse::Created().json(json!({
        "id": accepted.action_id,
        "globalUserId": accepted.user.as_uuid(),
        "topics": topics,
    }))
}

/// One field as the domain reads it: missing, null, of the wrong JSON type,
/// or a string.
fn string_field(fields: &mut Map<String, Value>, name: &str) -> Raw<String> {
    match fields.remove(name) {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(Value::String(s)) => Raw::Value(s),
        Some(_) => Raw::WrongType,
    }
}

fn unknown(fields: Map<String, Value>) -> Vec<String> {
    fields.into_iter().map(|(name, _)| name).collect()
}

fn text_input(entry: Value) -> Raw<TextInput> {
    let Value::Object(mut fields) = entry else {
        return Raw::WrongType;
    };
    Raw::Value(TextInput {
        text_format: string_field(&mut fields, "text_format"),
        descriptor: string_field(&mut fields, "descriptor"),
        text: string_field(&mut fields, "text"),
        unknown_fields: unknown(fields),
    })
}

/// The body's fields, each as sent; `texts` may be one object or an array.
fn upload_input(mut fields: Map<String, Value>) -> UploadInput {
    let texts = match fields.remove("texts") {
        None => Raw::Missing,
        Some(Value::Null) => Raw::Null,
        Some(object @ Value::Object(_)) => Raw::Value(vec![text_input(object)]),
        Some(Value::Array(entries)) => Raw::Value(entries.into_iter().map(text_input).collect()),
        Some(_) => Raw::WrongType,
    };
    UploadInput {
        entity_type: string_field(&mut fields, "entity_type"),
        action_type: string_field(&mut fields, "action_type"),
        action_date: string_field(&mut fields, "action_date"),
        user_email: string_field(&mut fields, "user_email"),
        text: string_field(&mut fields, "text"),
        texts,
        action_alias: string_field(&mut fields, "action_alias"),
        unknown_fields: unknown(fields),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(value: Value) -> UploadInput {
        match value {
            Value::Object(fields) => upload_input(fields),
            _ => unreachable!("tests pass objects"),
        }
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
        assert!(matches!(entries[1], Raw::WrongType));
    }

    #[test]
    fn fields_keep_missing_null_and_wrong_types_apart() {
        let i = input(
            json!({ "entity_type": null, "action_type": 3, "user_email": "a@b.c", "extra": 1 }),
        );
        assert_eq!(i.entity_type, Raw::Null);
        assert_eq!(i.action_type, Raw::WrongType);
        assert_eq!(i.action_date, Raw::Missing);
        assert_eq!(i.user_email, Raw::Value("a@b.c".to_owned()));
        assert_eq!(i.unknown_fields, vec!["extra".to_owned()]);
    }
}
