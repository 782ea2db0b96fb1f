//! The bodies of the API outside GraphQL and SCIM: the connector's
//! requests and answers, the error envelope every such route answers
//! with, and the health probes'. The answers are these types, serialized,
//! so the OpenAPI document (which is derived from them) describes what is
//! sent. The requests are read field by field, to report every bad field
//! at once; their types here describe them for the document, and a test
//! checks that the fields they name are the fields the handlers read.

use serde::Serialize;
use utoipa::{IntoResponses, ToSchema};
use uuid::Uuid;

pub use requests::{BatchRequest, UploadRequest};
pub use sources::{PeopleAnswer, PeopleRequest, PersonFound, RunRecorded, RunRequest};

mod sources;

/// The requests' bodies, described for the document: the handlers read
/// these fields one by one (see the module's documentation), so the types
/// are never built.
#[allow(dead_code)]
mod requests {
    use serde::Serialize;
    use utoipa::ToSchema;

    /// One entity and the action a user took on it. Exactly one of `text` and
    /// `texts` is given. Every field breaking a rule is reported at once (422
    /// `ValidationError`), each with its rule; a field not listed here is
    /// refused too.
    #[derive(Debug, Serialize, ToSchema)]
    #[schema(example = json!({
        "entity_type": "document",
        "action_type": "edit",
        "action_date": "2026-03-01T10:15:00.000Z",
        "user_email": "ada@example.com",
        "text": "Analytical engines compute Bernoulli numbers from punched cards.",
        "action_alias": "wiki-4711-rev-3"
    }))]
    pub struct UploadRequest {
        /// The kind of entity (`document`, `chat`, `email`, ...): lower-case
        /// letters, digits and underscores.
        #[schema(pattern = "^[a-z0-9_]+$", min_length = 1, max_length = 100)]
        pub entity_type: String,
        /// What the user did (`create`, `edit`, `read`, ...): lower-case
        /// letters, digits and underscores. Scoring weighs some types more.
        #[schema(pattern = "^[a-z0-9_]+$", min_length = 1, max_length = 100)]
        pub action_type: String,
        /// When the user did it: RFC 3339 with an offset, at most 24 hours
        /// ahead of the server's clock.
        #[schema(format = DateTime, example = "2026-03-01T10:15:00.000Z")]
        pub action_date: String,
        /// The e-mail address of an ACTIVE or DEACTIVATED user (any case);
        /// another address is refused with 422 `UnknownUser`.
        #[schema(format = Email, example = "ada@example.com")]
        pub user_email: String,
        /// The entity's text, as plain text.
        #[schema(min_length = 1)]
        pub text: Option<String>,
        /// The entity's texts, each with its format and role: one object or an
        /// array of 1 to 100.
        pub texts: Option<Texts>,
        /// The connector's own id of the action: an upload with an alias
        /// accepted before is refused with 409 `DuplicateAlias`, so a
        /// connector can resend safely.
        #[schema(min_length = 1, max_length = 255)]
        pub action_alias: Option<String>,
    }

    /// One text of an entity, or several.
    #[derive(Debug, Serialize, ToSchema)]
    #[serde(untagged)]
    pub enum Texts {
        /// One text.
        One(TextEntry),
        /// 1 to 100 texts.
        Many(Vec<TextEntry>),
    }

    /// One text of an entity.
    #[derive(Debug, Serialize, ToSchema)]
    pub struct TextEntry {
        /// The text; it may not be blank.
        #[schema(min_length = 1)]
        pub text: String,
        /// How to read it: `plain` (the default) or `html` (only the visible
        /// text counts).
        pub text_format: Option<TextFormat>,
        /// Its role in the entity: `primary` (a title, a subject) counts more,
        /// `secondary` (a footer, a quote) less.
        pub descriptor: Option<Descriptor>,
    }

    /// How a text is read.
    #[derive(Debug, Serialize, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum TextFormat {
        /// Plain text.
        Plain,
        /// HTML: markup, scripts and styles are dropped.
        Html,
    }

    /// The role of a text in its entity.
    #[derive(Debug, Serialize, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Descriptor {
        /// The body.
        Default,
        /// A title or a subject.
        Primary,
        /// A footer, a signature, a quote.
        Secondary,
    }

    /// Up to the server's limit of uploads (100 unless configured), each
    /// answered on its own.
    #[derive(Debug, Serialize, ToSchema)]
    #[schema(example = json!({ "items": [
        {
            "entity_type": "document",
            "action_type": "edit",
            "action_date": "2026-03-01T10:15:00.000Z",
            "user_email": "ada@example.com",
            "text": "Difference engines tabulate polynomials by the method of finite differences.",
            "action_alias": "wiki-4712-rev-1"
        },
        {
            "entity_type": "email",
            "action_type": "send",
            "action_date": "2026-03-01T11:00:00.000Z",
            "user_email": "ada@example.com",
            "texts": [
                { "descriptor": "primary", "text": "Notes on the analytical engine" },
                { "text": "<p>The engine weaves algebraic patterns as the loom weaves flowers.</p>", "text_format": "html" }
            ]
        }
    ]}))]
    pub struct BatchRequest {
        /// The uploads, each as the single endpoint takes it.
        #[schema(min_items = 1, max_items = 100)]
        pub items: Vec<UploadRequest>,
    }
}

