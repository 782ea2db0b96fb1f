//! The bodies of the endpoints the ready connectors call beside their
//! uploads: who a source's identities are, and a run's report. As the
//! upload's, the requests are read field by field; these types describe
//! them for the document, and tests check that the fields they name are
//! the fields the handlers read.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The identities of a source to find among Kenning's users: 1 to 1000,
/// each with an `email`, an `external_id` or both. Every bad identity is
/// reported at once (422 `ValidationError`, as `identities` or
/// `identities[3]`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({ "identities": [
    { "email": "Ada@Example.com", "external_id": null },
    { "email": null, "external_id": "emp-4711" },
    { "email": "root@localhost" }
]}))]
#[allow(dead_code)] // Described for the document; the handler reads the fields.
pub struct PeopleRequest {
    /// The identities, in the order the answer follows.
    #[schema(min_items = 1, max_items = 1000)]
    pub identities: Vec<Identity>,
}

/// One identity of a source. A value that can be nobody's (not an
/// address, longer than an externalId may be) is found as nobody; a blank
/// one counts as not given.
#[derive(Debug, Serialize, ToSchema)]
#[allow(dead_code)] // Described for the document; the handler reads the fields.
pub struct Identity {
    /// An e-mail address, compared without regard to case.
    pub email: Option<String>,
    /// An externalId, compared exactly; asked only when the address is
    /// nobody's.
    pub external_id: Option<String>,
}

/// Who the identities are, one entry per identity in the request's
/// order: the user an upload naming it would teach, or `null`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PeopleAnswer {
    /// One entry per identity.
    pub people: Vec<Option<PersonFound>>,
}

/// A user an upload may name.
#[derive(Debug, Serialize, ToSchema)]
pub struct PersonFound {
    /// The user's e-mail address as Kenning stores it: the `user_email` to
    /// upload with.
    #[schema(format = Email, example = "ada@example.com")]
    pub user_email: String,
}

/// How a run of a connector went. Every field breaking a rule is reported
/// at once (422 `ValidationError`), each with its rule; a field not listed
/// here is refused too.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "source": "git",
    "name": "/srv/git/kenning.git",
    "started": "2026-03-02T02:00:00.000Z",
    "finished": "2026-03-02T02:03:12.500Z",
    "read": 412,
    "sent": 380,
    "known": 20,
    "not_found": 2,
    "refused": { "ValidationError": 1 },
    "failed": 0,
    "dry_run": false,
    "error": null
}))]
#[allow(dead_code)] // Described for the document; the handler reads the fields.
pub struct RunRequest {
    /// The kind of source: lower-case letters, digits and underscores.
    #[schema(pattern = "^[a-z0-9_]+$", min_length = 1, max_length = 40)]
    pub source: String,
    /// Which source of its kind: a repository's path, a mailbox, an
    /// export's file. No control characters but tab and line break.
    #[schema(min_length = 1, max_length = 500)]
    pub name: String,
    /// When the run started: RFC 3339 with an offset, at most 24 hours
    /// ahead of the server's clock.
    #[schema(format = DateTime, example = "2026-03-02T02:00:00.000Z")]
    pub started: String,
    /// When it finished: as `started`, and not before it.
    #[schema(format = DateTime, example = "2026-03-02T02:03:12.500Z")]
    pub finished: String,
    /// The items read from the source.
    #[schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub read: u64,
    /// The uploads the server stored.
    #[schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub sent: u64,
    /// The uploads the server had stored before (409 `DuplicateAlias`).
    #[schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub known: u64,
    /// The people of the source who are no user Kenning may learn about.
    #[schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub not_found: u64,
    /// The uploads refused, by the code they were refused with (or the
    /// connector's own reason): at most 50 codes of 1 to 100 characters.
    /// Left out or null: none.
    pub refused: Option<BTreeMap<String, u64>>,
    /// The items that could not be read or sent.
    #[schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub failed: u64,
    /// Whether the run read without sending.
    pub dry_run: bool,
    /// What stopped the run, if something did: at most 2000 characters.
    /// Left out, null or blank: nothing did.
    #[schema(max_length = 2000)]
    pub error: Option<String>,
}

/// A run recorded.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunRecorded {
    /// The run's id.
    pub id: Uuid,
}
