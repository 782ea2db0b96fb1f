//! Load generators. Closed loop ([`run`]): `connections` threads, each
//! with its own keep-alive connection, send one request after another
//! for a while and record every latency. Open loop ([`run_at_rate`]):
//! requests are due at a constant rate whatever the answers, and each
//! latency counts from the moment its request was due, as wrk2's rate
//! mode measures, so a slow answer that delays the next requests counts
//! against them too (no coordinated omission).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// One request to send.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The whole URL.
    pub url: String,
    /// (name, value) pairs.
    pub headers: Vec<(&'static str, String)>,
    /// The body; empty for a `GET`.
    pub body: Vec<u8>,
}

/// Builds the `n`-th request of a connection (`connection`, counted from 0).
pub type Make = dyn Fn(usize, u64) -> Request + Send + Sync;

/// Decides whether an answer (status, body) is a success.
pub type Check = dyn Fn(u16, &str) -> bool + Send + Sync;

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Stats {
    /// Requests answered with success, per second of the measured time.
    pub per_second: f64,
    /// Median latency, milliseconds.
    pub p50: f64,
    /// 99th percentile latency, milliseconds.
    pub p99: f64,
    /// Answers that were not a success, or requests that failed.
    pub errors: u64,
    /// The first failure seen, for the report.
    pub first_error: Option<String>,
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((sorted.len() as f64) * p).ceil() as usize;
    let at = rank.clamp(1, sorted.len()) - 1;
    sorted[at].as_secs_f64() * 1e3
}

/// What one connection saw.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    errors: u64,
    first_error: Option<String>,
}

fn send(agent: &ureq::Agent, request: &Request) -> Result<(u16, String), String> {
    let mut builder = ureq::http::Request::builder()
        .method(request.method)
        .uri(&request.url);
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    let built = builder
        .body(request.body.clone())
        .map_err(|e| e.to_string())?;
    let mut response = agent.run(built).map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_string()
        .map_err(|e| e.to_string())?;
    Ok((status, body))
}

/// A client's keep-alive connection: every status is an answer.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn connection(
    id: usize,
    make: &Make,
    check: &Check,
    warm_up: Duration,
    stop: &AtomicBool,
) -> Tally {
    let agent = agent();
    let mut tally = Tally::default();
    let started = Instant::now();
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let request = make(id, n);
        n += 1;
        let sent = Instant::now();
        let outcome = send(&agent, &request);
        let took = sent.elapsed();
        if sent.duration_since(started) < warm_up {
            continue;
        }
        tally.record(outcome, took, check);
    }
    tally
}

impl Tally {
    fn record(&mut self, outcome: Result<(u16, String), String>, took: Duration, check: &Check) {
        match outcome {
            Ok((status, body)) if check(status, &body) => self.latencies.push(took),
            Ok((status, body)) => {
                self.errors += 1;
                self.first_error.get_or_insert_with(|| {
                    format!(
                        "HTTP {status}: {}",
                        body.chars().take(300).collect::<String>()
                    )
                });
            }
            Err(e) => {
                self.errors += 1;
                self.first_error.get_or_insert(e);
            }
        }
    }
}

/// The threads of the open-loop generator: enough that a request is sent
/// when it is due while others are still waiting for their answers.
const OPEN_LOOP_SENDERS: usize = 64;

/// Sends requests due at `rate` a second for `warm_up` (not measured)
/// plus `measure`; each sender thread takes the next due request, waits
/// for its moment, sends it on its keep-alive connection and records the
/// time from the moment it was due to its answer.
pub fn run_at_rate(
    make: Arc<Make>,
    check: Arc<Check>,
    rate: f64,
    warm_up: Duration,
    measure: Duration,
) -> Stats {
    let next = Arc::new(AtomicU64::new(0));
    let start = Instant::now() + Duration::from_millis(100);
    let total = warm_up + measure;
    let threads: Vec<_> = (0..OPEN_LOOP_SENDERS)
        .map(|id| {
            let (make, check, next) = (make.clone(), check.clone(), next.clone());
            thread::spawn(move || {
                let agent = agent();
                let mut tally = Tally::default();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let due_after = Duration::from_secs_f64(n as f64 / rate);
                    if due_after >= total {
                        break;
                    }
                    let due = start + due_after;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        thread::sleep(wait);
                    }
                    let outcome = send(&agent, &make(id, n));
                    if due_after < warm_up {
                        continue;
                    }
                    tally.record(outcome, due.elapsed(), check.as_ref());
                }
                tally
            })
        })
        .collect();
    collect(threads, measure)
}

/// Runs `connections` connections for `warm_up` (not measured) plus
/// `measure`, and returns what they measured.
pub fn run(
    make: Arc<Make>,
    check: Arc<Check>,
    connections: usize,
    warm_up: Duration,
    measure: Duration,
) -> Stats {
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..connections)
        .map(|id| {
            let (make, check, stop) = (make.clone(), check.clone(), stop.clone());
            thread::spawn(move || connection(id, make.as_ref(), check.as_ref(), warm_up, &stop))
        })
        .collect();
    thread::sleep(warm_up + measure);
    stop.store(true, Ordering::Relaxed);
    collect(threads, measure)
}

/// What the threads measured, together.
fn collect(threads: Vec<thread::JoinHandle<Tally>>, measure: Duration) -> Stats {
    let mut latencies = Vec::new();
    let mut errors = 0;
    let mut first_error = None;
    for thread in threads {
        match thread.join() {
            Ok(tally) => {
                latencies.extend(tally.latencies);
                errors += tally.errors;
                first_error = first_error.or(tally.first_error);
            }
            Err(_) => {
                errors += 1;
                first_error.get_or_insert_with(|| "a load thread panicked".to_owned());
            }
        }
    }
    latencies.sort_unstable();
    Stats {
        per_second: latencies.len() as f64 / measure.as_secs_f64(),
        p50: percentile(&latencies, 0.50),
        p99: percentile(&latencies, 0.99),
        errors,
        first_error,
    }
}
