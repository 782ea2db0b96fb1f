//! Batched writes (a group commit, in a database's words): the writes of
//! concurrent requests stored together.
//!
//! Each request does its own work (checks, topic extraction) on its own
//! thread, then hands what it writes to a writer thread (as many as the
//! store asks for), which takes everything waiting for it at that moment
//! (up to [`MOST_PER_WRITE`] items) and stores it with one call of the
//! store's write of many ([`ExpertiseStore::record_all`] for uploads,
//! [`UserStore::insert_all`] for new users): one transaction and one
//! sync to disk for all of them. A caller is answered only after that
//! write returned, so an acknowledged write is durable. Nothing waits for
//! company: a write starts as soon as the previous one ends, with whatever
//! arrived meanwhile, so a lone request is written at once.
//!
//! A job is either for any writer, or for the writer of its lane: jobs of
//! one lane are written by one writer, one after another, never by two at
//! once. Uploads take the lane of their person, so that two writers never
//! hold the same person's row (each would wait for the other's commit).
//!
//! [`ExpertiseStore::record_all`]: kenning_ports::ExpertiseStore::record_all
//! [`UserStore::insert_all`]: kenning_ports::UserStore::insert_all

use std::collections::VecDeque;
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
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

/// Which writer writes a part ([`WriteBatcher::write_parts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Whichever writer takes it first.
    Any,
    /// The writer of this lane (a number taken modulo the writers' count).
    Of(usize),
}

/// The way to the writer threads, which start with the first write (a
/// service configured before its first use starts no thread it replaces).
pub(crate) struct WriteBatcher<T, A> {
    writers: Arc<OnceLock<Writers<T, A>>>,
    /// How many writer threads to start, and their name.
    count: usize,
    name: Arc<str>,
    write: Arc<WriteAll<T, A>>,
}

impl<T, A> Clone for WriteBatcher<T, A> {
    fn clone(&self) -> Self {
        Self {
            writers: self.writers.clone(),
            count: self.count,
            name: self.name.clone(),
            write: self.write.clone(),
        }
    }
}

/// The writer threads and their queue. Dropped with the last handle: the
/// queue closes, and the threads are waited for, so that nothing of the
/// store outlives its last user on another thread (a command may exit
/// right after).
struct Writers<T, A> {
    queue: Arc<Queue<T, A>>,
    /// Empty when no writer thread could be started: each caller then
    /// writes its own items.
    threads: Vec<JoinHandle<()>>,
}

impl<T, A> Drop for Writers<T, A> {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.arrived.notify_all();
        for thread in self.threads.drain(..) {
            // A writer that panicked has nothing left to finish.
            let _ = thread.join();
        }
    }
}

impl<T, A> std::fmt::Debug for WriteBatcher<T, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteBatcher")
            .field("writers", &self.count)
            .finish_non_exhaustive()
    }
}

impl<T: Clone + Send + 'static, A: Send + 'static> WriteBatcher<T, A> {
    /// The way to `writers` threads (at least one) writing with `write`,
    /// started by the first write; they end when the last clone of this
    /// handle is dropped.
    pub(crate) fn new(name: &str, writers: usize, write: Arc<WriteAll<T, A>>) -> Self {
        Self {
            writers: Arc::new(OnceLock::new()),
            count: writers.max(1),
            name: Arc::from(name),
            write,
        }
    }

    /// The writer threads, started if they were not.
    fn started(&self) -> &Writers<T, A> {
        self.writers.get_or_init(|| self.start())
    }

