//! One run of a source: read it from its cursor, find its people, send
//! uploads in batches (with the retries of `kenning upload`), move the
//! cursor past what is done, and count everything.
//!
//! Three kinds of thread share the work: the reader (the source, the
//! people, the uploads), the senders (a batch each at a time), and the
//! caller's, which counts the outcomes and moves the cursor. The cursor
//! moves only past a run of items whose every upload has its answer, in
//! reading order, and never past an upload that failed: the next run
//! reads from there and sends it again.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::Mutex;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::cursor::Cursor;
use super::people::{Directory, IdentityFile, People};
use super::progress::Progress;
use super::source::{cut, Found, Item, Source, Text, Window};
pub use super::tally::Tally;
use crate::input::Item as Upload;
use crate::send::{Batch, Fatal, Outcome, Sending};

/// The longest text sent, in characters; what follows is left out (the
/// topics of a text are in its beginning, and a batch stays under the
/// server's body limit).
pub const MAX_TEXT_CHARS: usize = 16_000;

/// How a run goes.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where and how uploads are sent.
    pub sending: Sending,
    /// People named by the source's own keys.
    pub identities: IdentityFile,
    /// What a backfill reads; bounded, it reads without the cursor and
    /// leaves it alone.
    pub window: Window,
    /// Read and find people, send nothing, leave the cursor.
    pub dry_run: bool,
    /// No progress on standard error.
    pub quiet: bool,
    /// Where the cursors are kept (`None`: the default folder).
    pub cursor_dir: Option<PathBuf>,
}

/// The `action_alias` of the `n`th upload of the item `id` of a source of
/// `kind`: a digest of the item's stable id, so that the same item read
/// again (by this run or another, from any copy of the source) is one
/// upload.
pub fn alias(kind: &str, id: &str, n: usize) -> String {
    let digest = Sha256::digest(format!("{kind}\n{id}").as_bytes());
    let hex: String = digest.iter().take(20).map(|b| format!("{b:02x}")).collect();
    format!("{kind}_{hex}_{n}")
}

/// The texts of `item` as they are sent: the blank ones left out, each
/// cut at [`MAX_TEXT_CHARS`].
pub fn texts_as_sent(item: &Item) -> Vec<Text> {
    item.texts
        .iter()
        .filter(|t| !t.text.trim().is_empty())
        .map(|t| Text {
            text: t.text.chars().take(MAX_TEXT_CHARS).collect(),
            ..t.clone()
        })
        .collect()
}

/// The upload of `item` for its `n`th person, whose e-mail address in
/// Kenning is `email`, as the connector API takes it.
pub fn upload_body(kind: &str, item: &Item, n: usize, email: &str) -> Value {
    let texts: Vec<Value> = texts_as_sent(item)
        .iter()
        .map(|t| {
            json!({
                "text_format": if t.html { "html" } else { "plain" },
                "descriptor": t.descriptor.as_str(),
                "text": t.text,
            })
        })
        .collect();
    let action_type = item.actions.get(n).map_or("", |(_, action)| *action);
    json!({
        "entity_type": item.entity_type,
        "action_type": action_type,
        "action_date": item.date.to_rfc3339_opts(SecondsFormat::Millis, true),
        "user_email": email,
        "texts": texts,
        "action_alias": alias(kind, &item.id, n),
    })
}

/// The uploads `item` makes, one per person found (each person once),
/// with the actions of people not found counted by `people`; none when
/// it has no text.
fn uploads(kind: &str, item: &Item, people: &mut People<'_>) -> Vec<Value> {
    let mut emails: Vec<String> = Vec::new();
    let mut uploads = Vec::new();
    if texts_as_sent(item).is_empty() {
        return uploads;
    }
    for (n, (identity, _)) in item.actions.iter().enumerate() {
        let Some(email) = people.email_of(identity) else {
            continue;
        };
        if emails.iter().any(|e| e.eq_ignore_ascii_case(&email)) {
            continue;
        }
        uploads.push(upload_body(kind, item, n, &email));
        emails.push(email);
    }
    uploads
}

/// What the counting thread hears.
enum Heard {
    /// Item `seq` was read: it makes `uploads` uploads (or, on a dry run,
    /// would), and the run resumes at `position` once they are answered.
    Planned {
        seq: u64,
        position: Option<String>,
        uploads: usize,
        not_found: usize,
        read: Read,
    },
    /// A batch's answers.
    Sent(Planned, Result<Vec<Outcome>, Fatal>),
    /// The reader ended: the people it did not find, and why it ended
    /// early, if it did.
    Ended(
        BTreeMap<String, u64>,
        BTreeMap<String, String>,
        Option<anyhow::Error>,
    ),
}

