//! How a database's pools open and close their connections: on r2d2's
//! background threads for a server, on the process's one connection
//! thread, and only on demand, for a short-lived command.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use r2d2::Pool;
use scheduled_thread_pool::ScheduledThreadPool;

use crate::connection::Manager;

/// How long a caller waits for a free pooled connection.
pub(crate) const POOL_TIMEOUT: Duration = Duration::from_secs(10);

/// How a pool may use its background threads.
///
/// r2d2 opens every connection on its own threads. A pool that keeps idle
/// connections ready starts opening one as soon as a caller takes the last,
/// whether or not anyone will need it. A process that ends meanwhile runs
/// libpq's and OpenSSL's exit handlers under that thread, which then
/// crashes the process: a command that did its work exits with a
/// segmentation fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// For a server: one idle connection is kept ready, and connections
    /// that idled or lived long are closed in the background.
    Background,
    /// For a short-lived command: a connection is opened only while a
    /// caller waits for it, and closed only when the pool is dropped, by
    /// the thread that drops it. Once the caller has its connection no
    /// pool thread is inside the database driver, and dropping the
    /// `Database` waits until the connection thread (one per process,
    /// shared by such pools and never stopped) has let go of the pool, so
    /// the process can exit.
    OnDemand,
}

impl Pooling {
    /// A pool builder; an [`Pooling::OnDemand`] pool opens its connections
    /// on `connector`'s thread.
    pub(crate) fn builder(
        self,
        max_size: u32,
        connector: Option<&Connector>,
    ) -> r2d2::Builder<Manager> {
        let builder = Pool::builder()
            .max_size(max_size)
            .connection_timeout(POOL_TIMEOUT);
        let builder = match connector {
            Some(connector) => builder.thread_pool(connector.0.clone()),
            None => builder,
        };
        match self {
            Pooling::Background => builder.min_idle(Some(1)),
            // No idle minimum (r2d2's default is the pool's size) and no
            // reaper: nothing for the threads to do unless asked.
            Pooling::OnDemand => builder
                .min_idle(Some(0))
                .idle_timeout(None)
                .max_lifetime(None),
        }
    }
}

/// The thread [`Pooling::OnDemand`] pools open connections on.
#[derive(Clone)]
pub(crate) struct Connector(Arc<ScheduledThreadPool>);

impl Connector {
    /// The process's one connection thread, shared by its on-demand
    /// pools. It lives as long as the process and is never stopped: a
    /// thread that ends runs its thread-local destructors, the TLS
    /// library's among them, and one ending while the process exits
    /// races that library's exit handlers over the same state (seen as
    /// rare heap corruption at the end of a command on PostgreSQL, which
    /// connects over TLS). An idle thread at exit is simply gone.
    pub(crate) fn shared() -> Self {
        static SHARED: LazyLock<Arc<ScheduledThreadPool>> = LazyLock::new(|| {
            Arc::new(
                ScheduledThreadPool::builder()
                    .num_threads(1)
                    .thread_name_pattern("kenning-connect-{}")
                    .build(),
            )
        });
        Self(Arc::clone(&SHARED))
    }

    /// Gives the thread a last job and waits (up to [`POOL_TIMEOUT`]) until
    /// it is done: the thread then no longer holds any pool.
    pub(crate) fn finish(&self) {
        let (done, finished) = std::sync::mpsc::channel();
        self.0.execute(move || {
            let _ = done.send(());
        });
        if finished.recv_timeout(POOL_TIMEOUT).is_err() {
            log::warn!("the pool's connection thread did not finish in time");
        }
    }
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Connector")
    }
}
