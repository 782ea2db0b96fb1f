//! IMAP mailboxes: each account's sent folders, read-only, over TLS.
//!
//! An account is one source. Its mailboxes are those `--mailbox` names,
//! else the one the server marks `\Sent` (RFC 6154), else `Sent`. Each
//! is opened with EXAMINE (nothing is marked seen), searched for the UIDs
//! after the last one handled, and fetched in batches, each message
//! handed on as it arrives. The cursor is, per mailbox, its UIDVALIDITY
//! and the last UID handled: when the server renumbers a mailbox (a new
//! UIDVALIDITY), it is read again from its start, every message already
//! sent a duplicate by its Message-ID.
//!
//! An administrator reads several people's mailboxes through the
//! server's master-user login (Dovecot's `auth_master_user_separator`):
//! each `--imap-user` is logged in as `USER*MASTER` with the master's
//! password.

mod client;
mod syntax;
mod tls;
mod wire;

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Context as _;
use chrono::{Days, Utc};
use rustls::ClientConfig;

use super::super::source::{Found, Source, Window};
use crate::connect::mail::message::{judge_in_turn, Place, Rules, Senders};
use syntax::{mailbox_name, readable_mailbox};
pub use tls::tls_config;
use wire::Connection;

/// Messages fetched per UID FETCH.
const FETCHED_AT_ONCE: usize = 50;
/// The sent folder of a server that marks none.
const DEFAULT_SENT: &str = "Sent";

/// A server and how to log in to it.
#[derive(Clone)]
pub struct Server {
    pub host: String,
    pub port: u16,
    /// Plain connection upgraded with STARTTLS (else TLS from the start).
    pub starttls: bool,
    pub tls: Arc<ClientConfig>,
    /// The password (the master user's, with `master`).
    pub password: String,
    /// The master user, for an administrator's access to others' mail.
    pub master: Option<String>,
    /// What joins a user and the master user in a login.
    pub master_separator: String,
    /// The mailboxes read (names as people read them); none: the sent
    /// folder.
    pub mailboxes: Vec<String>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("starttls", &self.starttls)
            .field("master", &self.master)
            .field("mailboxes", &self.mailboxes)
            .finish_non_exhaustive()
    }
}

/// One account's sent mail on a server.
#[derive(Debug)]
pub struct Account {
    server: Arc<Server>,
    user: String,
    rules: Rules,
}

impl Account {
    /// The account of `user` on `server`, whose own addresses are `own`
    /// (not empty); every message of its mailboxes from one of them is
    /// sent mail, narrowed by `rules.senders`.
    pub fn new(server: Arc<Server>, user: &str, own: Vec<String>, rules: Rules) -> Self {
        Self {
            server,
            user: user.to_owned(),
            rules: Rules {
                all_sent: true,
                own,
                ..rules
            },
        }
    }

    fn login(&self) -> String {
        match &self.server.master {
            Some(master) => format!("{}{}{master}", self.user, self.server.master_separator),
            None => self.user.clone(),
        }
    }
}

/// Per mailbox (its name on the wire), its UIDVALIDITY and the last UID
/// handled: the cursor, as JSON.
type Progress = BTreeMap<String, (u32, u32)>;

impl Source for Account {
    fn kind(&self) -> &'static str {
        "mail"
    }

    fn choices(&self) -> String {
        self.rules.choices()
    }

    fn name(&self) -> String {
        format!(
            "imap://{}@{}:{}",
            self.user, self.server.host, self.server.port
        )
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let server = &self.server;
        let mut connection =
            Connection::open(&server.host, server.port, server.starttls, &server.tls)?;
        connection.login(&self.login(), &server.password)?;
        let mut progress: Progress = cursor
            .and_then(|cursor| serde_json::from_str(cursor).ok())
            .unwrap_or_default();
        let days = search_days(window);
        for name in self.mailboxes(&mut connection)? {
            if !self.read_mailbox(&mut connection, &name, &mut progress, &days, found)? {
                return Ok(());
            }
        }
        connection.logout();
        Ok(())
    }
}

impl Account {
    /// The mailboxes read: those named, else the server's sent mail.
    fn mailboxes(&self, connection: &mut Connection) -> anyhow::Result<Vec<Vec<u8>>> {
        if !self.server.mailboxes.is_empty() {
            return Ok(self
                .server
                .mailboxes
                .iter()
                .map(|name| mailbox_name(name).into_bytes())
                .collect());
        }
        let sent = connection.sent_mailboxes()?;
        Ok(if sent.is_empty() {
            vec![DEFAULT_SENT.as_bytes().to_vec()]
        } else {
            sent
        })
    }

