//! The sources connectors read (`/admin/sources`): each source (its kind
//! and name) with its last run, the run's counts, what was refused and
//! why, and the error that stopped it; the source heard from last first.
//! A source's recent runs have a page of their own
//! (`/admin/sources/runs?source=&name=`).

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, Duration, Utc};
use kenning_app::ServiceError;
use kenning_domain::RunReport;
use kenning_ports::{SourceRuns, StoredRun};

use super::{blocking, failure, query, Admin};
use crate::render::{message_page, respond};
use crate::state::Web;
use crate::view::Chrome;

/// The runs a source's page lists.
const RECENT_RUNS: usize = 50;
/// The sources a page of `/admin/sources` lists.
const SOURCES_PER_PAGE: u32 = 50;

/// A moment as the page shows it.
fn moment(at: DateTime<Utc>) -> String {
    at.format("%-d %b %Y %H:%M UTC").to_string()
}

/// A count with its thousands apart: `12,345`.
fn number(n: u64) -> String {
    let digits = n.to_string();
    let mut shown = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            shown.push(',');
        }
        shown.push(digit);
    }
    shown
}

/// How long a run took, to the second (below ten seconds, to the tenth).
fn took(span: Duration) -> String {
    let millis = span.num_milliseconds().max(0);
    let seconds = millis / 1000;
    match seconds {
        0..=9 => format!("{}.{} s", seconds, (millis % 1000) / 100),
        10..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// A run as the pages tell it.
#[derive(Debug)]
struct Run {
    when: String,
    took: String,
    dry_run: bool,
    key: String,
    read: String,
    sent: String,
    known: String,
    not_found: String,
    failed: String,
    /// Each refusal code with its count, the most first.
    refused: Vec<(String, String)>,
    refused_total: String,
    error: Option<String>,
    /// Why the run needs a look, in words; `None` when it does not.
    trouble: Option<String>,
}

impl Run {
    fn of(run: &StoredRun) -> Self {
        let report = &run.report;
        let mut refused: Vec<(&str, u64)> = report
            .refused
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(code, &n)| (code.as_str(), n))
            .collect();
        refused.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let total: u64 = refused
            .iter()
            .map(|(_, n)| n)
            .fold(0, |a, n| a.saturating_add(*n));
        Self {
            when: moment(run.received),
            took: took(report.took()),
            dry_run: report.dry_run,
            key: run.credential_name.clone(),
            read: number(report.counts.read),
            sent: number(report.counts.sent),
            known: number(report.counts.known),
            not_found: number(report.counts.not_found),
            failed: number(report.counts.failed),
            refused: refused
                .iter()
                .map(|(code, n)| ((*code).to_owned(), number(*n)))
                .collect(),
            refused_total: number(total),
            error: report.error.as_ref().map(|e| e.as_str().to_owned()),
            trouble: trouble(report, total),
        }
    }
}

/// Why `report` needs a look, in words, or `None`.
fn trouble(report: &RunReport, refused: u64) -> Option<String> {
    if !report.troubled() {
        return None;
    }
    let refused = match refused {
        0 => None,
        1 => Some("1 upload was refused".to_owned()),
        n => Some(format!("{} uploads were refused", number(n))),
    };
    Some(match (report.error.is_some(), refused) {
        (true, Some(refused)) => format!("it stopped on an error, and {refused}"),
        (true, None) => "it stopped on an error".to_owned(),
        (false, Some(refused)) => refused,
        (false, None) => "it stopped on an error".to_owned(),
    })
}

/// A source as the list tells it.
#[derive(Debug)]
struct Source {
    kind: String,
    name: String,
    last: Run,
    /// How many runs are kept, and since when.
    kept: String,
    total_sent: String,
    /// Its page of recent runs.
    runs: String,
}

/// The address of the page of `kind`'s source `name`.
fn runs_page(kind: &str, name: &str) -> String {
    let encoded = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("source", kind)
        .append_pair("name", name)
        .finish();
    format!("/admin/sources/runs?{encoded}")
}

impl Source {
    fn of(source: &SourceRuns) -> Self {
        let report = &source.last.report;
        let (kind, name) = (report.source.as_str(), report.name.as_str());
        Self {
            kind: kind.to_owned(),
            name: name.to_owned(),
            last: Run::of(&source.last),
            kept: match source.runs {
                1 => "1 run kept".to_owned(),
                n => format!("{} runs kept since {}", number(n), moment(source.since)),
            },
            total_sent: number(source.totals.sent),
            runs: runs_page(kind, name),
        }
    }
}

#[derive(Template)]
#[template(path = "admin/sources.html")]
struct SourcesPage {
    chrome: Chrome,
    section: &'static str,
    sources: Vec<Source>,
    kept: usize,
    /// The earlier and the later page, when there is one.
    previous: Option<String>,
    next: Option<String>,
    /// Where connectors reach Kenning.
    url: String,
}

/// `GET /admin/sources?skip=`: a page of sources.
pub(crate) async fn page(
    req: HttpRequest,
    app: web::Data<Web>,
    Admin(visitor): Admin,
) -> HttpResponse {
    let skip: u64 = query(&req).value("skip").parse().unwrap_or(0);
    let acting = visitor.use_cases(&app);
    let page = SOURCES_PER_PAGE;
    let found = match blocking(move || acting.connectors.sources(skip, page)).await {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return failure(&visitor, &e),
        Err(response) => return response,
    };
    respond(
        StatusCode::OK,
        &SourcesPage {
            chrome: Chrome::of(Some(&visitor)),
            section: "sources",
            sources: found.sources.iter().map(Source::of).collect(),
            kept: RunReport::KEPT,
            previous: (skip > 0).then(|| {
                format!(
                    "/admin/sources?skip={}",
                    skip.saturating_sub(u64::from(page))
                )
            }),
            next: (skip.saturating_add(u64::from(page)) < found.total)
                .then(|| format!("/admin/sources?skip={}", skip + u64::from(page))),
            url: app
                .config
                .public_url
                .as_str()
                .trim_end_matches('/')
                .to_owned(),
        },
    )
}

#[derive(Template)]
#[template(path = "admin/source_runs.html")]
struct RunsPage {
    chrome: Chrome,
    section: &'static str,
    kind: String,
    name: String,
    runs: Vec<Run>,
    shown: usize,
}

/// `GET /admin/sources/runs?source=&name=`: a source's newest runs.
pub(crate) async fn runs(
    req: HttpRequest,
    app: web::Data<Web>,
    Admin(visitor): Admin,
) -> HttpResponse {
    let asked = query(&req);
    let (kind, name) = (asked.value("source"), asked.value("name"));
    let acting = visitor.use_cases(&app);
    let (source, named) = (kind.clone(), name.clone());
    let runs = match blocking(move || acting.connectors.runs_of(&source, &named, RECENT_RUNS)).await
    {
        Ok(Ok(runs)) if !runs.is_empty() => runs,
        Ok(Ok(_) | Err(ServiceError::Validation(_))) => {
            return message_page(
                StatusCode::NOT_FOUND,
                Chrome::of(Some(&visitor)),
                "There is no such source",
                "No run of this source is kept. Choose one from the Sources page.",
            )
        }
        Ok(Err(e)) => return failure(&visitor, &e),
        Err(response) => return response,
    };
    respond(
        StatusCode::OK,
        &RunsPage {
            chrome: Chrome::of(Some(&visitor)),
            section: "sources",
            kind,
            name,
            runs: runs.iter().map(Run::of).collect(),
            shown: RECENT_RUNS,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_spans_read_as_people_write_them() {
        assert_eq!(number(0), "0");
        assert_eq!(number(999), "999");
        assert_eq!(number(1_000), "1,000");
        assert_eq!(number(9_007_199_254_740_991), "9,007,199,254,740,991");
        assert_eq!(took(Duration::milliseconds(1_450)), "1.4 s");
        assert_eq!(took(Duration::milliseconds(40_900)), "40 s");
        assert_eq!(took(Duration::seconds(192)), "3 min 12 s");
        assert_eq!(took(Duration::seconds(7_500)), "2 h 5 min");
    }

    #[test]
    fn a_source_page_is_named_by_its_kind_and_name() {
        assert_eq!(
            runs_page("git", "/srv/git/a b&c.git"),
            "/admin/sources/runs?source=git&name=%2Fsrv%2Fgit%2Fa+b%26c.git"
        );
    }
}
