//! Request counts and latencies per route and status, in the Prometheus
//! text format.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse};

use crate::AppState;

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 10] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];

#[derive(Debug, Default, Clone)]
struct Series {
    count: u64,
    sum_seconds: f64,
    /// Observations at or below each bucket bound.
    buckets: [u64; BUCKETS.len()],
}

/// The counters of one process.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Keyed by (route pattern, method, status).
    requests: Mutex<BTreeMap<(String, String, u16), Series>>,
    /// Connector uploads by outcome: `Accepted` or the error code.
    uploads: Mutex<BTreeMap<&'static str, u64>>,
    topics_extracted: AtomicU64,
}

impl Metrics {
    fn observe(&self, route: String, method: String, status: u16, seconds: f64) {
        let mut requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        let series = requests.entry((route, method, status)).or_default();
        series.count += 1;
        series.sum_seconds += seconds;
        for (bound, bucket) in BUCKETS.iter().zip(series.buckets.iter_mut()) {
            if seconds <= *bound {
                *bucket += 1;
            }
        }
    }

    /// Counts one connector upload under its outcome.
    pub fn count_upload(&self, outcome: &'static str) {
        let mut uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        *uploads.entry(outcome).or_default() += 1;
    }

    /// Counts the topics an accepted upload taught.
    pub fn count_topics(&self, n: usize) {
        self.topics_extracted
            .fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    fn render_uploads(&self, out: &mut String) {
        let uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        out.push_str(
            "# HELP kenning_uploads_total Connector uploads by outcome (Accepted or the error code).\n",
        );
        out.push_str("# TYPE kenning_uploads_total counter\n");
        for (outcome, n) in uploads.iter() {
            let _ = writeln!(out, "kenning_uploads_total{{outcome=\"{outcome}\"}} {n}");
        }
        out.push_str(
            "# HELP kenning_topics_extracted_total Topics learned from accepted uploads.\n",
        );
        out.push_str("# TYPE kenning_topics_extracted_total counter\n");
        let _ = writeln!(
            out,
            "kenning_topics_extracted_total {}",
            self.topics_extracted.load(Ordering::Relaxed)
        );
    }

    /// The Prometheus text exposition of every series.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_uploads(&mut out);
        let requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        out.push_str(
            "# HELP kenning_http_requests_total HTTP requests by route, method and status.\n",
        );
        out.push_str("# TYPE kenning_http_requests_total counter\n");
        for ((route, method, status), s) in requests.iter() {
            let _ = writeln!(
                out,
                "kenning_http_requests_total{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}} {}",
                s.count
            );
        }
        out.push_str("# HELP kenning_http_request_duration_seconds HTTP request latency.\n");
        out.push_str("# TYPE kenning_http_request_duration_seconds histogram\n");
        for ((route, method, status), s) in requests.iter() {
            let labels = format!("route=\"{route}\",method=\"{method}\",status=\"{status}\"");
            for (bound, n) in BUCKETS.iter().zip(s.buckets.iter()) {
                let _ = writeln!(
                    out,
                    "kenning_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {n}"
                );
            }
            let _ = writeln!(
                out,
                "kenning_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                s.count
            );
            let _ = writeln!(
                out,
                "kenning_http_request_duration_seconds_sum{{{labels}}} {}",
                s.sum_seconds
            );
            let _ = writeln!(
                out,
                "kenning_http_request_duration_seconds_count{{{labels}}} {}",
                s.count
            );
        }
        out
    }
}

/// Middleware: times each request and counts it under its route pattern
/// (never the raw path, so ids do not multiply the series).
pub async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.metrics.clone());
    let method = req.method().to_string();
    let response = next.call(req).await?;
    if let Some(metrics) = metrics {
        let route = response
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_owned());
        metrics.observe(
            route,
            method,
            response.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(response)
}

/// `GET /metrics`.
pub async fn render(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}
