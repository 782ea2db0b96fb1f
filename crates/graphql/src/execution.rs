//! Running requests against the schema, so that every error a client sees
//! carries a stable `extensions.code`: the resolvers' [`ApiError`]s carry
//! theirs, and the errors juniper raises itself (a document that does not
//! parse, fails validation or names an unknown operation, variables that
//! do not coerce) are given one here.
//!
//! [`ApiError`]: crate::ApiError

use juniper::http::{GraphQLBatchRequest, GraphQLRequest};
use juniper::parser::SourcePosition;
use juniper::{
    DefaultScalarValue, ExecutionError, GraphQLError, ParseError, RuleError, ValidatedOperation,
    Value,
};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::context::Context;
use crate::cost::operation_cost;
use crate::schema::Schema;

/// The code of a request that cannot be run as sent: a document that does
/// not parse, an unknown operation name, a subscription.
pub const BAD_REQUEST: &str = "BadRequest";
/// The code of a document that fails validation, or of variables that do
/// not fit their declared types; `extensions.field` names the variable
/// when there is one.
pub const VALIDATION_ERROR: &str = "ValidationError";
/// The code of a document beyond the depth, token, field or cost limit;
/// `extensions.limit` says which limit, `extensions.cost` what the
/// document would cost.
pub const QUERY_TOO_COMPLEX: &str = "QueryTooComplex";

/// Where in the document an error is, counted from 1 as GraphQL does.
#[derive(Debug, Clone, Copy, Serialize)]
struct Location {
    line: usize,
    column: usize,
}

impl From<&SourcePosition> for Location {
    fn from(p: &SourcePosition) -> Self {
        Self {
            line: p.line() + 1,
            column: p.column() + 1,
        }
    }
}

#[derive(Debug, Serialize)]
struct Extensions {
    code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<u64>,
}

/// An error that kept an operation from running, as the client sees it.
#[derive(Debug, Serialize)]
pub struct RequestError {
    message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    extensions: Extensions,
}

impl RequestError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            locations: Vec::new(),
            extensions: Extensions {
                code,
                field: None,
                limit: None,
                cost: None,
            },
        }
    }

    fn at(mut self, location: Location) -> Self {
        self.locations.push(location);
        self
    }

    fn limit(mut self, limit: u64) -> Self {
        self.extensions.limit = Some(limit);
        self
    }

    /// The stable code.
    pub fn code(&self) -> &'static str {
        self.extensions.code
    }

    fn too_costly(what: &str, cost: u64, limit: u64) -> Self {
        let mut error = Self::new(
            QUERY_TOO_COMPLEX,
            format!(
                "{what} would cost {cost}, above the limit of {limit}: ask for fewer items (a smaller limit) or fewer fields"
            ),
        )
        .limit(limit);
        error.extensions.cost = Some(cost);
        error
    }
}

/// The variable a juniper validation message is about, if any: juniper
/// words variable errors as `Variable "$name" ...`.
fn variable_named(message: &str) -> Option<String> {
    let rest = message.strip_prefix("Variable \"$")?;
    let (name, _) = rest.split_once('"')?;
    Some(name.to_owned())
}

/// Where in the operation's arguments a variable error points: the
/// argument the variable is given to in `query` (the variable's own name
/// when it is not given straight to one), then the input fields and list
/// elements juniper's `message` walks into: `createUserInput.email` for
/// `createUser(createUserInput: $i)` and `In field "email": ...`.
fn argument_path(query: &str, variable: &str, message: &str) -> String {
    let mut path = argument_of(query, variable).unwrap_or_else(|| variable.to_owned());
    let mut rest = message
        .split_once("got invalid value.")
        .map_or("", |(_, rest)| rest)
        .trim_start();
    loop {
        if let Some(field) = rest.strip_prefix("In field \"") {
            let Some((name, after)) = field.split_once("\": ") else {
                break;
            };
            path.push('.');
            path.push_str(name);
            rest = after;
        } else if let Some(element) = rest.strip_prefix("In element #") {
            let Some((index, after)) = element.split_once(": ") else {
                break;
            };
            path.push_str(&format!("[{index}]"));
            rest = after;
        } else {
            break;
        }
    }
    path
}

/// The argument or input field `$variable` is first given to in `query`
/// (`name: $variable`), skipping its declaration (`$variable: Type`).
fn argument_of(query: &str, variable: &str) -> Option<String> {
    let wanted = format!("${variable}");
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    query.match_indices(&wanted).find_map(|(at, _)| {
        let after = &query[at + wanted.len()..];
        if after.starts_with(is_name) || after.trim_start().starts_with(':') {
            return None;
        }
        let before = query[..at].trim_end().strip_suffix(':')?.trim_end();
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_name(*c))
            .last()
            .map(|(i, _)| i)?;
        Some(before[start..].to_owned())
    })
}

