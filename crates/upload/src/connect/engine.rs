//! One run of a source: read it from its cursor, find its people, send
//! uploads in batches (with the retries of `kenning upload`), move the
//! cursor past what is done, and count everything.
//!
//! The threads are [`pipeline`]'s: the reader (the source, the window,
//! the people, the uploads: [`Reader`]), the senders, and the caller's,
//! which counts the outcomes and moves the cursor ([`Counter`]). The
//! cursor moves only past a run of items whose every upload has its
//! answer, in reading order, and never past an upload that failed: the
//! next run reads from there and sends it again.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::cursor::Cursor;
use super::people::{Directory, IdentityFile, People};
use super::plan::{uploads, whole, Planned};
use super::source::{Found, Source, Window};
use crate::pipeline::{self, Reading};
use crate::progress::{Progress, Shown};
use crate::send::{Fatal, Outcome, Sender, Sending};
use crate::tally::Tally;

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
    /// Read at most this many items, then end as a run cut short does,
    /// its cursor past what was answered.
    pub most: Option<u64>,
    /// How often progress is written when standard error is no terminal.
    pub progress_every: Duration,
}

/// Where a run keeps what it did, beside its counts: a ready
/// connector's cursor, `kenning upload`'s checkpoint and report.
pub trait Mark {
    /// Every item up to the one at `position` is done, in reading order,
    /// and none of their uploads failed.
    fn passed(&mut self, position: &str) -> anyhow::Result<()>;

    /// `upload` was answered `outcome`.
    fn answered(&mut self, _upload: &Planned, _outcome: &Outcome) -> anyhow::Result<()> {
        Ok(())
    }

    /// The item at `origin` could not be read, for `problem`.
    fn unreadable(&mut self, _origin: &str, _problem: &str) -> anyhow::Result<()> {
        Ok(())
    }

