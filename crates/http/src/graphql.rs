//! The GraphQL endpoint: authentication, body guards, execution.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use juniper::http::GraphQLBatchRequest;
use kenning_graphql::{Answer, Context};
use serde_json::Value;

use crate::body::read_json;
use crate::codes::RequestCode;
use crate::credential;
use crate::problem::Problem;
use crate::state::AppState;

/// `POST /accounts/api/v1/graphql`.
pub async fn execute(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    match run(req, payload, state).await {
        Ok(response) => response,
        Err(problem) => problem.into_graphql_response(),
    }
}

async fn run(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Problem> {
    let machine = credential::bearer(&req, &state).await?;
    let body = read_json(
        &req,
        payload,
        state.config.body_limit,
        state.config.body_timeout,
    )
    .await?;
    let request = parse_request(&body, state.config.max_batch)?;

    let context = Context::new(machine, &state.gate, state.schema.limits().max_offset)
        .map_err(|_| Problem::unauthenticated("GraphQL takes an access token, not an API key"))?;
    let schema = state.schema.clone();
    let max_response = state.config.max_response_bytes;
    let (ok, json) = web::block(move || {
        let answer = schema.execute(&request, &context);
        (answer.is_ok(), serialize(&answer, max_response))
    })
    .await
    .map_err(|e| internal(&e))?;
    let json = json?;
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    Ok(HttpResponse::build(status)
        .content_type("application/json")
        .body(json))
}

/// `answer` as JSON, unless it would be longer than `limit` bytes: then
/// 400 `ResponseTooLarge`, and the writing stops there, so the refused
/// answer is never held whole.
fn serialize(answer: &Answer, limit: usize) -> Result<Vec<u8>, Problem> {
    let mut out = Capped {
        bytes: Vec::new(),
        limit,
    };
    match serde_json::to_writer(&mut out, answer) {
        Ok(()) => Ok(out.bytes),
        Err(e) if e.is_io() => Err(Problem::refusal(
            RequestCode::ResponseTooLarge,
            format!(
                "the answer would be larger than the limit of {limit} bytes: ask for fewer items (a smaller limit) or fewer fields"
            ),
        )),
        Err(e) => Err(internal(&e)),
    }
}

/// A buffer that refuses to grow past `limit` bytes.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + data.len() > self.limit {
            return Err(std::io::Error::other("the answer is too large"));
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn internal(e: &dyn std::fmt::Display) -> Problem {
    Problem::internal("GraphQL execution", e)
}

/// Checks the shape of a GraphQL-over-HTTP body before juniper sees it, so
/// that every malformed body gets a 400 naming what is wrong.
fn parse_request(body: &[u8], max_batch: usize) -> Result<GraphQLBatchRequest, Problem> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| Problem::bad_request(format!("the body is not valid JSON: {e}")))?;
    match &value {
        Value::Object(_) => check_operation(&value, None)?,
        Value::Array(batch) => {
            if batch.is_empty() {
                return Err(Problem::bad_request("a batch must hold at least one operation"));
            }
            if batch.len() > max_batch {
                return Err(Problem::bad_request(format!(
                    "a batch may hold at most {max_batch} operations"
                )));
            }
            for (i, op) in batch.iter().enumerate() {
                check_operation(op, Some(i))?;
            }
        }
        _ => {
            return Err(Problem::bad_request(
                "the body must be a JSON object {\"query\", \"variables\", \"operationName\"} or an array of them",
            ))
        }
    }
    serde_json::from_value(value)
        .map_err(|e| Problem::bad_request(format!("the body is not a GraphQL request: {e}")))
}

fn check_operation(op: &Value, index: Option<usize>) -> Result<(), Problem> {
    let at = index
        .map(|i| format!(" (operation {i})"))
        .unwrap_or_default();
    let fail = |what: &str| Err(Problem::bad_request(format!("{what}{at}")));
    let Value::Object(fields) = op else {
        return fail("each operation must be a JSON object");
    };
    match fields.get("query") {
        Some(Value::String(_)) => {}
        Some(_) => return fail("`query` must be a string"),
        None => return fail("`query` is required"),
    }
    match fields.get("variables") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(_) => return fail("`variables` must be a JSON object or null"),
    }
    match fields.get("operationName") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => return fail("`operationName` must be a string or null"),
    }
    Ok(())
}