/// What kind of thing was read.
enum Read {
    Item,
    Skipped(&'static str),
    Bad { origin: String, problem: String },
}

/// The items read and not yet done, in reading order.
#[derive(Default)]
struct Pending {
    items: VecDeque<Waiting>,
    /// The sequence number of the first of `items`.
    first: u64,
    /// An upload failed: the cursor stays before it for the rest of the run.
    blocked: bool,
}

struct Waiting {
    position: Option<String>,
    unanswered: usize,
    failed: bool,
}

impl Pending {
    fn planned(&mut self, seq: u64, position: Option<String>, uploads: usize) {
        debug_assert_eq!(seq, self.first + self.items.len() as u64);
        self.items.push_back(Waiting {
            position,
            unanswered: uploads,
            failed: false,
        });
    }

    fn answered(&mut self, seq: u64, failed: bool) {
        let Some(at) = seq.checked_sub(self.first) else {
            return;
        };
        if let Some(waiting) = usize::try_from(at)
            .ok()
            .and_then(|at| self.items.get_mut(at))
        {
            waiting.unanswered = waiting.unanswered.saturating_sub(1);
            waiting.failed |= failed;
        }
    }

    /// The position past every item done in reading order, if it moved.
    fn advance(&mut self) -> Option<String> {
        let mut moved = None;
        while !self.blocked {
            let Some(front) = self.items.front() else {
                break;
            };
            if front.unanswered > 0 {
                break;
            }
            if front.failed {
                self.blocked = true;
                break;
            }
            if let Some(waiting) = self.items.pop_front() {
                self.first += 1;
                if waiting.position.is_some() {
                    moved = waiting.position;
                }
            }
        }
        moved
    }
}

/// The problems listed in full; more are counted.
const PROBLEMS_LISTED: usize = 100;

/// Runs `source` once as `settings` say, finding people with
/// `directory`. An error is a run that could not go on (the source
/// cannot be read, the server refuses the key); what it did until then
/// is in the error's context.
pub fn run(
    source: &mut dyn Source,
    settings: &Settings,
    directory: &dyn Directory,
) -> (Tally, Option<anyhow::Error>) {
    let kind = source.kind();
    let cursor = match Cursor::of_source(settings.cursor_dir.as_deref(), source) {
        Ok(cursor) => cursor,
        Err(e) => return (Tally::default(), Some(e)),
    };
    let uses_cursor = !settings.window.is_bounded() && !settings.dry_run;
    let start = if settings.window.is_bounded() {
        None
    } else {
        match cursor.load() {
            Ok(start) => start,
            Err(e) => return (Tally::default(), Some(e)),
        }
    };
    let sender = settings.sending.sender();
    let senders = if settings.dry_run {
        0
    } else {
        settings.sending.concurrency()
    };
    let progress = Progress::new(settings.quiet, settings.dry_run);
    let mut tally = Tally::default();
    let mut pending = Pending::default();
    let mut stopped: Option<anyhow::Error> = None;
    let stop = AtomicBool::new(false);
    let (heard_tx, heard) = mpsc::channel::<Heard>();
    // Room for one batch per sender waiting: memory stays bounded.
    let (batches_tx, batches) = mpsc::sync_channel::<Planned>(senders.max(1));
    let batches = Mutex::new(batches);
    std::thread::scope(|s| {
        for _ in 0..senders {
            let (sender, batches, heard_tx, stop) = (&sender, &batches, heard_tx.clone(), &stop);
            s.spawn(move || {
                sender.send_each(batches, stop, |planned, outcomes| {
                    heard_tx.send(Heard::Sent(planned, outcomes)).is_ok()
                });
            });
        }
        {
            let heard_tx = heard_tx.clone();
            let (stop, start) = (&stop, start.as_deref());
            let batches_tx = (!settings.dry_run).then_some(batches_tx);
            s.spawn(move || {
                let mut people = People::new(settings.identities.clone(), directory);
                let reader = Reader {
                    kind,
                    people: &mut people,
                    batch_size: settings.sending.batch_size(),
                    batches: batches_tx,
                    heard: &heard_tx,
                    stop,
                    seq: 0,
                    items: Vec::new(),
                    batch: Planned::default(),
                };
                let ended = reader.read(source, start, &settings.window);
                let _ = heard_tx.send(Heard::Ended(
                    people.not_found().clone(),
                    people.names_not_found().clone(),
                    ended.err(),
                ));
            });
        }
        drop(heard_tx);
        for message in heard {
            match message {
                Heard::Planned {
                    seq,
                    position,
                    uploads,
                    not_found,
                    read,
                } => {
                    tally.read += 1;
                    tally.not_found += not_found as u64;
                    match read {
                        Read::Item => {}
                        Read::Skipped(reason) => *tally.skipped.entry(reason).or_default() += 1,
                        Read::Bad { origin, problem } => {
                            *tally.refused.entry("Unreadable".to_owned()).or_default() += 1;
                            note(&mut tally, format!("{origin}: {problem}"));
                        }
                    }
                    if settings.dry_run {
                        tally.sent += uploads as u64;
                    } else {
                        pending.planned(seq, position, uploads);
                    }
                }
                Heard::Sent(planned, Ok(outcomes)) => {
                    for ((seq, upload), outcome) in
                        planned.seqs.iter().zip(&planned.uploads).zip(outcomes)
                    {
                        let failed = matches!(outcome, Outcome::Failed { .. });
                        match outcome {
                            Outcome::Learned => tally.sent += 1,
                            Outcome::Duplicate => tally.known += 1,
                            // Someone the server does not know (any more):
                            // not found, as the directory would have said.
                            Outcome::Rejected { code, .. } if code == "UnknownUser" => {
                                tally.not_found += 1;
                                let who = upload.body["user_email"].as_str().unwrap_or_default();
                                *tally.people_not_found.entry(who.to_owned()).or_default() += 1;
                            }
                            Outcome::Rejected { code, problem } => {
                                *tally.refused.entry(code.clone()).or_default() += 1;
                                note(&mut tally, format!("{}: {code}: {problem}", upload.origin));
                            }
                            Outcome::Failed { problem } => {
                                tally.failed += 1;
                                note(&mut tally, format!("{}: failed: {problem}", upload.origin));
                            }
                        }
                        pending.answered(*seq, failed);
                    }
                }
                Heard::Sent(_, Err(Fatal(why))) => {
                    stopped.get_or_insert_with(|| anyhow::anyhow!(why));
                    stop.store(true, Ordering::Relaxed);
                }
                Heard::Ended(not_found, names, error) => {
                    for (who, n) in not_found {
                        *tally.people_not_found.entry(who).or_default() += n;
                    }
                    tally.names_not_found.extend(names);
                    if let Some(e) = error {
                        stopped.get_or_insert(e);
                    }
                }
            }
            if uses_cursor {
                if let Some(position) = pending.advance() {
                    if let Err(e) = cursor.store(&position) {
                        stopped.get_or_insert(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            progress.show(&tally);
        }
    });
    progress.finish();
    (tally, stopped)
}

fn note(tally: &mut Tally, problem: String) {
    if tally.problems.len() < PROBLEMS_LISTED {
        tally.problems.push(problem);
    }
}

/// The reader thread's state: items waiting for their people to be
/// found, and the batch being filled.
struct Reader<'a, 'p> {
    kind: &'static str,
    people: &'a mut People<'p>,
    batch_size: usize,
    /// Where full batches go (none on a dry run).
    batches: Option<SyncSender<Planned>>,
    heard: &'a mpsc::Sender<Heard>,
    stop: &'a AtomicBool,
    seq: u64,
    /// Read, their people not yet asked about.
    items: Vec<Found>,
    batch: Planned,
}

impl Reader<'_, '_> {
    fn read(
        mut self,
        source: &mut dyn Source,
        start: Option<&str>,
        window: &Window,
    ) -> anyhow::Result<()> {
        let mut failure = None;
        let read = source.read(start, window, &mut |found| {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            self.items.push(found);
            if self.items.len() >= self.batch_size {
                if let Err(e) = self.flush() {
                    failure = Some(e);
                    return false;
                }
            }
            true
        });
        if let Some(e) = failure {
            return Err(e);
        }
        // What was read before a failure is still handed over and counted.
        self.flush()?;
        if let (Some(batches), false) = (&self.batches, self.batch.uploads.is_empty()) {
            let _ = batches.send(std::mem::take(&mut self.batch));
        }
        read
    }

    /// Finds the people of the items read, then plans their uploads.
    fn flush(&mut self) -> anyhow::Result<()> {
        let items = std::mem::take(&mut self.items);
        self.people
            .learn(items.iter().flat_map(|found| match found {
                Found::Item(item) => item.actions.iter().map(|(who, _)| who).collect(),
                _ => Vec::new(),
            }))?;
        for found in items {
            let seq = self.seq;
            self.seq += 1;
            let (position, uploads, read, not_found) = match found {
                Found::Item(item) => {
                    let before = self.people.not_found().values().sum::<u64>();
                    let uploads = uploads(self.kind, &item, self.people);
                    let after = self.people.not_found().values().sum::<u64>();
                    let uploads: Vec<Upload> = uploads
                        .into_iter()
                        .map(|body| Upload {
                            id: item.id.clone(),
                            origin: item.origin.clone(),
                            body,
                        })
                        .collect();
                    (
                        Some(item.position),
                        uploads,
                        Read::Item,
                        (after - before) as usize,
                    )
                }
                Found::Skipped { reason, position } => {
                    (position, Vec::new(), Read::Skipped(reason), 0)
                }
                Found::Bad {
                    origin,
                    problem,
                    position,
                } => (position, Vec::new(), Read::Bad { origin, problem }, 0),
            };
            let planned = Heard::Planned {
                seq,
                position,
                uploads: uploads.len(),
                not_found,
                read,
            };
            if self.heard.send(planned).is_err() {
                return Ok(());
            }
            let Some(batches) = &self.batches else {
                continue;
            };
            for upload in uploads {
                self.batch.seqs.push(seq);
                self.batch.uploads.push(upload);
                if self.batch.uploads.len() >= self.batch_size
                    && batches.send(std::mem::take(&mut self.batch)).is_err()
                {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// Uploads handed to a sender, with the item each belongs to.
#[derive(Default)]
struct Planned {
    /// The sequence number of each upload's item.
    seqs: Vec<u64>,
    uploads: Vec<Upload>,
}

impl Batch for Planned {
    fn items(&self) -> &[Upload] {
        &self.uploads
    }
}

/// The most characters of a run's error the server keeps (its `error`
/// field's limit): a longer one is cut, so that the failed run is still
/// reported.
pub const MAX_ERROR_CHARS: usize = 2000;

/// A run as the server's `POST /connectors/api/v1/runs` takes it.
pub fn report(
    kind: &str,
    name: &str,
    started: DateTime<Utc>,
    tally: &Tally,
    dry_run: bool,
    error: Option<&anyhow::Error>,
) -> Value {
    json!({
        "source": kind,
        "name": name,
        "started": started.to_rfc3339_opts(SecondsFormat::Millis, true),
        "finished": Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        "read": tally.read,
        "sent": tally.sent,
        "known": tally.known,
        "not_found": tally.not_found,
        "refused": tally.refused,
        "failed": tally.failed,
        "dry_run": dry_run,
        "error": error.map(|e| {
            // One line, and no control character the server refuses (an
            // IMAP server's or git's words may hold any).
            let error: String = format!("{e:#}")
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            cut(&error, MAX_ERROR_CHARS).to_owned()
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_error_is_cut_at_a_character_boundary_to_what_the_server_keeps() {
        let error = anyhow::anyhow!("{}", "\u{e9}".repeat(MAX_ERROR_CHARS + 10));
        let controls = anyhow::anyhow!("login refused:\u{1b}[31m\0 bad\r\nline");
        let sent = report(
            "mail",
            "x",
            Utc::now(),
            &Tally::default(),
            false,
            Some(&controls),
        );
        assert_eq!(sent["error"], "login refused: [31m  bad  line");
        let sent = report(
            "git",
            "repo",
            Utc::now(),
            &Tally::default(),
            false,
            Some(&error),
        );
        let sent = sent["error"].as_str().unwrap();
        assert_eq!(sent.chars().count(), MAX_ERROR_CHARS);
        assert!(sent.chars().all(|c| c == '\u{e9}'));
    }

    #[test]
    fn an_alias_is_the_items_and_the_persons_whatever_copy_it_is_read_from() {
        let a = alias("git", "3f2c", 0);
        assert_eq!(a, alias("git", "3f2c", 0));
        assert_ne!(a, alias("git", "3f2c", 1));
        assert_ne!(a, alias("mail", "3f2c", 0));
        assert!(
            a.starts_with("git_") && a.ends_with("_0") && a.len() <= 255,
            "{a}"
        );
        assert!(a
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
    }

    #[test]
    fn the_cursor_moves_past_answered_items_in_order_and_never_past_a_failure() {
        let mut pending = Pending::default();
        for seq in 0..4 {
            pending.planned(seq, Some(format!("p{seq}")), 1);
        }
        pending.answered(1, false);
        assert_eq!(pending.advance(), None);
        pending.answered(0, false);
        assert_eq!(pending.advance().as_deref(), Some("p1"));
        pending.answered(3, false);
        pending.answered(2, true);
        assert_eq!(pending.advance(), None);
        pending.planned(4, Some("p4".to_owned()), 0);
        assert_eq!(pending.advance(), None);
    }
}
