//! Sending batches to the batch endpoint, with retries: a request that
//! got no answer, 408, 429 or a 5xx is sent again after an exponential
//! backoff with jitter (or after the server's `Retry-After`), and so is
//! an item answered 5xx; an item gives up after its last try.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};

use super::input::Item;

/// Where and how uploads are sent: what `kenning upload` and `kenning
/// connect` take alike.
#[derive(Debug, Clone, clap::Args)]
pub struct Sending {
    /// The server's address.
    #[arg(long, env = "KENNING_URL", default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// A connector API key (`kenning apikey create`).
    #[arg(long, env = "KENNING_API_KEY", hide_env_values = true)]
    pub api_key: String,
    /// Uploads per request (at most the server's limit, 100 by default).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub batch_size: u32,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrency: u32,
    /// Tries per upload before it is given up and reported.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub tries: u32,
    /// Milliseconds before the second try; each further try waits about
    /// twice as long (up to 30 s), or as long as the server's Retry-After.
    #[arg(long, default_value_t = 500)]
    pub backoff_ms: u64,
}

impl Sending {
    /// The server's address, without a trailing slash.
    pub fn base(&self) -> &str {
        self.url.trim_end_matches('/')
    }

    /// The API key as given, without surrounding blanks.
    pub fn key(&self) -> &str {
        self.api_key.trim()
    }

    /// The sender to the batch endpoint (warning, once, when the key
    /// would cross a network in the clear).
    pub fn sender(&self) -> Sender {
        warn_if_in_the_clear(self.base());
        Sender {
            url: format!(
                "{}/connectors/api/v1/entities-with-action/batch",
                self.base()
            ),
            api_key: self.key().to_owned(),
            tries: self.tries,
            backoff: Duration::from_millis(self.backoff_ms),
        }
    }

    /// Uploads per request.
    pub fn batch_size(&self) -> usize {
        usize::try_from(self.batch_size).unwrap_or(100)
    }

    /// Requests in flight at once.
    pub fn concurrency(&self) -> usize {
        usize::try_from(self.concurrency).unwrap_or(4)
    }
}

/// What a sender thread is handed: uploads to send, with whatever else
/// its reader keeps beside them.
pub trait Batch {
    /// The uploads to send, in order.
    fn items(&self) -> &[Item];
}

impl Batch for Vec<Item> {
    fn items(&self) -> &[Item] {
        self
    }
}

/// Where a batch goes, and how patiently.
#[derive(Debug, Clone)]
pub struct Sender {
    pub url: String,
    pub api_key: String,
    /// Tries per item, the first included.
    pub tries: u32,
    /// The first backoff; each further try doubles it, up to [`MAX_BACKOFF`].
    pub backoff: Duration,
}

/// The longest wait between two tries (the server's `Retry-After` may ask
/// for more).
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What became of one item.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Stored (201).
    Learned,
    /// Stored before (409 `DuplicateAlias`): done too.
    Duplicate,
    /// Refused for what it is; sending it again would not help.
    Rejected { code: String, problem: String },
    /// No try succeeded.
    Failed { problem: String },
}

/// Why a whole run must stop: the server refuses the key, or the
/// requests themselves.
#[derive(Debug)]
pub struct Fatal(pub String);

/// The answer to one request, or why there is none.
enum Reply {
    Answered {
        status: u16,
        retry_after: Option<Duration>,
        body: Value,
    },
    NoAnswer(String),
}

/// The HTTP client every request to the server goes through: answers of
/// every status are read, not errors, and no redirect is followed, so the
/// API key (a header of the request) never reaches another address than
/// the one named; a redirect is an answer like any other, whose status
/// the caller reports.
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// Says once on standard error that the API key goes over plain HTTP when
/// `base` is `http://` to a host that is not this machine.
pub fn warn_if_in_the_clear(base: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if in_the_clear(base) {
        WARNED.call_once(|| {
            eprintln!(
                "warning: {base} is plain HTTP to another machine: the API key and every upload \
                 cross the network unencrypted; use https://"
            );
        });
    }
}