    /// Starts the writer threads.
    fn start(&self) -> Writers<T, A> {
        let count = self.count;
        let queue = Arc::new(Queue {
            waiting: Mutex::new(Waiting {
                any: VecDeque::new(),
                lanes: (0..count).map(|_| VecDeque::new()).collect(),
                // Every writer is idle until the first job.
                idle: count,
                closed: false,
            }),
            arrived: Condvar::new(),
        });
        let threads: Vec<JoinHandle<()>> = (0..count)
            .filter_map(|lane| {
                let (write, queue) = (self.write.clone(), queue.clone());
                thread::Builder::new()
                    .name(self.name.to_string())
                    .spawn(move || write_groups(write.as_ref(), &queue, lane))
                    .ok()
            })
            .collect();
        if threads.len() < count {
            // A lane whose writer did not start would never be written:
            // the callers write their own items instead.
            queue.lock().closed = true;
            queue.arrived.notify_all();
        }
        Writers { queue, threads }
    }

    /// Stores `items`, together with those of concurrent callers; returns
    /// one answer per item when they are durable.
    pub(crate) fn write(&self, items: Vec<T>) -> Result<Vec<A>, StoreError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        self.write_parts(vec![(Lane::Any, items)])
            .pop()
            .unwrap_or_else(|| Err(StoreError::backend_message("a write was not answered")))
    }

    /// The writer threads' count: how many jobs are written at once.
    pub(crate) fn writers(&self) -> usize {
        self.count
    }

    /// Stores each of `parts` as a job of its own, by the writer of its
    /// lane, so that the writers write them at once, each with the items
    /// of concurrent callers; returns each part's answers, in the order of
    /// `parts`, when all are durable. A part that failed fails alone: the
    /// others are written.
    pub(crate) fn write_parts(
        &self,
        parts: Vec<(Lane, Vec<T>)>,
    ) -> Vec<Result<Vec<A>, StoreError>> {
        let queue = &self.started().queue;
        let sent: Vec<Result<Answer<A>, Vec<T>>> = parts
            .into_iter()
            .map(|(lane, items)| {
                let (reply, answer) = mpsc::sync_channel(1);
                queue
                    .send(lane, Job { items, reply })
                    .map(|()| answer)
                    .map_err(|job| job.items)
            })
            .collect();
        queue.arrived.notify_all();
        sent.into_iter()
            .map(|sent| match sent {
                Ok(answer) => answer
                    .recv()
                    .map_err(|_| StoreError::backend_message("a writer stopped mid-write"))?,
                // No writer takes jobs (none started, or the handle is
                // going): write here instead.
                Err(items) => (self.write)(&items),
            })
            .collect()
    }
}

/// A group holding this many items leaves the jobs for any writer still
/// waiting to a writer that is idle, if one is, so that a burst of
/// requests is written by several writers at once rather than by one
/// after another.
pub(crate) const SPREAD_FROM: usize = 16;

/// The jobs waiting, by lane, and the writers' state.
struct Waiting<T, A> {
    /// Jobs for any writer.
    any: VecDeque<Job<T, A>>,
    /// Jobs for the writer of each lane.
    lanes: Vec<VecDeque<Job<T, A>>>,
    /// How many writers wait for a job.
    idle: usize,
    /// No job is taken any more: the writers finish what they hold.
    closed: bool,
}

/// The queue the writers share, and the signal that a job arrived.
struct Queue<T, A> {
    waiting: Mutex<Waiting<T, A>>,
    arrived: Condvar,
}

impl<T, A> Queue<T, A> {
    fn lock(&self) -> MutexGuard<'_, Waiting<T, A>> {
        // A writer that panicked holding the queue left it intact.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `job` for `lane`; gives it back when the queue is closed.
    /// The caller wakes the writers.
    fn send(&self, lane: Lane, job: Job<T, A>) -> Result<(), Job<T, A>> {
        let mut waiting = self.lock();
        if waiting.closed {
            return Err(job);
        }
        match lane {
            Lane::Any => waiting.any.push_back(job),
            Lane::Of(lane) => {
                let count = waiting.lanes.len();
                waiting.lanes[lane % count].push_back(job);
            }
        }
        Ok(())
    }
}

/// A writer thread: each round takes the jobs waiting for it and writes
/// them at once.
fn write_groups<T: Clone, A>(write: &WriteAll<T, A>, queue: &Queue<T, A>, lane: usize) {
    while let Some(group) = next_group(queue, lane) {
        write_group(write, group);
        queue.lock().idle += 1;
    }
}

