//! Request counts and latencies per route and status, connector uploads by
//! outcome and topics learned, exposed in the OpenMetrics text format by
//! `prometheus-client`.
//!
//! Every label value comes from a closed set the server chose, never from
//! what a client sent: the method is one of the standard methods or
//! `other`, the route is a registered route pattern or `unmatched`, the
//! status is a number the server answered, the outcome is a stable code. A
//! client therefore cannot make the exposition grow.

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use actix_web::http::Method;
use kenning_app::UPLOAD_STAGES;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 10] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];

/// The content type of the OpenMetrics text format, which Prometheus reads.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
    status: u16,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WebhookLabels {
    subscription: String,
    state: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UploadLabels {
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StageLabels {
    stage: &'static str,
}

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// The counters of one process.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latencies: Family<RequestLabels, Histogram, fn() -> Histogram>,
    uploads: Family<UploadLabels, Counter>,
    topics_extracted: Counter,
    upload_stages: Family<StageLabels, Counter<f64, AtomicU64>>,
    /// Held while the stage counters catch up with the process's totals,
    /// so that two expositions at once add each growth only once.
    stage_sync: Mutex<()>,
    meaning_topics: Gauge,
    webhook_events: Family<WebhookLabels, Gauge>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("kenning");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests by route, method and status",
            requests.clone(),
        );
        let latencies = Family::new_with_constructor(latency_histogram as fn() -> Histogram);
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency by route, method and status",
            latencies.clone(),
        );
        let uploads = Family::<UploadLabels, Counter>::default();
        registry.register(
            "uploads",
            "Connector uploads by outcome (Accepted or the error code)",
            uploads.clone(),
        );
        let topics_extracted = Counter::default();
        registry.register(
            "topics_extracted",
            "Topics learned from accepted uploads",
            topics_extracted.clone(),
        );
        let upload_stages = Family::<StageLabels, Counter<f64, AtomicU64>>::default();
        registry.register(
            "upload_stage_seconds",
            "Time the upload path spent in each stage, summed over uploads and threads \
             (http_json, extraction, person_check, action_row, topic_structures, commit)",
            upload_stages.clone(),
        );
        let meaning_topics = Gauge::default();
        registry.register(
            "meaning_topics",
            "Learned topics a query reaches by meaning (-1 without a model)",
            meaning_topics.clone(),
        );
        let webhook_events = Family::<WebhookLabels, Gauge>::default();
        registry.register(
            "webhook_events",
            "Webhook deliveries per subscription: pending (waiting), failed (waiting after a \
             failed attempt) and delivered (still kept in the outbox)",
            webhook_events.clone(),
        );
        Self {
            registry,
            requests,
            latencies,
            uploads,
            topics_extracted,
            upload_stages,
            stage_sync: Mutex::new(()),
            meaning_topics,
            webhook_events,
        }
    }
}

impl Metrics {
    pub(crate) fn observe(&self, route: String, method: &'static str, status: u16, seconds: f64) {
        let labels = RequestLabels {
            route,
            method,
            status,
        };
        self.requests.get_or_create(&labels).inc();
        self.latencies.get_or_create(&labels).observe(seconds);
    }

    /// Counts one connector upload under its outcome, a stable code.
    pub fn count_upload(&self, outcome: &'static str) {
        self.uploads.get_or_create(&UploadLabels { outcome }).inc();
    }

    /// Counts the topics an accepted upload taught.
    pub fn count_topics(&self, n: usize) {
        self.topics_extracted
            .inc_by(u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// Sets how many learned topics the process's index of meanings
    /// holds (`None`: no model, shown as -1).
    pub fn set_meaning_topics(&self, topics: Option<usize>) {
        self.meaning_topics
            .set(topics.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX)));
    }

    /// Sets the webhook deliveries of each subscription, given as its id
    /// and its pending, failed and delivered counts; subscriptions no
    /// longer listed have no series.
    pub fn set_webhook_events(&self, counts: impl IntoIterator<Item = (String, [u64; 3])>) {
        self.webhook_events.clear();
        for (subscription, [pending, failed, delivered]) in counts {
            for (state, n) in [
                ("pending", pending),
                ("failed", failed),
                ("delivered", delivered),
            ] {
                let labels = WebhookLabels {
                    subscription: subscription.clone(),
                    state,
                };
                self.webhook_events
                    .get_or_create(&labels)
                    .set(i64::try_from(n).unwrap_or(i64::MAX));
            }
        }
    }

    /// The OpenMetrics text exposition of every series.
    pub fn render(&self) -> Result<String, std::fmt::Error> {
        // The stages' totals are the process's ([`UPLOAD_STAGES`]); each
        // counter takes what they grew by since the last exposition, one
        // exposition at a time (a poisoned lock guards nothing broken).
        let synced = self.stage_sync.lock().unwrap_or_else(|e| e.into_inner());
        for (stage, seconds) in UPLOAD_STAGES.seconds() {
            let counter = self.upload_stages.get_or_create(&StageLabels {
                stage: stage.name(),
            });
            let grown = seconds - counter.get();
            if grown > 0.0 {
                counter.inc_by(grown);
            }
        }
        drop(synced);
        let mut out = String::new();
        encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// The label of a request method: the method itself when it is one of
/// the standard ones, else `other`, so invented methods share one series.
pub(crate) fn method_label(method: &Method) -> &'static str {
    const KNOWN: [(Method, &str); 9] = [
        (Method::GET, "GET"),
        (Method::HEAD, "HEAD"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::DELETE, "DELETE"),
        (Method::OPTIONS, "OPTIONS"),
        (Method::PATCH, "PATCH"),
        (Method::TRACE, "TRACE"),
        (Method::CONNECT, "CONNECT"),
    ];
    KNOWN
        .iter()
        .find(|(known, _)| known == method)
        .map_or("other", |(_, label)| label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_methods_share_one_label() {
        let invented = Method::from_bytes(b"BREW").unwrap();
        assert_eq!(method_label(&invented), "other");
        assert_eq!(method_label(&Method::POST), "POST");
    }

    #[test]
    fn the_exposition_keeps_the_documented_names() {
        let metrics = Metrics::default();
        metrics.observe("/healthz".to_owned(), "GET", 200, 0.002);
        metrics.count_upload("Accepted");
        metrics.count_topics(3);
        metrics.set_meaning_topics(Some(42));
        let text = metrics.render().unwrap();
        for line in [
            "kenning_http_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 1",
            "kenning_http_request_duration_seconds_bucket{le=\"0.005\",route=\"/healthz\",method=\"GET\",status=\"200\"} 1",
            "kenning_uploads_total{outcome=\"Accepted\"} 1",
            "kenning_topics_extracted_total 3",
            "kenning_meaning_topics 42",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }
}