/// Whether `base` is `http://` to a host other than a loopback address.
fn in_the_clear(base: &str) -> bool {
    let scheme_end = base.find("://").unwrap_or(0);
    if !base[..scheme_end].eq_ignore_ascii_case("http") {
        return false;
    }
    let rest = &base[scheme_end + 3..];
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !loopback
}

impl Sender {
    fn agent() -> ureq::Agent {
        agent(Duration::from_secs(120))
    }

    fn post(&self, agent: &ureq::Agent, items: &[&Item]) -> Reply {
        let bodies: Vec<&Value> = items.iter().map(|i| &i.body).collect();
        let sent = agent
            .post(&self.url)
            .header("APIKEY", &self.api_key)
            .header("Content-Type", "application/json")
            .send(json!({ "items": bodies }).to_string());
        let mut response = match sent {
            Ok(response) => response,
            Err(e) => return Reply::NoAnswer(e.to_string()),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok())
            .map(Duration::from_secs);
        let text = response
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string();
        match text {
            Ok(text) => Reply::Answered {
                status,
                retry_after,
                body: serde_json::from_str(&text).unwrap_or(Value::Null),
            },
            Err(e) => Reply::NoAnswer(e.to_string()),
        }
    }

    /// A sender thread's work: sends each batch `batches` hands over, until
    /// there are none or `stop` is set, and hands it with its outcomes to
    /// `answered`, which says whether to go on.
    pub fn send_each<B: Batch>(
        &self,
        batches: &Mutex<Receiver<B>>,
        stop: &AtomicBool,
        mut answered: impl FnMut(B, Result<Vec<Outcome>, Fatal>) -> bool,
    ) {
        loop {
            let next = batches
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv();
            let Ok(batch) = next else { return };
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let outcomes = self.send(batch.items());
            if !answered(batch, outcomes) {
                return;
            }
        }
    }

    /// Sends `items` as one batch (more than one when the server finds it
    /// too large) until each has its outcome; in the items' order.
    pub fn send(&self, items: &[Item]) -> Result<Vec<Outcome>, Fatal> {
        let agent = Self::agent();
        let mut outcomes: Vec<Option<Outcome>> = vec![None; items.len()];
        let all: Vec<usize> = (0..items.len()).collect();
        self.send_some(&agent, items, &all, &mut outcomes)?;
        Ok(outcomes
            .into_iter()
            .map(|o| {
                o.unwrap_or(Outcome::Failed {
                    problem: "no answer".to_owned(),
                })
            })
            .collect())
    }

