//! Group commit: the uploads of concurrent requests written together.
//!
//! Each upload is checked and its topics extracted on the caller's thread;
//! the actions are then handed to a writer thread (as many as the store
//! asks for, [`ExpertiseStore::upload_writers`]), which takes every action
//! waiting at that moment (up to [`MOST_PER_WRITE`]) and stores them with
//! one [`ExpertiseStore::record_all`]: one transaction and one sync to disk
//! for all of them. A caller is answered only after that write returned,
//! so an acknowledged upload is durable. Nothing waits for company: a
//! write starts as soon as the previous one ends, with whatever arrived
//! meanwhile, so a lone upload is written at once.

use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};

use kenning_domain::{Scoring, UserId};
use kenning_ports::{ExpertiseStore, NewAction, RecordError, StoreError};

/// The most actions one write stores, so that a backlog is written in
/// transactions of bounded size and time.
pub(crate) const MOST_PER_WRITE: usize = 1_000;

/// One answer per action, in the order given.
pub(crate) type Answers = Vec<Result<UserId, RecordError>>;

/// The actions of one caller and where their answers go.
struct Job {
    actions: Vec<NewAction>,
    reply: SyncSender<Result<Answers, StoreError>>,
}

/// The way to the writer threads.
#[derive(Clone)]
pub(crate) struct GroupCommit {
    writers: Arc<Writers>,
    store: Arc<dyn ExpertiseStore>,
    scoring: Arc<Scoring>,
}

/// The writer threads and their queue. Dropped with the last handle: the
/// queue closes, and the threads are waited for, so that nothing of the
/// store outlives its last user on another thread (a command may exit
/// right after).
struct Writers {
    /// `None` when no writer thread could be started: each caller then
    /// writes its own actions.
    jobs: Option<Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

impl Drop for Writers {
    fn drop(&mut self) {
        self.jobs = None;
        for thread in self.threads.drain(..) {
            // A writer that panicked has nothing left to finish.
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit")
            .field("writers", &self.writers.threads.len())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("actions", &self.actions.len())
            .finish_non_exhaustive()
    }
}

impl GroupCommit {
    /// Starts the writer threads of `store`; they end when the last clone
    /// of this handle is dropped.
    pub(crate) fn start(store: Arc<dyn ExpertiseStore>, scoring: Arc<Scoring>) -> Self {
        let (jobs, waiting) = mpsc::channel();
        let waiting = Arc::new(Mutex::new(waiting));
        let threads: Vec<JoinHandle<()>> = (0..store.upload_writers().max(1))
            .filter_map(|_| {
                let (store, scoring, waiting) = (store.clone(), scoring.clone(), waiting.clone());
                thread::Builder::new()
                    .name("kenning-ingest".to_owned())
                    .spawn(move || write_groups(store.as_ref(), &scoring, &waiting))
                    .ok()
            })
            .collect();
        Self {
            writers: Arc::new(Writers {
                jobs: (!threads.is_empty()).then_some(jobs),
                threads,
            }),
            store,
            scoring,
        }
    }

    /// Stores `actions` (see [`ExpertiseStore::record_all`]), together with
    /// those of concurrent callers; returns when they are durable.
    pub(crate) fn record(&self, actions: Vec<NewAction>) -> Result<Answers, StoreError> {
        if actions.is_empty() {
            return Ok(Vec::new());
        }
        let Some(jobs) = &self.writers.jobs else {
            return self.store.record_all(&actions, &self.scoring);
        };
        let (reply, answer) = mpsc::sync_channel(1);
        if let Err(mpsc::SendError(job)) = jobs.send(Job { actions, reply }) {
            // Every writer is gone (a panic): write here instead.
            return self.store.record_all(&job.actions, &self.scoring);
        }
        answer
            .recv()
            .map_err(|_| StoreError::backend_message("the upload writer stopped mid-write"))?
    }
}

/// A writer thread: each round takes every job waiting and writes them at
/// once. Writers take turns at the queue, so each round's jobs go to one
/// of them while the others write theirs.
fn write_groups(store: &dyn ExpertiseStore, scoring: &Scoring, waiting: &Mutex<Receiver<Job>>) {
    while let Some(group) = next_group(waiting) {
        write_group(store, scoring, group);
    }
}

/// The jobs waiting now, at least one (waited for); `None` once every
/// handle is gone.
fn next_group(waiting: &Mutex<Receiver<Job>>) -> Option<Vec<Job>> {
    // A writer that panicked holding the queue left it intact.
    let waiting = waiting.lock().unwrap_or_else(PoisonError::into_inner);
    let first = waiting.recv().ok()?;
    let mut count = first.actions.len();
    let mut group = vec![first];
    while count < MOST_PER_WRITE {
        match waiting.try_recv() {
            Ok(job) => {
                count += job.actions.len();
                group.push(job);
            }
            Err(_) => break,
        }
    }
    Some(group)
}

/// Writes the jobs of one round in one transaction. When that fails, each
/// job is written on its own, so that a failure (a PostgreSQL deadlock
/// with another instance, an action the database refuses) reaches only
/// the callers it concerns.
fn write_group(store: &dyn ExpertiseStore, scoring: &Scoring, group: Vec<Job>) {
    if group.len() > 1 {
        let actions: Vec<NewAction> = group
            .iter()
            .flat_map(|job| job.actions.iter().cloned())
            .collect();
        if let Ok(mut answers) = store.record_all(&actions, scoring) {
            for job in group.into_iter().rev() {
                let mine = answers.split_off(answers.len().saturating_sub(job.actions.len()));
                // A caller that went away needs no answer.
                let _ = job.reply.send(Ok(mine));
            }
            return;
        }
    }
    for job in group {
        let _ = job.reply.send(store.record_all(&job.actions, scoring));
    }
}
