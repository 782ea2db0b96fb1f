//! The audit trail (`/admin/audit`): who changed what, newest first, a
//! page at a time, with the filters of the API's `auditTrail` under the
//! same names, each checked by the same rules.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, Days, NaiveDate, Utc};
use kenning_domain::{
    parse_audit_cursor, AuditEntry, AuditLimit, ChangeKind, Channel, Collector, FieldViolation,
    ResourceKind, Rule, ValidationErrors, NOBODY,
};
use kenning_ports::AuditQuery;
use uuid::Uuid;

use super::profile::Field;
use super::{blocking, failure, query, Admin, Form, Problems};
use crate::render::respond;
use crate::state::Web;
use crate::view::{query_param, Chrome};

/// The filters, by the names the form and the API give them.
const FILTERS: [&str; 6] = [
    "resourceId",
    "resourceType",
    "kinds",
    "credentialId",
    "from",
    "until",
];

/// An entry as the page tells it.
#[derive(Debug)]
struct Entry {
    kind: &'static str,
    at: String,
    resource: String,
    resource_href: Option<String>,
    fields: String,
    actor: String,
    actor_href: Option<String>,
    channel: &'static str,
}

impl Entry {
    fn of(e: &AuditEntry) -> Self {
        let id = e.change.resource_id;
        let kind = e.change.kind.resource();
        // The sign-ins of a person anonymized or forgotten name nobody.
        let nobody = kind == ResourceKind::User && id == NOBODY;
        let resource_href = match kind {
            ResourceKind::User if nobody => None,
            ResourceKind::User => Some(format!("/admin/users/{id}")),
            ResourceKind::Group => Some(format!("/admin/groups/{id}")),
            ResourceKind::Credential => None,
            ResourceKind::Organisation => Some("/admin/rules".to_owned()),
        };
        // A person is named by their globalUserId: their page.
        let actor_href = (e.actor.channel == Channel::Web && e.actor.credential_id.is_none())
            .then(|| Uuid::try_parse(&e.actor.name).ok())
            .flatten()
            .map(|person| format!("/admin/users/{person}"));
        let actor = match e.actor.credential_id {
            Some(credential) => format!("{} (credential {credential})", e.actor.name),
            None => e.actor.name.clone(),
        };
        Self {
            kind: e.change.kind.as_str(),
            at: e.at.format("%-d %b %Y %H:%M:%S UTC").to_string(),
            resource: if nobody {
                "a person no longer named".to_owned()
            } else {
                format!("{} {id}", kind.as_str())
            },
            resource_href,
            fields: e.change.fields.join(", "),
            actor,
            actor_href,
            channel: e.actor.channel.as_str(),
        }
    }
}

#[derive(Template)]
#[template(path = "admin/audit.html")]
struct AuditPage {
    chrome: Chrome,
    section: &'static str,
    resource: Field,
    types: Vec<(&'static str, bool)>,
    kinds: Vec<(&'static str, bool)>,
    fields: Vec<Field>,
    problems: Problems,
    entries: Vec<Entry>,
    paged: bool,
    first: String,
    next: Option<String>,
}

/// The start of the day `raw` (`yyyy-mm-dd`) names, the day after it
/// with `after`, in UTC; a violation on `field` when it names none.
fn day(field: &'static str, raw: &str, after: bool) -> Result<DateTime<Utc>, FieldViolation> {
    NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
        .ok()
        .and_then(|d| {
            if after {
                d.checked_add_days(Days::new(1))
            } else {
                Some(d)
            }
        })
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
        .ok_or_else(|| FieldViolation::new(field, Rule::InvalidDate))
}

/// An id written in a filter, else a violation on `field`.
fn id(field: &'static str, raw: &str) -> Result<Uuid, FieldViolation> {
    Uuid::try_parse(raw.trim()).map_err(|_| {
        FieldViolation::new(
            field,
            Rule::Refused {
                problem: "must be an id such as 0b6f2d0e-3c5d-4c5e-9a3f-1d2e3f4a5b6c",
            },
        )
    })
}

/// The query the filters of `params` ask for, or every problem of them.
fn query_of(params: &Form) -> Result<AuditQuery, ValidationErrors> {
    let mut p = Collector::default();
    let resource_id = params
        .given("resourceId")
        .and_then(|r| p.take(id("resourceId", &r)));
    let credential_id = params
        .given("credentialId")
        .and_then(|r| p.take(id("credentialId", &r)));
    let resource_kind = params
        .given("resourceType")
        .and_then(|r| p.take(ResourceKind::parse(&r)));
    let kinds: Vec<ChangeKind> = params
        .given("kinds")
        .and_then(|r| p.take(ChangeKind::parse(&r)))
        .into_iter()
        .collect();
    let from = params
        .given("from")
        .and_then(|r| p.take(day("from", &r, false)));
    let until = params
        .given("until")
        .and_then(|r| p.take(day("until", &r, true)));
    let before = params
        .given("before")
        .and_then(|r| p.take(parse_audit_cursor(&r)));
    p.finish().map(|()| AuditQuery {
        before,
        resource_id,
        resource_kind,
        credential_id,
        kinds,
        from,
        until,
    })
}

/// The form's fields for the credential and the days, as `params` fill
/// them, with their `problems`.
fn credential_and_days(params: &Form, problems: &Problems) -> Vec<Field> {
    vec![
        Field::text(
            "credentialId",
            "Made with the credential (its id)",
            params.value("credentialId"),
            problems,
        ),
        Field {
            kind: "date",
            ..Field::text("from", "From the day", params.value("from"), problems)
        },
        Field {
            kind: "date",
            ..Field::text(
                "until",
                "Until the day (included)",
                params.value("until"),
                problems,
            )
        },
    ]
}

/// `GET /admin/audit` with the filters and the cursor `before`.
pub(crate) async fn page(
    req: HttpRequest,
    app: web::Data<Web>,
    Admin(visitor): Admin,
) -> HttpResponse {
    let params = query(&req);
    let acting = visitor.use_cases(&app);
    let (entries, next, problems) = match query_of(&params) {
        Ok(asked) => {
            match blocking(move || acting.audit.entries(asked, AuditLimit::default())).await {
                Ok(Ok(page)) => (page.entries, page.next, Problems::default()),
                Ok(Err(e)) => return failure(&visitor, &e),
                Err(response) => return response,
            }
        }
        Err(errors) => (
            Vec::new(),
            None,
            Problems::of_refusal(&errors.into()).unwrap_or_default(),
        ),
    };
    let filters: String = FILTERS
        .iter()
        .filter_map(|name| {
            params
                .given(name)
                .map(|v| format!("&{name}={}", query_param(&v)))
        })
        .collect();
    let first = format!("/admin/audit?{}", filters.trim_start_matches('&'));
    let types = ResourceKind::ALL
        .iter()
        .map(|k| (k.as_str(), params.value("resourceType") == k.as_str()))
        .collect();
    let kinds = ChangeKind::ALL
        .iter()
        .map(|k| (k.as_str(), params.value("kinds") == k.as_str()))
        .collect();
    let status = problems.status();
    let fields = credential_and_days(&params, &problems);
    respond(
        status,
        &AuditPage {
            chrome: Chrome::of(Some(&visitor)),
            section: "audit",
            resource: Field::text(
                "resourceId",
                "Of the resource (its id)",
                params.value("resourceId"),
                &problems,
            ),
            types,
            kinds,
            fields,
            entries: entries.iter().map(Entry::of).collect(),
            paged: params.given("before").is_some(),
            next: next.map(|position| format!("{first}&before={position}")),
            first,
            problems,
        },
    )
}