fn rule_error(e: &RuleError, query: &str) -> RequestError {
    let mut error = RequestError::new(VALIDATION_ERROR, e.message());
    error.locations = e.locations().iter().map(Location::from).collect();
    error.extensions.field =
        variable_named(e.message()).map(|variable| argument_path(query, &variable, e.message()));
    error
}

/// The errors a client sees for an error juniper raised before or instead
/// of executing.
fn request_errors(e: GraphQLError, query: &str) -> Vec<RequestError> {
    match e {
        GraphQLError::ParseError(spanning) => {
            let at = Location::from(&spanning.start());
            let error = match spanning.item {
                ParseError::DepthLimitExceeded(limit)
                | ParseError::TokenLimitExceeded(limit)
                | ParseError::FieldLimitExceeded(limit) => {
                    RequestError::new(QUERY_TOO_COMPLEX, spanning.item.to_string())
                        .limit(u64::try_from(limit).unwrap_or(u64::MAX))
                }
                other => RequestError::new(BAD_REQUEST, other.to_string()),
            };
            vec![error.at(at)]
        }
        GraphQLError::ValidationError(errors) => {
            errors.iter().map(|e| rule_error(e, query)).collect()
        }
        GraphQLError::NoOperationProvided => {
            vec![RequestError::new(
                BAD_REQUEST,
                "the document holds no operation",
            )]
        }
        GraphQLError::MultipleOperationsProvided => vec![RequestError::new(
            BAD_REQUEST,
            "the document holds several operations: name one in operationName",
        )],
        GraphQLError::UnknownOperationName => vec![RequestError::new(
            BAD_REQUEST,
            "the document holds no operation of that operationName",
        )],
        other => vec![RequestError::new(BAD_REQUEST, other.to_string())],
    }
}

/// What one operation of a request gave.
#[derive(Debug)]
pub enum Outcome {
    /// It ran: its data and the errors of the fields that failed.
    Executed {
        data: Value,
        errors: Vec<ExecutionError<DefaultScalarValue>>,
    },
    /// It did not run.
    Refused(Vec<RequestError>),
}

impl Outcome {
    pub fn is_executed(&self) -> bool {
        matches!(self, Outcome::Executed { .. })
    }

    /// The errors of an operation that did not run.
    pub fn refusals(&self) -> &[RequestError] {
        match self {
            Outcome::Executed { .. } => &[],
            Outcome::Refused(errors) => errors,
        }
    }
}

/// An error of an executed field, with a code even when juniper itself
/// raised it without one.
struct FieldErrorOut<'a>(&'a ExecutionError<DefaultScalarValue>);

impl Serialize for FieldErrorOut<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut map = ser.serialize_map(Some(4))?;
        map.serialize_entry("message", e.error().message())?;
        map.serialize_entry("locations", &[Location::from(e.location())])?;
        map.serialize_entry("path", e.path())?;
        if e.error().extensions().is_null() {
            // Every resolver error carries its code; one without is a
            // failure of the server, not of the request.
            map.serialize_entry(
                "extensions",
                &Extensions {
                    code: "Internal",
                    field: None,
                    limit: None,
                    cost: None,
                },
            )?;
        } else {
            map.serialize_entry("extensions", e.error().extensions())?;
        }
        map.end()
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Executed { data, errors } => {
                let mut map = ser.serialize_map(None)?;
                map.serialize_entry("data", data)?;
                if !errors.is_empty() {
                    let errors: Vec<FieldErrorOut<'_>> = errors.iter().map(FieldErrorOut).collect();
                    map.serialize_entry("errors", &errors)?;
                }
                map.end()
            }
            Outcome::Refused(errors) => {
                let mut map = ser.serialize_map(Some(1))?;
                map.serialize_entry("errors", errors)?;
                map.end()
            }
        }
    }
}

/// The answer to a request: one outcome, or one per operation of a batch,
/// serialized as the GraphQL-over-HTTP response (an array for a batch);
/// or, for a batch that costs too much as a whole, one refusal for all.
#[derive(Debug)]
pub enum Answer {
    Single(Outcome),
    Batch(Vec<Outcome>),
    BatchRefused(Outcome),
}

impl Answer {
    /// Whether every operation ran (their fields may still have failed).
    pub fn is_ok(&self) -> bool {
        match self {
            Answer::Single(outcome) => outcome.is_executed(),
            Answer::Batch(outcomes) => outcomes.iter().all(Outcome::is_executed),
            Answer::BatchRefused(_) => false,
        }
    }
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Single(outcome) | Answer::BatchRefused(outcome) => outcome.serialize(ser),
            Answer::Batch(outcomes) => outcomes.serialize(ser),
        }
    }
}