    /// Hands `found` the messages of the mailbox `name` after `progress`
    /// and between `days` (`SENTSINCE`, `SENTBEFORE`); false when it
    /// wants no more.
    fn read_mailbox(
        &self,
        connection: &mut Connection,
        name: &[u8],
        progress: &mut Progress,
        (since, before): &(Option<String>, Option<String>),
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<bool> {
        let key = String::from_utf8_lossy(name).into_owned();
        let readable = readable_mailbox(name);
        let examined = connection.examine(name).with_context(|| {
            format!(
                "imap {}: {}: cannot open the mailbox {readable:?} (name yours with --mailbox)",
                self.server.host, self.user
            )
        })?;
        let after = match progress.get(&key) {
            Some((validity, last)) if *validity == examined.uid_validity => *last,
            _ => 0,
        };
        let uids = connection.search(after, since.as_deref(), before.as_deref())?;
        let mut done = after;
        let mut senders = Senders::default();
        for batch in uids.chunks(FETCHED_AT_ONCE) {
            let mut arrived = vec![false; batch.len()];
            let mut went_on = true;
            let mut handed = |fetched: client::Fetched| {
                let Ok(at) = batch.binary_search(&fetched.uid) else {
                    return true;
                };
                arrived[at] = true;
                // The cursor passes a UID only once every one before it
                // in the batch has come.
                let complete = arrived.iter().take_while(|a| **a).count();
                let upto = complete.checked_sub(1).map_or(done, |n| batch[n]);
                progress.insert(key.clone(), (examined.uid_validity, upto));
                let place = Place {
                    origin: format!("{} {readable} UID {}", self.name(), fetched.uid),
                    position: serde_json::to_string(&progress).unwrap_or_default(),
                    arrived: fetched.arrived,
                };
                went_on = found(self.judge(&fetched, place, &mut senders));
                went_on
            };
            if !connection.fetch(batch, &mut handed)? || !went_on {
                return Ok(false);
            }
            let last = batch.last().copied().unwrap_or(done);
            if arrived.iter().any(|a| !a) {
                // Expunged between the search and the fetch.
                progress.insert(key.clone(), (examined.uid_validity, last));
                let gone = Found::Skipped {
                    reason: "deleted before it was read",
                    position: Some(serde_json::to_string(&progress).unwrap_or_default()),
                };
                if !found(gone) {
                    return Ok(false);
                }
            }
            done = last;
        }
        Ok(true)
    }

    /// What the message `fetched`, read at `place`, is; its sender
    /// learned by `senders`.
    fn judge(&self, fetched: &client::Fetched, place: Place, senders: &mut Senders) -> Found {
        let has = |flag: &str| fetched.flags.iter().any(|f| f.eq_ignore_ascii_case(flag));
        let skipped = |reason| Found::Skipped {
            reason,
            position: Some(place.position.clone()),
        };
        if has("\\Deleted") {
            skipped("deleted")
        } else if has("\\Draft") {
            skipped("draft")
        } else {
            judge_in_turn(&fetched.body, &self.rules, place, senders)
        }
    }
}

/// The days to narrow a search to for `window` (`SENTSINCE`,
/// `SENTBEFORE`, a day wider on each side: they compare dates without
/// their time zones), if it is bounded.
fn search_days(window: &Window) -> (Option<String>, Option<String>) {
    let day = |at: chrono::DateTime<Utc>| at.format("%-d-%b-%Y").to_string();
    (
        window
            .since
            .and_then(|since| since.checked_sub_days(Days::new(1)))
            .map(day),
        window
            .until
            .and_then(|until| until.checked_add_days(Days::new(2)))
            .map(day),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_searches_a_day_wider() {
        let window = Window {
            since: chrono::DateTime::parse_from_rfc3339("2026-02-02T00:00:00Z")
                .ok()
                .map(|d| d.with_timezone(&Utc)),
            until: chrono::DateTime::parse_from_rfc3339("2026-02-03T23:59:59Z")
                .ok()
                .map(|d| d.with_timezone(&Utc)),
        };
        assert_eq!(
            search_days(&window),
            (Some("1-Feb-2026".to_owned()), Some("5-Feb-2026".to_owned()))
        );
        assert_eq!(search_days(&Window::default()), (None, None));
    }
}
