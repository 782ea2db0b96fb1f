//! Group commit: the writes of concurrent requests stored together.
//!
//! Each request does its own work (checks, topic extraction) on its own
//! thread, then hands what it writes to a writer thread (as many as the
//! store asks for), which takes everything waiting at that moment (up to
//! [`MOST_PER_WRITE`] items) and stores it with one call of the store's
//! write of many ([`ExpertiseStore::record_all`] for uploads,
//! [`UserRepository::insert_all`] for new users): one transaction and one
//! sync to disk for all of them. A caller is answered only after that
//! write returned, so an acknowledged write is durable. Nothing waits for
//! company: a write starts as soon as the previous one ends, with whatever
//! arrived meanwhile, so a lone request is written at once.
//!
//! [`ExpertiseStore::record_all`]: kenning_ports::ExpertiseStore::record_all
//! [`UserRepository::insert_all`]: kenning_ports::UserRepository::insert_all

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};

use kenning_ports::StoreError;

/// The most items one write stores, so that a backlog is written in
/// transactions of bounded size and time.
pub(crate) const MOST_PER_WRITE: usize = 1_000;

/// A store's write of many items: one answer per item, in their order, all
/// durable when it returns; `Err` when none was stored.
pub(crate) type WriteAll<T, A> = dyn Fn(&[T]) -> Result<Vec<A>, StoreError> + Send + Sync;

/// Where the answers of one job come from.
type Answer<A> = mpsc::Receiver<Result<Vec<A>, StoreError>>;

/// The items of one caller and where their answers go.
struct Job<T, A> {
    items: Vec<T>,
    reply: SyncSender<Result<Vec<A>, StoreError>>,
}

/// The way to the writer threads.
pub(crate) struct GroupCommit<T, A> {
    writers: Arc<Writers<T, A>>,
    write: Arc<WriteAll<T, A>>,
}

impl<T, A> Clone for GroupCommit<T, A> {
    fn clone(&self) -> Self {
        Self {
            writers: self.writers.clone(),
            write: self.write.clone(),
        }
    }
}

/// The writer threads and their queue. Dropped with the last handle: the
/// queue closes, and the threads are waited for, so that nothing of the
/// store outlives its last user on another thread (a command may exit
/// right after).
struct Writers<T, A> {
    /// `None` when no writer thread could be started: each caller then
    /// writes its own items.
    jobs: Option<Sender<Job<T, A>>>,
    threads: Vec<JoinHandle<()>>,
}

impl<T, A> Drop for Writers<T, A> {
    fn drop(&mut self) {
        self.jobs = None;
        for thread in self.threads.drain(..) {
            // A writer that panicked has nothing left to finish.
            let _ = thread.join();
        }
    }
}

impl<T, A> std::fmt::Debug for GroupCommit<T, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit")
            .field("writers", &self.writers.threads.len())
            .finish_non_exhaustive()
    }
}

impl<T: Clone + Send + 'static, A: Send + 'static> GroupCommit<T, A> {
    /// Starts `writers` threads (at least one) writing with `write`; they
    /// end when the last clone of this handle is dropped.
    pub(crate) fn start(name: &str, writers: usize, write: Arc<WriteAll<T, A>>) -> Self {
        let (jobs, waiting) = mpsc::channel();
        let queue = Arc::new(Queue {
            waiting: Mutex::new(waiting),
            idle: AtomicUsize::new(0),
        });
        let threads: Vec<JoinHandle<()>> = (0..writers.max(1))
            .filter_map(|_| {
                let (write, queue) = (write.clone(), queue.clone());
                thread::Builder::new()
                    .name(name.to_owned())
                    .spawn(move || write_groups(write.as_ref(), &queue))
                    .ok()
            })
            .collect();
        // Every writer started is idle until the first job, which cannot
        // come before this returns.
        queue.idle.store(threads.len(), Ordering::SeqCst);
        Self {
            writers: Arc::new(Writers {
                jobs: (!threads.is_empty()).then_some(jobs),
                threads,
            }),
            write,
        }
    }

    /// Stores `items`, together with those of concurrent callers; returns
    /// one answer per item when they are durable.
    pub(crate) fn write(&self, items: Vec<T>) -> Result<Vec<A>, StoreError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        self.write_parts(vec![items])
            .pop()
            .unwrap_or_else(|| Err(StoreError::backend_message("a write was not answered")))
    }

    /// The writer threads' count: how many jobs are written at once.
    pub(crate) fn writers(&self) -> usize {
        self.writers.threads.len().max(1)
    }

    /// Stores each of `parts` as a job of its own, so that the writers
    /// write them at once, each with the items of concurrent callers;
    /// returns each part's answers, in the order of `parts`, when all are
    /// durable. A part that failed fails alone: the others are written.
    pub(crate) fn write_parts(&self, parts: Vec<Vec<T>>) -> Vec<Result<Vec<A>, StoreError>> {
        let Some(jobs) = &self.writers.jobs else {
            return parts.iter().map(|items| (self.write)(items)).collect();
        };
        let sent: Vec<Result<Answer<A>, Vec<T>>> = parts
            .into_iter()
            .map(|items| {
                let (reply, answer) = mpsc::sync_channel(1);
                match jobs.send(Job { items, reply }) {
                    Ok(()) => Ok(answer),
                    Err(mpsc::SendError(job)) => Err(job.items),
                }
            })
            .collect();
        sent.into_iter()
            .map(|sent| match sent {
                Ok(answer) => answer
                    .recv()
                    .map_err(|_| StoreError::backend_message("a writer stopped mid-write"))?,
                // Every writer is gone (a panic): write here instead.
                Err(items) => (self.write)(&items),
            })
            .collect()
    }
}

