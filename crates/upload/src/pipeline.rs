//! The threads of a run of the engine (`kenning upload`'s and `kenning
//! connect`'s): a reader, which fills batches and says what it read;
//! senders, each sending a batch at a time (with [`Sender`]'s retries);
//! and the caller's thread, which hears both, counts and keeps the
//! checkpoint or cursor. The reader may run ahead of the senders by one
//! batch per sender, no more, so memory stays bounded whatever the
//! input's size.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex};

use crate::send::{Batch, Fatal, Outcome, Sender};

/// How many messages the caller's thread may have yet to hear.
const HEARD_AHEAD: usize = 1024;

/// What the reader thread holds: where its batches go, and the line to
/// the caller's thread.
pub struct Reading<'a, B, H> {
    /// Where full batches go; none when nothing is sent (a dry run).
    batches: Option<SyncSender<B>>,
    heard: SyncSender<H>,
    stop: &'a AtomicBool,
}

impl<B, H> Reading<'_, B, H> {
    /// Whether the run is to stop: the reader ends at its next step.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether batches are sent (not on a dry run).
    pub fn sends(&self) -> bool {
        self.batches.is_some()
    }

    /// Hands `batch` to a sender, waiting while every sender is busy and
    /// a batch waits for each; false once no sender is left.
    pub fn send(&self, batch: B) -> bool {
        self.batches
            .as_ref()
            .is_none_or(|batches| batches.send(batch).is_ok())
    }

    /// Tells the caller's thread `heard`; false once it stopped hearing.
    pub fn tell(&self, heard: H) -> bool {
        self.heard.send(heard).is_ok()
    }
}

/// Runs `read` on a thread of its own and `senders` sender threads
/// (none: nothing is sent), each batch's outcomes made a message by
/// `answered`; every message goes to `hear` on the caller's thread, in
/// the order it comes, until reader and senders are done. `hear`
/// answering false stops the run: the reader and the senders end at
/// their next step.
pub fn run<B, H>(
    sender: &Sender,
    senders: usize,
    answered: impl Fn(B, Result<Vec<Outcome>, Fatal>) -> H + Sync,
    read: impl FnOnce(&Reading<'_, B, H>) + Send,
    mut hear: impl FnMut(H) -> bool,
) where
    B: Batch + Send,
    H: Send,
{
    let stop = AtomicBool::new(false);
    // The reader runs ahead of the caller's thread by so many messages at
    // most: an item that sends nothing waits on no batch.
    let (heard_tx, heard) = mpsc::sync_channel::<H>(HEARD_AHEAD);
    // Room for one batch per sender waiting.
    let (batches_tx, batches) = mpsc::sync_channel::<B>(senders.max(1));
    let batches = Arc::new(Mutex::new(batches));
    std::thread::scope(|s| {
        for _ in 0..senders {
            let (batches, heard_tx) = (batches.clone(), heard_tx.clone());
            let (stop, answered) = (&stop, &answered);
            s.spawn(move || {
                sender.send_each(&batches, stop, |batch, outcomes| {
                    heard_tx.send(answered(batch, outcomes)).is_ok()
                });
            });
        }
        // Once every sender has ended, a reader waiting to hand over a
        // batch is let go.
        drop(batches);
        let reading = Reading {
            batches: (senders > 0).then_some(batches_tx),
            heard: heard_tx,
            stop: &stop,
        };
        s.spawn(move || read(&reading));
        for message in heard {
            if !hear(message) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}
