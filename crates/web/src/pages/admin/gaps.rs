//! What people ask that nobody knows (`/admin/gaps`): the subjects asked
//! over the last 30 or 90 days that nobody holds, and those one person
//! alone holds, the most asked first. Only a subject's topics and counts
//! are kept, never who asked nor the words of the question.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_domain::{AskedCount, AskedSubject};

use super::{blocking, failure, query, Admin};
use crate::render::respond;
use crate::state::Web;
use crate::view::Chrome;

/// The spans of days the page reads, the first shown unless another is
/// asked for; none is longer than the counts are kept.
const SPANS: [u32; 2] = [AskedSubject::DEFAULT_DAYS, 90];

/// A subject as the page tells it.
#[derive(Debug)]
struct Gap {
    label: String,
    asked: String,
    last: String,
    /// The search for the subject, which names its one holder.
    search: String,
}

impl Gap {
    fn of(count: &AskedCount) -> Self {
        let label = &count.subject.label;
        Self {
            label: label.clone(),
            asked: match count.asks {
                1 => "asked once".to_owned(),
                n => format!("asked {n} times"),
            },
            last: count.last.format("%-d %b %Y").to_string(),
            search: format!(
                "/?q={}",
                url::form_urlencoded::byte_serialize(label.as_bytes()).collect::<String>()
            ),
        }
    }
}

#[derive(Template)]
#[template(path = "admin/gaps.html")]
struct GapsPage {
    chrome: Chrome,
    section: &'static str,
    days: u32,
    spans: Vec<(u32, bool)>,
    kept_days: i64,
    nobody: Vec<Gap>,
    alone: Vec<Gap>,
}

/// `GET /admin/gaps?days=` (30 unless 90 is asked for).
pub(crate) async fn page(
    req: HttpRequest,
    app: web::Data<Web>,
    Admin(visitor): Admin,
) -> HttpResponse {
    let asked = query(&req).value("days");
    let days = SPANS
        .into_iter()
        .find(|d| d.to_string() == asked)
        .unwrap_or(SPANS[0]);
    let acting = visitor.use_cases(&app);
    let counts = match blocking(move || acting.privacy.asked(days.into())).await {
        Ok(Ok(counts)) => counts,
        Ok(Err(e)) => return failure(&visitor, &e),
        Err(response) => return response,
    };
    let held_by = |holders: u8| {
        counts
            .iter()
            .filter(|c| c.subject.holders == holders)
            .map(Gap::of)
            .collect()
    };
    respond(
        StatusCode::OK,
        &GapsPage {
            chrome: Chrome::of(Some(&visitor)),
            section: "gaps",
            days,
            spans: SPANS.iter().map(|d| (*d, *d == days)).collect(),
            kept_days: AskedSubject::KEPT_DAYS,
            nobody: held_by(0),
            alone: held_by(AskedSubject::MAX_HOLDERS),
        },
    )
}