/// A topic an upload taught, with its relevance in the entity.
#[derive(Debug, Serialize, ToSchema)]
pub struct LearnedTopic {
    /// The topic as read in the text.
    pub topic: String,
    /// The topic's stable key.
    pub key: String,
    /// Its relevance in this entity: a key phrase's up to 1, a content
    /// word's about 1 per use, saturating, times the text's descriptor
    /// factor, summed over the texts.
    pub score: f64,
    /// Whether people read it (in `userTopics`, `relatedTopics` and an
    /// expert's `topics`): a key phrase, noun or name. Otherwise it is
    /// kept for ranking alone.
    pub shown: bool,
}

/// An accepted upload: what was stored and what it taught.
#[derive(Debug, Serialize, ToSchema)]
pub struct Accepted {
    /// The stored action's id.
    pub id: Uuid,
    /// The user the action was recorded for.
    #[serde(rename = "globalUserId")]
    pub global_user_id: Uuid,
    /// The topics learned, best first.
    pub topics: Vec<LearnedTopic>,
}

/// A field of the body that broke a rule.
#[derive(Debug, Serialize, ToSchema)]
pub struct FieldProblem {
    /// The field, as sent (`texts[1].text` for a field of a text).
    pub field: String,
    /// The rule it broke, in words.
    pub problem: String,
}

/// What went wrong.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// A stable machine code: `BadRequest`, `Unauthenticated`,
    /// `RequestTimeout`, `DuplicateAlias`, `PayloadTooLarge`,
    /// `UnsupportedMediaType`, `ValidationError`, `UnknownUser`,
    /// `TooManyRequests`, `MethodNotAllowed`, `NotFound` or `Internal`.
    #[schema(example = "ValidationError")]
    pub code: String,
    /// The problem, in words.
    pub message: String,
    /// The fields at fault, when the problem is about fields of the body.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldProblem>,
}

/// The answer to a refused request.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    /// What went wrong.
    pub error: ErrorBody,
}

/// The answer for one item of a batch: what the single endpoint would
/// have answered for it, with its status.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ItemResult {
    /// Stored: `status` is 201.
    Accepted(AcceptedItem),
    /// Refused: `status` is 400, 409, 422 or 500, as the single endpoint's.
    Refused(RefusedItem),
}

/// An item that was stored.
#[derive(Debug, Serialize, ToSchema)]
pub struct AcceptedItem {
    /// 201.
    #[schema(minimum = 201, maximum = 201)]
    pub status: u16,
    /// What the single endpoint answers with 201.
    #[serde(flatten)]
    pub accepted: Accepted,
}

/// An item that was refused.
#[derive(Debug, Serialize, ToSchema)]
pub struct RefusedItem {
    /// The status the single endpoint would have answered.
    #[schema(minimum = 400, maximum = 599)]
    pub status: u16,
    /// What went wrong.
    pub error: ErrorBody,
}

/// The refusals both upload routes may answer, each in the error envelope.
#[derive(Debug, IntoResponses)]
#[allow(dead_code)] // Described for the document; `Problem` builds the answers.
pub enum Refusals {
    /// `BadRequest`: not JSON, or not an object.
    #[response(status = 400)]
    BadRequest(ErrorEnvelope),
    /// `Unauthenticated`: no API key, or one unknown or revoked.
    #[response(status = 401)]
    Unauthenticated(ErrorEnvelope),
    /// `RequestTimeout`: the body did not arrive in time.
    #[response(status = 408)]
    RequestTimeout(ErrorEnvelope),
    /// `PayloadTooLarge`: the body is over the route's limit (1 MiB for
    /// one upload, 16 MiB for a batch, unless configured).
    #[response(status = 413)]
    PayloadTooLarge(ErrorEnvelope),
    /// `UriTooLong`: the request line is over the limit (8 KiB unless
    /// configured).
    #[response(status = 414)]
    UriTooLong(ErrorEnvelope),
    /// `UnsupportedMediaType`: the body is not declared as
    /// `application/json`.
    #[response(status = 415)]
    UnsupportedMediaType(ErrorEnvelope),
    /// `TooManyRequests`: the key sends too fast, or the address failed to
    /// authenticate too often.
    #[response(
        status = 429,
        headers(("Retry-After" = u64, description = "Seconds after which the request may be repeated"))
    )]
    TooManyRequests(ErrorEnvelope),
    /// `HeaderFieldsTooLarge`: the request headers are over the limit (16
    /// KiB unless configured).
    #[response(status = 431)]
    HeaderFieldsTooLarge(ErrorEnvelope),
    /// `Internal`: the server failed; the request may be repeated.
    #[response(status = 500)]
    Internal(ErrorEnvelope),
}

/// The answer to a batch: one result per item, in request order.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchAnswer {
    /// How many items were stored.
    pub accepted: usize,
    /// How many were refused.
    pub refused: usize,
    /// One result per item, in request order.
    pub results: Vec<ItemResult>,
}

/// The answer of the health probes.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok` (`/healthz`), `ready` or `database unavailable` (`/readyz`).
    pub status: String,
}