    /// A batch's answers are all counted.
    fn counted(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

impl Mark for Cursor {
    fn passed(&mut self, position: &str) -> anyhow::Result<()> {
        self.store(position)
    }
}

/// Why an item inside a source but outside `--since/--until` is skipped.
pub const OUTSIDE_WINDOW: &str = "outside --since/--until";

/// The code an item that could not be read is refused with.
pub const UNREADABLE: &str = "Unreadable";

/// What the counting thread hears.
enum Heard {
    /// Item `seq` was read: it makes `uploads` uploads (or, on a dry run,
    /// would), and the run resumes at `position` once they are answered.
    Read {
        seq: u64,
        position: Option<String>,
        uploads: usize,
        not_found: u64,
        /// The item's date, when uploads of it were held back.
        held_back: Option<DateTime<Utc>>,
        read: Read,
    },
    /// A batch's answers.
    Sent(Vec<Planned>, Result<Vec<Outcome>, Fatal>),
    /// The reader ended: the people it did not find (by key, and the
    /// names they go by), and why it ended early, if it did.
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

/// Runs `source` once as `settings` say, finding people with `directory`
/// and sending with `sender`: what it did, and the error that stopped
/// it, if one did (the source cannot be read, the server refuses the
/// key).
pub fn run(
    source: &mut dyn Source,
    settings: &Settings,
    directory: &dyn Directory,
    sender: &Sender,
) -> (Tally, Option<anyhow::Error>) {
    let (mut cursor, start) = match cursor_of(source, settings) {
        Ok(found) => found,
        Err(e) => return (Tally::default(), Some(e)),
    };
    let mark = cursor.as_mut().map(|cursor| cursor as &mut dyn Mark);
    drive(source, settings, directory, sender, start.as_deref(), mark)
}

/// Runs `source` once from `start`, as a run with a cursor does, keeping
/// what it did with `mark` (none: a backfill, a dry run).
pub fn drive(
    source: &mut dyn Source,
    settings: &Settings,
    directory: &dyn Directory,
    sender: &Sender,
    start: Option<&str>,
    mark: Option<&mut dyn Mark>,
) -> (Tally, Option<anyhow::Error>) {
    let kind = source.kind();
    let progress = Progress::new(Shown {
        quiet: settings.quiet,
        dry_run: settings.dry_run,
        total: source.total(),
        every: settings.progress_every,
    });
    let senders = if settings.dry_run {
        0
    } else {
        settings.sending.concurrency()
    };
    let mut counter = Counter::new(mark, settings.dry_run);
    pipeline::run(
        sender,
        senders,
        Heard::Sent,
        |reading| {
            let mut people = People::new(settings.identities.clone(), directory);
            let reader = Reader::new(kind, &mut people, settings.sending.batch_size(), reading);
            let ended = reader.read(source, start, settings);
            reading.tell(Heard::Ended(
                people.not_found().clone(),
                people.names_not_found().clone(),
                ended.err(),
            ));
        },
        |message| {
            let went_on = counter.hear(message);
            progress.show(&counter.tally);
            went_on
        },
    );
    // What went past after the last batch is kept too.
    counter.save();
    progress.finish();
    (counter.tally, counter.stopped)
}

/// The cursor a run keeps (none on a backfill or a dry run) and where it
/// starts reading (the beginning on a backfill).
fn cursor_of(
    source: &dyn Source,
    settings: &Settings,
) -> anyhow::Result<(Option<Cursor>, Option<String>)> {
    let cursor = Cursor::of_source(settings.cursor_dir.as_deref(), source)?;
    if settings.window.is_bounded() {
        return Ok((None, None));
    }
    let start = cursor.load()?;
    Ok(((!settings.dry_run).then_some(cursor), start))
}

/// `found`, or, for an item outside `window`, what it is then: skipped.
/// The one place the window is checked; a source may use it to read less.
fn within(window: &Window, found: Found) -> Found {
    match found {
        Found::Item(item) if !window.contains(item.date) => Found::Skipped {
            reason: OUTSIDE_WINDOW,
            position: Some(item.position),
        },
        found => found,
    }
}

/// The problems listed in full; more are counted.
const PROBLEMS_LISTED: usize = 100;

/// How many items the mark may move past before its position is kept
/// when no batch is answered meanwhile.
const SAVE_EVERY: u32 = 500;

/// The caller's thread: counts what it hears and keeps the mark.
struct Counter<'m> {
    tally: Tally,
    pending: Pending,
    /// Where what is done is kept (none on a backfill or a dry run).
    mark: Option<&'m mut dyn Mark>,
    /// The position past what is done, not yet kept.
    unsaved: Option<String>,
    /// Items heard since the position was last kept.
    since_saved: u32,
    dry_run: bool,
    stopped: Option<anyhow::Error>,
}

impl<'m> Counter<'m> {
    fn new(mark: Option<&'m mut dyn Mark>, dry_run: bool) -> Self {
        Self {
            tally: Tally::default(),
            pending: Pending::default(),
            mark,
            unsaved: None,
            since_saved: 0,
            dry_run,
            stopped: None,
        }
    }

    /// Keeps what `keep` does with the mark; false when it failed (the
    /// run stops).
    fn keep(&mut self, keep: impl FnOnce(&mut dyn Mark) -> anyhow::Result<()>) -> bool {
        let Some(mark) = self.mark.as_deref_mut() else {
            return true;
        };
        match keep(mark) {
            Ok(()) => true,
            Err(e) => {
                self.stopped.get_or_insert(e);
                false
            }
        }
    }

    /// Counts `heard`; false when the run is to stop.
    fn hear(&mut self, heard: Heard) -> bool {
        let answered = matches!(heard, Heard::Sent(..) | Heard::Ended(..));
        match heard {
            Heard::Read {
                seq,
                position,
                uploads,
                not_found,
                held_back,
                read,
            } => {
                if let Some(at) = held_back {
                    self.held_back(at);
                }
                if !self.read(seq, position, uploads, not_found, read) {
                    return false;
                }
            }
            Heard::Sent(uploads, Ok(outcomes)) => {
                if !self.answered(&uploads, outcomes) {
                    return false;
                }
            }
            Heard::Sent(_, Err(Fatal(why))) => {
                self.stopped.get_or_insert_with(|| anyhow::anyhow!(why));
                return false;
            }
            Heard::Ended(not_found, names, error) => {
                for (who, n) in not_found {
                    *self.tally.people_not_found.entry(who).or_default() += n;
                }
                self.tally.names_not_found.extend(names);
                if let Some(e) = error {
                    self.stopped.get_or_insert(e);
                }
            }
        }
        self.advance(answered)
    }

    fn read(
        &mut self,
        seq: u64,
        position: Option<String>,
        uploads: usize,
        not_found: u64,
        read: Read,
    ) -> bool {
        self.tally.read += 1;
        self.tally.not_found += not_found;
        if self.dry_run {
            self.tally.sent += uploads as u64;
        } else if self.mark.is_some() {
            // Only a mark needs to know what is done; a backfill keeps
            // nothing per item.
            self.pending.planned(seq, position, uploads);
        }
        match read {
            Read::Item => true,
            Read::Skipped(reason) => {
                *self.tally.skipped.entry(reason).or_default() += 1;
                true
            }
            Read::Bad { origin, problem } => {
                *self.tally.refused.entry(UNREADABLE.to_owned()).or_default() += 1;
                self.note(format!("{origin}: {problem}"));
                self.keep(|mark| mark.unreadable(&origin, &problem))
            }
        }
    }

    /// Counts a batch's answers; false when the mark could not keep them.
    fn answered(&mut self, uploads: &[Planned], outcomes: Vec<Outcome>) -> bool {
        for (upload, outcome) in uploads.iter().zip(outcomes) {
            if !self.keep(|mark| mark.answered(upload, &outcome)) {
                return false;
            }
            self.tally.count(&outcome);
            match &outcome {
                Outcome::Sent | Outcome::Known => {}
                // Someone the server does not know (any more): not found,
                // as the directory would have said.
                Outcome::NotFound { .. } => {
                    let who = upload.email.clone();
                    *self.tally.people_not_found.entry(who).or_default() += 1;
                    let date = upload.body["action_date"].as_str();
                    if let Some(at) = date.and_then(|d| d.parse::<DateTime<Utc>>().ok()) {
                        self.held_back(at);
                    }
                }
                Outcome::Refused { code, problem } => {
                    self.note(format!("{}: {code}: {problem}", upload.origin));
                }
                Outcome::Failed { problem } => {
                    self.note(format!("{}: failed: {problem}", upload.origin));
                }
            }
            let failed = matches!(outcome, Outcome::Failed { .. });
            self.pending.answered(upload.seq, failed);
        }
        self.keep(|mark| mark.counted())
    }

    /// An item of `at` was held back for someone not found.
    fn held_back(&mut self, at: DateTime<Utc>) {
        let since = self.tally.held_back_since.get_or_insert(at);
        *since = (*since).min(at);
    }

    fn note(&mut self, problem: String) {
        if self.tally.problems.len() < PROBLEMS_LISTED {
            self.tally.problems.push(problem);
        }
    }

    /// Moves the mark past what is done; false when it cannot be kept.
    /// The position is kept once a batch is answered, the reader ended,
    /// or [`SAVE_EVERY`] items went past without either, so that a run of
    /// items that send nothing (skipped, not found) costs no write each.
    fn advance(&mut self, answered: bool) -> bool {
        if self.mark.is_none() {
            return true;
        }
        if let Some(position) = self.pending.advance() {
            self.unsaved = Some(position);
        }
        self.since_saved += 1;
        if answered || self.since_saved >= SAVE_EVERY {
            self.save()
        } else {
            true
        }
    }

    /// Keeps the position past what is done, if it moved since last kept.
    fn save(&mut self) -> bool {
        self.since_saved = 0;
        match self.unsaved.take() {
            Some(position) => self.keep(|mark| mark.passed(&position)),
            None => true,
        }
    }
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
        // Blocked, the mark moves no more: nothing is kept per item.
        if self.blocked {
            return;
        }
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
                self.items.clear();
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

/// The reader thread: items waiting for their people to be found, and
/// the batch being filled.
struct Reader<'a, 'p> {
    kind: &'static str,
    people: &'a mut People<'p>,
    batch_size: usize,
    reading: &'a Reading<'a, Vec<Planned>, Heard>,
    seq: u64,
    /// Read, their people not yet asked about.
    items: Vec<Found>,
    batch: Vec<Planned>,
}

impl<'a, 'p> Reader<'a, 'p> {
    fn new(
        kind: &'static str,
        people: &'a mut People<'p>,
        batch_size: usize,
        reading: &'a Reading<'a, Vec<Planned>, Heard>,
    ) -> Self {
        Self {
            kind,
            people,
            batch_size,
            reading,
            seq: 0,
            items: Vec::new(),
            batch: Vec::new(),
        }
    }

    fn read(
        mut self,
        source: &mut dyn Source,
        start: Option<&str>,
        settings: &Settings,
    ) -> anyhow::Result<()> {
        let mut failure = None;
        let mut taken = 0_u64;
        let window = &settings.window;
        let read = source.read(start, window, &mut |found| {
            if self.reading.stopping() || settings.most.is_some_and(|most| taken >= most) {
                return false;
            }
            taken += 1;
            self.items.push(within(window, found));
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
        if !self.batch.is_empty() {
            self.reading.send(std::mem::take(&mut self.batch));
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
            if !self.plan(found) {
                break;
            }
        }
        Ok(())
    }

    /// Tells the counter what `found` is and hands its uploads over;
    /// false once the run ends.
    fn plan(&mut self, found: Found) -> bool {
        let seq = self.seq;
        self.seq += 1;
        let mut held_back = None;
        let (position, uploads, not_found, read) = match found {
            Found::Item(item) => {
                let (uploads, not_found) = uploads(self.kind, &item, seq, self.people);
                held_back = (not_found > 0).then_some(item.date);
                (Some(item.position), uploads, not_found, Read::Item)
            }
            Found::Whole(found) => {
                let position = Some(found.position.clone());
                (position, vec![whole(found, seq)], 0, Read::Item)
            }
            Found::Skipped { reason, position } => (position, Vec::new(), 0, Read::Skipped(reason)),
            Found::Bad {
                origin,
                problem,
                position,
            } => (position, Vec::new(), 0, Read::Bad { origin, problem }),
        };
        let heard = Heard::Read {
            seq,
            position,
            uploads: uploads.len(),
            not_found,
            held_back,
            read,
        };
        if !self.reading.tell(heard) {
            return false;
        }
        if !self.reading.sends() {
            return true;
        }
        for upload in uploads {
            self.batch.push(upload);
            if self.batch.len() >= self.batch_size
                && !self.reading.send(std::mem::take(&mut self.batch))
            {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