/// An operation that passed validation and the cost limit, or why not.
type Prepared<'a> = Result<(Validated<'a>, u64), Vec<RequestError>>;

type Validated<'a> = ValidatedOperation<
    'a,
    crate::schema::Query,
    crate::schema::Mutation,
    juniper::EmptySubscription<Context>,
>;

impl Schema {
    /// Parses and validates each operation of `request`, checks its cost
    /// and the batch's, and only then runs them as the caller in
    /// `context`: an operation or batch beyond the cost limits runs
    /// nothing. Blocking: the resolvers call the use cases.
    pub fn execute(&self, request: &GraphQLBatchRequest, context: &Context) -> Answer {
        match request {
            GraphQLBatchRequest::Single(op) => {
                Answer::Single(self.run(self.prepare(op), op, context))
            }
            GraphQLBatchRequest::Batch(ops) => {
                let prepared: Vec<Prepared<'_>> = ops.iter().map(|op| self.prepare(op)).collect();
                let total = prepared
                    .iter()
                    .filter_map(|p| p.as_ref().ok())
                    .fold(0u64, |total, (_, cost)| total.saturating_add(*cost));
                let limit = self.limits().batch_cost;
                if total > limit {
                    return Answer::BatchRefused(Outcome::Refused(vec![RequestError::too_costly(
                        "the batch",
                        total,
                        limit,
                    )]));
                }
                Answer::Batch(
                    prepared
                        .into_iter()
                        .zip(ops)
                        .map(|(p, op)| self.run(p, op, context))
                        .collect(),
                )
            }
        }
    }

    fn prepare<'a>(&'a self, request: &'a GraphQLRequest) -> Prepared<'a> {
        let name = request.operation_name.as_deref();
        let operation = ValidatedOperation::new(&request.query, name, self.root())
            .map_err(|e| request_errors(e, &request.query))?;
        // A document that validated parses and names its operation.
        let cost = operation_cost(
            self.root(),
            &request.query,
            name,
            request.variables.as_ref(),
        )
        .unwrap_or(0);
        let limit = self.limits().cost;
        if cost > limit {
            return Err(vec![RequestError::too_costly("the operation", cost, limit)]);
        }
        Ok((operation, cost))
    }

    fn run(&self, prepared: Prepared<'_>, request: &GraphQLRequest, context: &Context) -> Outcome {
        let (operation, _) = match prepared {
            Ok(prepared) => prepared,
            Err(errors) => return Outcome::Refused(errors),
        };
        match operation.execute_sync(&request.variables(), context) {
            Ok((data, errors)) => Outcome::Executed { data, errors },
            Err(e) => Outcome::Refused(request_errors(e, &request.query)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_errors_name_their_variable() {
        assert_eq!(
            variable_named(
                r#"Variable "$limit" got invalid value. Expected input scalar `Limit`."#
            ),
            Some("limit".to_owned())
        );
        assert_eq!(variable_named("Unknown field \"nosuchfield\""), None);
    }

    #[test]
    fn variable_errors_point_at_the_argument_and_the_input_field() {
        let create =
            "mutation c($i: CreateUserInput!) { createUser(createUserInput: $i) { email } }";
        let missing =
            r#"Variable "$i" got invalid value. In field "email": Expected "String!", found null."#;
        assert_eq!(argument_path(create, "i", missing), "createUserInput.email");
        let nested = r#"Variable "$i" got invalid value. In field "na": In element #1: In field "c": Expected "String!", found null."#;
        assert_eq!(
            argument_path(create, "i", nested),
            "createUserInput.na[1].c"
        );
        let scalar =
            "query u($n: Limit, $limit: Offset) { users(limit: $n, offset: $limit) { email } }";
        let bad = r#"Variable "$n" got invalid value. Expected input scalar `Limit`."#;
        assert_eq!(argument_path(scalar, "n", bad), "limit");
        assert_eq!(argument_path(scalar, "limit", bad), "offset");
        // A variable in a list, or unused, keeps its own name.
        let listed = "query q($a: String!) { x(ids: [$a]) }";
        assert_eq!(argument_path(listed, "a", bad), "a");
        assert_eq!(argument_path("query q($a: String!) { x }", "a", bad), "a");
        // $in is not $i.
        let prefix = "mutation c($in: X, $i: Y) { f(a: $in, b: $i) }";
        assert_eq!(argument_path(prefix, "i", bad), "b");
    }
}
