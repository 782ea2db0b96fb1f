//! Sending batches to the batch endpoint, with retries: a request that
//! got no answer, 408, 429 or a 5xx is sent again after an exponential
//! backoff with jitter (or after the server's `Retry-After`), and so is
//! an item answered 5xx; an item gives up after its last try.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};

use crate::client::{route, Answer, Client};
use crate::codes::Code;

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
    /// The client of the server named, with the key given.
    pub fn client(&self) -> Client {
        Client::new(&self.url, &self.api_key)
    }

    /// The sender of batches through `client`.
    pub fn sender(&self, client: Client) -> Sender {
        Sender {
            client,
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
    /// The uploads to send, in order, as the connector API takes them.
    fn bodies(&self) -> Vec<&Value>;
}

/// Where a batch goes, and how patiently.
#[derive(Debug, Clone)]
pub struct Sender {
    pub client: Client,
    /// Tries per item, the first included.
    pub tries: u32,
    /// The first backoff; each further try doubles it, up to [`MAX_BACKOFF`].
    pub backoff: Duration,
}

/// The longest wait between two tries (the server's `Retry-After` may ask
/// for more).
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What became of one upload: the outcomes every connector counts, in
/// one vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Stored (201): sent.
    Sent,
    /// Stored before (409 `DuplicateAlias`): already known, done too.
    Known,
    /// Its person is no one Kenning may learn about (`UnknownUser`): not
    /// found.
    NotFound { problem: String },
    /// Refused for what it is; sending it again would not help.
    Refused { code: String, problem: String },
    /// No try succeeded.
    Failed { problem: String },
}

/// Why a whole run must stop: the server refuses the key, or the
/// requests themselves.
#[derive(Debug)]
pub struct Fatal(pub String);

/// Uploads waiting for their outcome: the place of each in the batch,
/// and its tries so far.
type Pending = Vec<(usize, u32)>;

impl Sender {
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
            let outcomes = self.send(&batch.bodies());
            if !answered(batch, outcomes) {
                return;
            }
        }
    }

    /// Sends `bodies` as one batch (more than one when the server finds it
    /// too large) until each has its outcome; in the bodies' order.
    pub fn send(&self, bodies: &[&Value]) -> Result<Vec<Outcome>, Fatal> {
        let mut outcomes: Vec<Option<Outcome>> = vec![None; bodies.len()];
        let all: Vec<usize> = (0..bodies.len()).collect();
        self.send_some(bodies, &all, &mut outcomes)?;
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
        bodies: &[&Value],
        chosen: &[usize],
        outcomes: &mut [Option<Outcome>],
    ) -> Result<(), Fatal> {
        let mut pending: Pending = chosen.iter().map(|&at| (at, 0)).collect();
        while !pending.is_empty() {
            let batch: Vec<&Value> = pending.iter().map(|&(at, _)| bodies[at]).collect();
            // Every item pending, one try more.
            let all_again = || pending.iter().map(|&(at, tries)| (at, tries + 1)).collect();
            let (again, wait, problem): (Pending, _, _) =
                match self.client.post(route::BATCH, &json!({ "items": batch })) {
                    Ok(Answer {
                        status: 200, body, ..
                    }) => {
                        let (again, problem) = results(&body, &pending, outcomes);
                        (again, None, problem)
                    }
                    Ok(Answer {
                        status: 413, body, ..
                    }) => {
                        return self.split(bodies, &pending, &body, outcomes);
                    }
                    Ok(Answer {
                        status: status @ (408 | 429 | 500..=599),
                        retry_after,
                        body,
                        ..
                    }) => {
                        let problem = format!("HTTP {status}: {}", describe(&body));
                        (all_again(), retry_after, problem)
                    }
                    Ok(Answer { status, body, .. }) => {
                        return Err(Fatal(format!(
                            "the server refused the request (HTTP {status}): {}",
                            describe(&body)
                        )))
                    }
                    Err(no_answer) => (all_again(), None, no_answer.0),
                };
            let (done, left): (Pending, Pending) = again
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

    /// A batch too large (413): halves, each sent as it would have been;
    /// a single upload too large is refused.
    fn split(
        &self,
        bodies: &[&Value],
        pending: &Pending,
        body: &Value,
        outcomes: &mut [Option<Outcome>],
    ) -> Result<(), Fatal> {
        if let [(at, _)] = pending.as_slice() {
            outcomes[*at] = Some(refused(body));
            return Ok(());
        }
        let (left, right) = pending.split_at(pending.len() / 2);
        let left: Vec<usize> = left.iter().map(|&(at, _)| at).collect();
        let right: Vec<usize> = right.iter().map(|&(at, _)| at).collect();
        self.send_some(bodies, &left, outcomes)?;
        self.send_some(bodies, &right, outcomes)
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

/// The outcomes a batch's answer gives `pending`; those to be sent again
/// (answered 5xx), each one try more, with the last problem.
fn results(body: &Value, pending: &Pending, outcomes: &mut [Option<Outcome>]) -> (Pending, String) {
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
    (again, problem)
}

/// The final outcome of a batch result, or `None` when the item is to be
/// sent again (a 5xx for it).
fn item_outcome(result: &Value) -> Option<Outcome> {
    let status = result["status"].as_u64().unwrap_or(0);
    let code = result["error"]["code"].as_str().unwrap_or_default();
    match status {
        201 => Some(Outcome::Sent),
        409 if Code::DuplicateAlias.is(code) => Some(Outcome::Known),
        500..=599 | 0 => None,
        _ if Code::UnknownUser.is(code) => Some(Outcome::NotFound {
            problem: describe(result),
        }),
        _ => Some(refused(result)),
    }
}

fn refused(body: &Value) -> Outcome {
    Outcome::Refused {
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