/// A group holding this many items leaves the jobs still waiting to a
/// writer that is idle, if one is, so that a caller's parts
/// ([`GroupCommit::write_parts`]) and a burst of requests are written by
/// several writers at once rather than by one after another.
pub(crate) const SPREAD_FROM: usize = 16;

/// The queue the writers share and how many of them are idle.
struct Queue<T, A> {
    waiting: Mutex<Receiver<Job<T, A>>>,
    idle: AtomicUsize,
}

/// A writer thread: each round takes the jobs waiting and writes them at
/// once. Writers take turns at the queue, so each round's jobs go to one
/// of them while the others write theirs.
fn write_groups<T: Clone, A>(write: &WriteAll<T, A>, queue: &Queue<T, A>) {
    while let Some(group) = next_group(queue) {
        write_group(write, group);
        queue.idle.fetch_add(1, Ordering::SeqCst);
    }
}

/// The jobs waiting now, at least one (waited for): all of them, up to
/// [`MOST_PER_WRITE`] items, or, while another writer is idle, those
/// taken until the group holds [`SPREAD_FROM`] items. `None` once every
/// handle is gone. The writer counts as busy from its first job on.
fn next_group<T, A>(queue: &Queue<T, A>) -> Option<Vec<Job<T, A>>> {
    // A writer that panicked holding the queue left it intact.
    let waiting = queue.waiting.lock().unwrap_or_else(PoisonError::into_inner);
    let first = waiting.recv().ok()?;
    queue.idle.fetch_sub(1, Ordering::SeqCst);
    let mut count = first.items.len();
    let mut group = vec![first];
    while count < MOST_PER_WRITE {
        if count >= SPREAD_FROM && queue.idle.load(Ordering::SeqCst) > 0 {
            break;
        }
        match waiting.try_recv() {
            Ok(job) => {
                count += job.items.len();
                group.push(job);
            }
            Err(_) => break,
        }
    }
    Some(group)
}

/// Writes the jobs of one round in one transaction. When that fails, each
/// job is written on its own, so that a failure (a PostgreSQL deadlock
/// with another instance, an item the database refuses) reaches only the
/// callers it concerns.
fn write_group<T: Clone, A>(write: &WriteAll<T, A>, group: Vec<Job<T, A>>) {
    if group.len() > 1 {
        let items: Vec<T> = group
            .iter()
            .flat_map(|job| job.items.iter().cloned())
            .collect();
        match write(&items) {
            Ok(mut answers) if answers.len() == items.len() => {
                for job in group.into_iter().rev() {
                    let mine = answers.split_off(answers.len() - job.items.len());
                    // A caller that went away needs no answer.
                    let _ = job.reply.send(Ok(mine));
                }
                return;
            }
            // Written, but not answered item by item: writing again would
            // write twice.
            Ok(_) => {
                for job in group {
                    let _ = job.reply.send(Err(StoreError::backend_message(
                        "the store answered another number of items than it was given",
                    )));
                }
                return;
            }
            Err(_) => {}
        }
    }
    for job in group {
        let _ = job.reply.send(write(&job.items));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::Duration;

    use super::*;

    /// A write that takes a while, notes the thread that made it, and
    /// fails a group holding a negative item.
    fn slow_write(threads: Arc<Mutex<HashSet<thread::ThreadId>>>) -> Arc<WriteAll<i64, i64>> {
        Arc::new(move |items: &[i64]| {
            thread::sleep(Duration::from_millis(30));
            threads
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(thread::current().id());
            if items.iter().any(|i| *i < 0) {
                return Err(StoreError::backend_message("refused"));
            }
            Ok(items.iter().map(|i| i * 10).collect())
        })
    }

    #[test]
    fn parts_are_written_by_several_writers_and_answered_in_order() {
        let threads = Arc::new(Mutex::new(HashSet::new()));
        let commit = GroupCommit::start("test-writer", 4, slow_write(threads.clone()));
        assert_eq!(commit.writers(), 4);
        let parts: Vec<Vec<i64>> = (0..4)
            .map(|p| (0..SPREAD_FROM as i64).map(|i| p * 100 + i).collect())
            .collect();
        let answers = commit.write_parts(parts.clone());
        for (part, answer) in parts.iter().zip(answers) {
            let want: Vec<i64> = part.iter().map(|i| i * 10).collect();
            assert_eq!(answer, Ok(want));
        }
        let writers = threads.lock().unwrap_or_else(PoisonError::into_inner).len();
        assert!(writers > 1, "all parts written by one writer");
    }

    #[test]
    fn a_part_that_fails_fails_alone() {
        let threads = Arc::new(Mutex::new(HashSet::new()));
        let commit = GroupCommit::start("test-writer", 2, slow_write(threads));
        let mut bad: Vec<i64> = (0..SPREAD_FROM as i64).collect();
        bad[3] = -1;
        let good: Vec<i64> = (0..SPREAD_FROM as i64).collect();
        let answers = commit.write_parts(vec![bad, good.clone()]);
        assert!(answers[0].is_err());
        assert_eq!(
            answers[1],
            Ok(good.iter().map(|i| i * 10).collect::<Vec<_>>())
        );
    }
}
