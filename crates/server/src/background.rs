//! The server's background rounds: rebuilding standings built under other
//! settings, delivering webhooks, embedding the topics learned meanwhile,
//! and the housekeeping (the purge, the audit trail's and the sessions'
//! pruning, the retention), each on a thread or task of its own beside
//! the requests.

use std::time::Duration;

use actix_web::web;
use kenning_app::{
    AuditService, ExpertiseService, PrivacyService, SessionService, UserService, WebhookService,
};

/// Steps of [`kenning_app::RETENTION_BATCH`] actions the retention takes
/// at each round of the purge.
const RETENTION_STEPS: u32 = 100;

/// The services the housekeeping round calls.
pub(crate) struct Housekeeping {
    pub(crate) users: UserService,
    pub(crate) audit: AuditService,
    pub(crate) sessions: SessionService,
    pub(crate) privacy: PrivacyService,
    /// How many days the audit trail keeps an entry.
    pub(crate) audit_retention_days: u32,
}

/// Runs the housekeeping round every `interval` on the actix system, until
/// the handle is aborted: due users purged, old audit entries, ended
/// sessions and expired links pruned, expired actions forgotten.
pub(crate) fn housekeeping(
    chores: Housekeeping,
    interval: Duration,
) -> actix_web::rt::task::JoinHandle<()> {
    let Housekeeping {
        users,
        audit,
        sessions,
        privacy,
        audit_retention_days: retention,
    } = chores;
    actix_web::rt::spawn(async move {
        let mut ticks = actix_web::rt::time::interval(interval);
        loop {
            ticks.tick().await;
            let users = users.clone();
            housekeep(
                "purge",
                move || users.purge_due(),
                |n| format!("purge: anonymized {n} user(s)"),
            )
            .await;
            let audit = audit.clone();
            housekeep(
                "pruning the audit trail",
                move || audit.prune(retention),
                |n| {
                    format!(
                        "audit: pruned {n} entr{} older than {retention} days",
                        if n == 1 { "y" } else { "ies" }
                    )
                },
            )
            .await;
            let sessions = sessions.clone();
            housekeep(
                "pruning sessions",
                move || sessions.prune(),
                |n| format!("web: forgot {n} ended session(s) and expired link(s)"),
            )
            .await;
            let privacy = privacy.clone();
            let retain = move || {
                let forgotten = privacy.forget_expired(RETENTION_STEPS)?;
                privacy.prune_asked()?;
                Ok::<_, kenning_app::ServiceError>(forgotten)
            };
            housekeep("the retention", retain, |n| {
                format!("retention: forgot {n} action(s)")
            })
            .await;
        }
    })
}

/// Runs one chore of the housekeeping round off the server's threads:
/// logs what it did when it did anything (`done` words how many), and
/// logs its failure as `what` failed.
async fn housekeep<N, E>(
    what: &str,
    chore: impl FnOnce() -> Result<N, E> + Send + 'static,
    done: impl Fn(N) -> String,
) where
    N: Copy + PartialEq + From<u8> + Send + 'static,
    E: std::fmt::Debug + Send + 'static,
{
    match web::block(chore).await {
        Ok(Ok(n)) if n == N::from(0) => {}
        Ok(Ok(n)) => log::info!("{}", done(n)),
        Ok(Err(e)) => log::error!("{what} failed: {e:?}"),
        Err(e) => log::error!("{what} failed: {e}"),
    }
}

/// The webhook sender's thread, running until it is stopped.
pub(crate) struct Delivering {
    /// Dropped to stop the thread.
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Delivering {
    /// Stops the thread once its round is over (a delivery under way ends
    /// within its timeout) and waits for it, so that it is never inside
    /// the database driver when the process ends.
    pub(crate) fn stop(self) {
        drop(self.stop);
        if self.thread.join().is_err() {
            log::error!("the webhook sender ended in a panic");
        }
    }
}

/// Delivers webhooks on a thread of its own until stopped: a round after
/// another while there is work, a pause of `interval` when a round found
/// none or failed.
pub(crate) fn deliver(webhooks: WebhookService, interval: Duration) -> std::io::Result<Delivering> {
    use std::sync::mpsc::{channel, RecvTimeoutError, TryRecvError};
    let (stop, stopped) = channel::<()>();
    let thread = std::thread::Builder::new()
        .name("webhook-sender".to_owned())
        .spawn(move || loop {
            let busy = match webhooks.deliver_due() {
                Ok(round) => round.delivered + round.failed > 0,
                Err(e) => {
                    log::error!("delivering webhooks failed: {}", e.log_message());
                    false
                }
            };
            let go_on = if busy {
                matches!(stopped.try_recv(), Err(TryRecvError::Empty))
            } else {
                matches!(
                    stopped.recv_timeout(interval),
                    Err(RecvTimeoutError::Timeout)
                )
            };
            if !go_on {
                return;
            }
        })?;
    Ok(Delivering { stop, thread })
}

/// Rebuilds the standings on a thread of its own, logging how long it
/// took when the settings had changed. A failure is logged, and the next
/// start tries again, as the settings are recorded only at the end.
pub(crate) fn rebuild(expertise: ExpertiseService) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("standings-rebuild".to_owned())
        .spawn(move || {
            let started = std::time::Instant::now();
            match expertise.rebuild_standings() {
                Ok(false) => {}
                Ok(true) => log::info!(
                    "standings rebuilt under the scoring settings in {:.1} s",
                    started.elapsed().as_secs_f64()
                ),
                Err(e) => log::error!(
                    "standings rebuild failed (it starts again at the next start): {}",
                    e.log_message()
                ),
            }
        })
        .map(|_| ())
}

/// Embeds the learned topics on a thread of its own, at start and then
/// every `interval` (at once again when a refresh took longer), so that
/// queries reach the topics learned meanwhile by their meaning. A failure
/// is logged and tried again.
pub(crate) fn refresh_meanings(
    expertise: ExpertiseService,
    interval: Duration,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("meaning-index".to_owned())
        .spawn(move || {
            let mut first = true;
            loop {
                let started = std::time::Instant::now();
                match expertise.refresh_meanings() {
                    Ok(Some(topics)) if first => log::info!(
                        "meaning: {topics} learned topics indexed in {:.1} s",
                        started.elapsed().as_secs_f64()
                    ),
                    Ok(_) => {}
                    Err(e) => log::error!("meaning: indexing failed: {}", e.log_message()),
                }
                first = false;
                // Every `interval` from the start of the last refresh, so
                // that a slow refresh does not add its time to the wait.
                std::thread::sleep(interval.saturating_sub(started.elapsed()));
            }
        })
        .map(|_| ())
}