    fn send_some(
        &self,
        agent: &ureq::Agent,
        items: &[Item],
        chosen: &[usize],
        outcomes: &mut [Option<Outcome>],
    ) -> Result<(), Fatal> {
        let mut pending: Vec<(usize, u32)> = chosen.iter().map(|&at| (at, 0)).collect();
        while !pending.is_empty() {
            let batch: Vec<&Item> = pending.iter().map(|&(at, _)| &items[at]).collect();
            // Every item pending, one try more.
            let all_again = || pending.iter().map(|&(at, tries)| (at, tries + 1)).collect();
            let (again, wait, problem): (Vec<(usize, u32)>, _, _) = match self.post(agent, &batch) {
                Reply::Answered {
                    status: 200, body, ..
                } => {
                    let results = body["results"].as_array().cloned().unwrap_or_default();
                    let mut again = Vec::new();
                    let mut problem = String::new();
                    for (n, (at, tries)) in pending.iter().enumerate() {
                        let result = results.get(n).cloned().unwrap_or(Value::Null);
                        match item_outcome(&result) {
                            Some(outcome) => outcomes[*at] = Some(outcome),
                            None => {
                                problem = describe(&result);
                                again.push((*at, tries + 1));
                            }
                        }
                    }
                    (again, None, problem)
                }
                Reply::Answered {
                    status: 413, body, ..
                } => {
                    if pending.len() == 1 {
                        outcomes[pending[0].0] = Some(rejected(&body));
                    } else {
                        // Halves, each sent as it would have been.
                        let (left, right) = pending.split_at(pending.len() / 2);
                        let left: Vec<usize> = left.iter().map(|&(at, _)| at).collect();
                        let right: Vec<usize> = right.iter().map(|&(at, _)| at).collect();
                        self.send_some(agent, items, &left, outcomes)?;
                        self.send_some(agent, items, &right, outcomes)?;
                    }
                    return Ok(());
                }
                Reply::Answered {
                    status: status @ (408 | 429 | 500..=599),
                    retry_after,
                    body,
                } => {
                    let problem = format!("HTTP {status}: {}", describe(&body));
                    (all_again(), retry_after, problem)
                }
                Reply::Answered { status, body, .. } => {
                    return Err(Fatal(format!(
                        "the server refused the request (HTTP {status}): {}",
                        describe(&body)
                    )))
                }
                Reply::NoAnswer(why) => (all_again(), None, why),
            };
            let (done, left): (Vec<_>, Vec<_>) = again
                .into_iter()
                .partition(|&(_, tries)| tries >= self.tries);
            for (at, _) in done {
                outcomes[at] = Some(Outcome::Failed {
                    problem: problem.clone(),
                });
            }
            pending = left;
            if let Some(&(_, tries)) = pending.first() {
                std::thread::sleep(wait.unwrap_or_else(|| self.backoff_before(tries)));
            }
        }
        Ok(())
    }

    /// The wait before try `tries + 1`: a random share, from half to all,
    /// of the backoff doubled at each try, so that clients that failed
    /// together do not come back together.
    fn backoff_before(&self, tries: u32) -> Duration {
        let ceiling = self
            .backoff
            .saturating_mul(1 << tries.saturating_sub(1).min(16))
            .min(MAX_BACKOFF);
        let share = f64::from(getrandom::u32().unwrap_or(u32::MAX / 2)) / f64::from(u32::MAX);
        ceiling.mul_f64(0.5 + share / 2.0)
    }
}

/// The final outcome of a batch result, or `None` when the item is to be
/// sent again (a 5xx for it).
fn item_outcome(result: &Value) -> Option<Outcome> {
    let status = result["status"].as_u64().unwrap_or(0);
    match status {
        201 => Some(Outcome::Learned),
        409 if result["error"]["code"] == "DuplicateAlias" => Some(Outcome::Duplicate),
        500..=599 | 0 => None,
        _ => Some(rejected(result)),
    }
}

fn rejected(body: &Value) -> Outcome {
    Outcome::Rejected {
        code: body["error"]["code"]
            .as_str()
            .unwrap_or("Unknown")
            .to_owned(),
        problem: describe(body),
    }
}

/// An answer's error in one line: its message and each field's rule.
fn describe(body: &Value) -> String {
    let error = &body["error"];
    let mut text = error["message"]
        .as_str()
        .map_or_else(|| body.to_string(), str::to_owned);
    for field in error["fields"].as_array().into_iter().flatten() {
        let problem = field["problem"].as_str().unwrap_or_default();
        if problem != text {
            let name = field["field"].as_str().unwrap_or_default();
            text.push_str(&format!("; {name}: {problem}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_is_in_the_clear_off_this_machine_only() {
        assert!(in_the_clear("http://kenning.example.com"));
        assert!(in_the_clear("HTTP://kenning.example.com"));
        assert!(in_the_clear("http://10.0.0.5:8080/"));
        assert!(!in_the_clear("http://127.0.0.1:8080"));
        assert!(!in_the_clear("http://localhost:8080"));
        assert!(!in_the_clear("http://[::1]:8080"));
        assert!(!in_the_clear("https://kenning.example.com"));
    }
}
