//! SQLite's checkpoints, made beside the writers.
//!
//! In WAL mode a commit appends the pages it changed to the log, and a
//! checkpoint copies them into the database file. By SQLite's default the
//! connection whose commit takes the log past 1,000 pages makes the
//! checkpoint itself, before its caller is answered: on the upload writer,
//! whose commits change thousands of pages, that was a checkpoint after
//! nearly every commit, a fifth of the single endpoint's rate
//! (docs/performance.md, "The ceiling of this machine, and what was built
//! against it").
//!
//! Here a thread of the store makes them: every [`IDLE`] it runs a
//! `PASSIVE` checkpoint, which copies what no reader still needs and never
//! waits for a reader or a writer. The connections keep SQLite's own rule
//! as a bound, at [`WAL_BOUND_PAGES`](crate::connection::WAL_BOUND_PAGES):
//! should the thread fall behind, the writer checkpoints as before and the
//! log grows no further. Durability does not change: a commit is synced
//! to the log before it is acknowledged, whoever copies it later.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use diesel::connection::SimpleConnection;

use crate::connection::{establish, DbConnection};
use crate::location::Location;

/// How long the thread sleeps between checkpoints. Waking it after each
/// commit instead was measured slower: a checkpoint after every commit
/// copies a page that several commits change once for each of them, and
/// syncs the database file as often.
const IDLE: Duration = Duration::from_millis(100);

/// The checkpoint thread of one SQLite database; stopped and waited for
/// when dropped.
pub(crate) struct Checkpoints {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoints")
            .field("running", &self.thread.is_some())
            .finish()
    }
}

impl Checkpoints {
    /// Starts the thread for the SQLite database at `location`. When it
    /// cannot start, the connections' own bound still checkpoints the log.
    pub(crate) fn start(location: &Location) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stop, location) = (stop.clone(), location.clone());
            thread::Builder::new()
                .name("kenning-checkpoints".to_owned())
                .spawn(move || checkpoint_until(&location, &stop))
                .map_err(|e| log::warn!("SQLite checkpoints stay with the writers: {e}"))
                .ok()
        };
        Self { stop, thread }
    }
}

impl Drop for Checkpoints {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            // A thread that panicked has nothing left to do.
            let _ = thread.join();
        }
    }
}

/// The thread: a `PASSIVE` checkpoint every [`IDLE`], on a connection of
/// its own (opened again after a failure), until `stop`.
fn checkpoint_until(location: &Location, stop: &AtomicBool) {
    let mut conn: Option<DbConnection> = None;
    while !stop.load(Ordering::SeqCst) {
        thread::park_timeout(IDLE);
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if conn.is_none() {
            conn = establish(location)
                .map_err(|e| log::debug!("checkpoint connection: {e}"))
                .ok();
        }
        if let Some(open) = conn.as_mut() {
            // A checkpoint that another one keeps from running says so in
            // its row, not as an error: an error opens a new connection
            // next time.
            if let Err(e) = open.batch_execute("PRAGMA wal_checkpoint(PASSIVE)") {
                log::debug!("checkpoint: {e}");
                conn = None;
            }
        }
    }
}