/// The jobs waiting for the writer of `lane` now, at least one (waited
/// for): those of its lane, then those for any writer, up to
/// [`MOST_PER_WRITE`] items; of the latter, while another writer is idle,
/// only those taken until the group holds [`SPREAD_FROM`] items. `None`
/// once the queue is closed and nothing is left for this writer. The
/// writer counts as busy from its first job on.
fn next_group<T, A>(queue: &Queue<T, A>, lane: usize) -> Option<Vec<Job<T, A>>> {
    let mut waiting = queue.lock();
    while waiting.lanes[lane].is_empty() && waiting.any.is_empty() {
        if waiting.closed {
            return None;
        }
        waiting = queue
            .arrived
            .wait(waiting)
            .unwrap_or_else(PoisonError::into_inner);
    }
    waiting.idle -= 1;
    let mut count = 0;
    let mut group = Vec::new();
    while count < MOST_PER_WRITE {
        let Some(job) = waiting.lanes[lane].pop_front() else {
            break;
        };
        count += job.items.len();
        group.push(job);
    }
    while count < MOST_PER_WRITE {
        if !group.is_empty() && count >= SPREAD_FROM && waiting.idle > 0 {
            break;
        }
        let Some(job) = waiting.any.pop_front() else {
            break;
        };
        count += job.items.len();
        group.push(job);
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
        let commit = WriteBatcher::new("test-writer", 4, slow_write(threads.clone()));
        assert_eq!(commit.writers(), 4);
        let parts: Vec<Vec<i64>> = (0..4)
            .map(|p| (0..SPREAD_FROM as i64).map(|i| p * 100 + i).collect())
            .collect();
        let answers = commit.write_parts(parts.iter().map(|p| (Lane::Any, p.clone())).collect());
        for (part, answer) in parts.iter().zip(answers) {
            let want: Vec<i64> = part.iter().map(|i| i * 10).collect();
            assert_eq!(answer, Ok(want));
        }
        let writers = threads.lock().unwrap_or_else(PoisonError::into_inner).len();
        assert!(writers > 1, "all parts written by one writer");
    }

    #[test]
    fn jobs_of_one_lane_are_written_by_one_writer_one_after_another() {
        let threads = Arc::new(Mutex::new(HashSet::new()));
        let commit = WriteBatcher::new("test-writer", 4, slow_write(threads.clone()));
        let callers: Vec<_> = (0..8_i64)
            .map(|c| {
                let commit = commit.clone();
                thread::spawn(move || {
                    let items: Vec<i64> = (0..SPREAD_FROM as i64).map(|i| c * 100 + i).collect();
                    let answer = commit.write_parts(vec![(Lane::Of(6), items.clone())]);
                    (items, answer)
                })
            })
            .collect();
        for caller in callers {
            let (items, mut answer) = caller.join().expect("caller");
            let want: Vec<i64> = items.iter().map(|i| i * 10).collect();
            assert_eq!(answer.pop(), Some(Ok(want)));
        }
        let writers = threads.lock().unwrap_or_else(PoisonError::into_inner).len();
        assert_eq!(writers, 1, "lane 6 of 4 is one writer's");
    }

    #[test]
    fn a_part_that_fails_fails_alone() {
        let threads = Arc::new(Mutex::new(HashSet::new()));
        let commit = WriteBatcher::new("test-writer", 2, slow_write(threads));
        let mut bad: Vec<i64> = (0..SPREAD_FROM as i64).collect();
        bad[3] = -1;
        let good: Vec<i64> = (0..SPREAD_FROM as i64).collect();
        let answers = commit.write_parts(vec![(Lane::Of(0), bad), (Lane::Of(1), good.clone())]);
        assert!(answers[0].is_err());
        assert_eq!(
            answers[1],
            Ok(good.iter().map(|i| i * 10).collect::<Vec<_>>())
        );
    }
}
