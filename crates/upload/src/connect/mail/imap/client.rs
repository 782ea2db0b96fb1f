//! The little of IMAP4rev1 (RFC 3501) that reading sent mail needs, over
//! TLS (rustls, with ring as `ureq` has it): CAPABILITY, STARTTLS, LOGIN,
//! LIST with SPECIAL-USE (RFC 6154), EXAMINE (read-only: nothing is marked
//! seen or changed), UID SEARCH and UID FETCH of `BODY.PEEK[]`, with
//! literals (`{n}`) both ways. Each message fetched is handed on as it
//! arrives, so memory holds one message at a time.

use std::io::BufReader;
use std::sync::Arc;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use rustls::ClientConfig;

use super::syntax::{Parser, Value};
use super::tls::{connect, secure, Stream};
use super::wire::{Arg, Connection, Response};
use crate::connect::mail::message::MAX_MESSAGE_BYTES;

/// A message as UID FETCH gives it.
#[derive(Debug)]
pub struct Fetched {
    pub uid: u32,
    pub flags: Vec<String>,
    pub arrived: Option<DateTime<Utc>>,
    pub body: Vec<u8>,
}

/// A mailbox opened with EXAMINE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Examined {
    pub uid_validity: u32,
}

impl Connection {
    /// Connects to `host:port`, under TLS from the start, or after
    /// STARTTLS when `starttls`; never in the clear.
    pub fn open(
        host: &str,
        port: u16,
        starttls: bool,
        tls: &Arc<ClientConfig>,
    ) -> anyhow::Result<Self> {
        let peer = format!("{host}:{port}");
        let socket = connect(&peer)?;
        let mut connection = if starttls {
            Self {
                stream: BufReader::new(Stream::Plain(socket)),
                peer,
                tag: 0,
                capabilities: Vec::new(),
            }
        } else {
            Self {
                stream: BufReader::new(Stream::Tls(Box::new(secure(socket, host, tls)?))),
                peer,
                tag: 0,
                capabilities: Vec::new(),
            }
        };
        connection.greeting()?;
        connection.capability()?;
        if starttls {
            anyhow::ensure!(
                connection.has("STARTTLS"),
                "imap {}: the server offers no STARTTLS (connect to its TLS port, 993, without --imap-starttls)",
                connection.peer
            );
            connection.command(&[Arg::Atom("STARTTLS")], &mut |_| Ok(()))?;
            anyhow::ensure!(
                connection.stream.buffer().is_empty(),
                "imap {}: the server sent data before TLS began",
                connection.peer
            );
            let Stream::Plain(socket) = connection.stream.into_inner() else {
                anyhow::bail!("imap {host}:{port}: TLS began twice");
            };
            connection.stream = BufReader::new(Stream::Tls(Box::new(secure(socket, host, tls)?)));
            connection.capability()?;
        }
        Ok(connection)
    }

    fn greeting(&mut self) -> anyhow::Result<()> {
        loop {
            let greeting = self.response()?;
            let line = greeting.line();
            if line.starts_with("* OK [CAPABILITY") || line.starts_with("* PREAUTH") {
                return Ok(());
            }
            if line.starts_with("* BYE") {
                anyhow::bail!("imap {}: the server will not talk: {line}", self.peer);
            }
            // Dovecot's "* OK Waiting for authentication process": the
            // greeting proper follows; any other OK is the greeting.
            if line.starts_with("* OK") && !line.contains("Waiting for") {
                return Ok(());
            }
            anyhow::ensure!(
                line.starts_with('*'),
                "imap {}: not an IMAP server (it said: {})",
                self.peer,
                line.chars().take(80).collect::<String>()
            );
        }
    }

    fn capability(&mut self) -> anyhow::Result<()> {
        let mut capabilities = Vec::new();
        self.command(&[Arg::Atom("CAPABILITY")], &mut |response| {
            let line = response.line();
            if let Some(listed) = line.strip_prefix("* CAPABILITY ") {
                capabilities.extend(listed.split_whitespace().map(str::to_ascii_uppercase));
            }
            Ok(())
        })?;
        self.capabilities = capabilities;
        anyhow::ensure!(
            self.has("IMAP4REV1") || self.has("IMAP4REV2"),
            "imap {}: not an IMAP4rev1 server",
            self.peer
        );
        Ok(())
    }

    /// Whether the server has `capability`.
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities
            .iter()
            .any(|c| c.eq_ignore_ascii_case(capability))
    }

    /// LOGIN as `user` with `password`.
    pub fn login(&mut self, user: &str, password: &str) -> anyhow::Result<()> {
        anyhow::ensure!(
            !self.has("LOGINDISABLED"),
            "imap {}: the server does not take LOGIN here",
            self.peer
        );
        let answer = self.command(
            &[
                Arg::Atom("LOGIN"),
                Arg::Text(user.as_bytes()),
                Arg::Text(password.as_bytes()),
            ],
            &mut |_| Ok(()),
        );
        if let Err(refused) = answer {
            let refused = refused.to_string();
            anyhow::bail!(
                "imap {}: the server refused the login of {user}: {}",
                self.peer,
                refused.strip_prefix("LOGIN: ").unwrap_or(&refused)
            );
        }
        self.capability()
    }

    /// The mailboxes LIST marks `\Sent` (RFC 6154), by their names on the
    /// wire.
    pub fn sent_mailboxes(&mut self) -> anyhow::Result<Vec<Vec<u8>>> {
        let special = self.has("SPECIAL-USE") && self.has("LIST-EXTENDED");
        let mut args = vec![Arg::Atom("LIST")];
        if special {
            args.push(Arg::Atom("(SPECIAL-USE)"));
        }
        args.extend([Arg::Text(b""), Arg::Text(b"*")]);
        let mut sent = Vec::new();
        self.command(&args, &mut |response| {
            let mut parser = Parser::new(response);
            if parser.atom().as_deref() != Some("*") || parser.atom().as_deref() != Some("LIST") {
                return Ok(());
            }
            let Some(Value::List(attributes)) = parser.value() else {
                return Ok(());
            };
            let _delimiter = parser.value();
            let is_sent = attributes
                .iter()
                .any(|a| matches!(a, Value::Atom(a) if a.eq_ignore_ascii_case("\\Sent")));
            if is_sent {
                if let Some(name) = parser.value().and_then(Value::into_bytes) {
                    sent.push(name);
                }
            }
            Ok(())
        })?;
        Ok(sent)
    }

    /// EXAMINE `mailbox` (its name on the wire): read-only.
    pub fn examine(&mut self, mailbox: &[u8]) -> anyhow::Result<Examined> {
        let mut uid_validity = None;
        self.command(
            &[Arg::Atom("EXAMINE"), Arg::Text(mailbox)],
            &mut |response| {
                let line = response.line();
                if let Some(at) = line.find("[UIDVALIDITY ") {
                    uid_validity = line[at + 13..]
                        .split(|c: char| !c.is_ascii_digit())
                        .next()
                        .and_then(|n| n.parse().ok());
                }
                Ok(())
            },
        )?;
        let uid_validity = uid_validity
            .with_context(|| format!("imap {}: the mailbox has no UIDVALIDITY", self.peer))?;
        Ok(Examined { uid_validity })
    }

    /// The UIDs after `after` in the mailbox examined, narrowed to the
    /// days of `since` and `before` when given (`SENTSINCE`,
    /// `SENTBEFORE`), in ascending order.
    pub fn search(
        &mut self,
        after: u32,
        since: Option<&str>,
        before: Option<&str>,
    ) -> anyhow::Result<Vec<u32>> {
        let range = format!("{}:*", after.saturating_add(1));
        let mut args = vec![Arg::Atom("UID SEARCH UID"), Arg::Atom(&range)];
        if let Some(since) = since {
            args.extend([Arg::Atom("SENTSINCE"), Arg::Atom(since)]);
        }
        if let Some(before) = before {
            args.extend([Arg::Atom("SENTBEFORE"), Arg::Atom(before)]);
        }
        let mut uids = Vec::new();
        self.command(&args, &mut |response| {
            let line = response.line();
            if let Some(found) = line.strip_prefix("* SEARCH") {
                uids.extend(
                    found
                        .split_whitespace()
                        .filter_map(|n| n.parse::<u32>().ok())
                        .filter(|uid| *uid > after),
                );
            }
            Ok(())
        })?;
        uids.sort_unstable();
        uids.dedup();
        Ok(uids)
    }

    /// UID FETCH of the messages `uids` (their first
    /// [`MAX_MESSAGE_BYTES`]), each handed to `each` as it arrives until it
    /// answers false; whether every one was handed on.
    pub fn fetch(
        &mut self,
        uids: &[u32],
        each: &mut dyn FnMut(Fetched) -> bool,
    ) -> anyhow::Result<bool> {
        let set = uid_set(uids);
        let items = format!("(UID FLAGS INTERNALDATE BODY.PEEK[]<0.{MAX_MESSAGE_BYTES}>)");
        let mut went_on = true;
        let peer = self.peer.clone();
        let answer = self.command(
            &[Arg::Atom("UID FETCH"), Arg::Atom(&set), Arg::Atom(&items)],
            &mut |response| {
                if !went_on {
                    return Ok(());
                }
                if let Some(fetched) = parse_fetch(response)
                    .with_context(|| format!("imap {peer}: a FETCH answer Kenning cannot read"))?
                {
                    went_on = each(fetched);
                    if !went_on {
                        anyhow::bail!(Stopped);
                    }
                }
                Ok(())
            },
        );
        match answer {
            Ok(_) => Ok(went_on),
            Err(e) if e.is::<Stopped>() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// LOGOUT, as a courtesy: the session ends either way.
    pub fn logout(mut self) {
        let _ = self.command(&[Arg::Atom("LOGOUT")], &mut |_| Ok(()));
    }
}

/// The command that stopped a FETCH early: the caller wants no more.
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped")
    }
}

impl std::error::Error for Stopped {}

/// `1:3,7,9:10` for 1 2 3 7 9 10 (ascending).
pub fn uid_set(uids: &[u32]) -> String {
    let mut set = String::new();
    let mut n = 0;
    while n < uids.len() {
        let start = uids[n];
        let mut end = start;
        while n + 1 < uids.len() && uids[n + 1] == end.saturating_add(1) {
            n += 1;
            end = uids[n];
        }
        if !set.is_empty() {
            set.push(',');
        }
        if end == start {
            set.push_str(&start.to_string());
        } else {
            set.push_str(&format!("{start}:{end}"));
        }
        n += 1;
    }
    set
}

/// A `* n FETCH (...)` answer with a body, if `response` is one.
fn parse_fetch(response: Response) -> anyhow::Result<Option<Fetched>> {
    let mut parser = Parser::new(response);
    if parser.atom().as_deref() != Some("*") {
        return Ok(None);
    }
    let _sequence = parser.atom();
    if !parser
        .atom()
        .is_some_and(|word| word.eq_ignore_ascii_case("FETCH"))
    {
        return Ok(None);
    }
    let Some(Value::List(items)) = parser.value() else {
        anyhow::bail!("no list after FETCH");
    };
    let (mut uid, mut flags, mut arrived, mut body) = (None, Vec::new(), None, None);
    let mut items = items.into_iter();
    while let (Some(Value::Atom(name)), Some(value)) = (items.next(), items.next()) {
        let name = name.to_ascii_uppercase();
        match (name.as_str(), value) {
            ("UID", Value::Atom(n)) => uid = n.parse().ok(),
            ("FLAGS", Value::List(list)) => {
                flags = list
                    .into_iter()
                    .filter_map(|flag| match flag {
                        Value::Atom(flag) => Some(flag),
                        _ => None,
                    })
                    .collect();
            }
            ("INTERNALDATE", value) => {
                arrived = value
                    .into_bytes()
                    .and_then(|date| internal_date(&String::from_utf8_lossy(&date)));
            }
            (name, value) if name.starts_with("BODY[") => body = value.into_bytes(),
            _ => {}
        }
    }
    let (Some(uid), Some(body)) = (uid, body) else {
        return Ok(None);
    };
    Ok(Some(Fetched {
        uid,
        flags,
        arrived,
        body,
    }))
}

/// An INTERNALDATE (`02-Feb-2026 10:00:00 +0000`, the day maybe
/// space-padded).
fn internal_date(raw: &str) -> Option<DateTime<Utc>> {
    let raw = raw.trim();
    let padded = if raw.find('-') == Some(1) {
        format!("0{raw}")
    } else {
        raw.to_owned()
    };
    DateTime::parse_from_str(&padded, "%d-%b-%Y %H:%M:%S %z")
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_sets_are_written_as_ranges() {
        assert_eq!(uid_set(&[1, 2, 3, 7, 9, 10]), "1:3,7,9:10");
        assert_eq!(uid_set(&[5]), "5");
        assert_eq!(uid_set(&[]), "");
    }

    #[test]
    fn a_fetch_answer_gives_its_message_flags_and_date() {
        let response = Response {
            text: b"* 12 FETCH (UID 1234 FLAGS (\\Seen \\Draft) INTERNALDATE \" 2-Feb-2026 10:00:00 +0100\" BODY[]<0> {11})".to_vec(),
            literals: vec![b"Subject: x\n".to_vec()],
        };
        let fetched = parse_fetch(response).unwrap().unwrap();
        assert_eq!(fetched.uid, 1234);
        assert_eq!(fetched.flags, ["\\Seen", "\\Draft"]);
        assert_eq!(
            fetched.arrived.map(|d| d.to_rfc3339()).as_deref(),
            Some("2026-02-02T09:00:00+00:00")
        );
        assert_eq!(fetched.body, b"Subject: x\n");
        let flags_only = Response {
            text: b"* 3 FETCH (FLAGS (\\Seen))".to_vec(),
            literals: Vec::new(),
        };
        assert!(parse_fetch(flags_only).unwrap().is_none());
        let broken = Response {
            text: b"* 3 FETCH UID".to_vec(),
            literals: Vec::new(),
        };
        assert!(parse_fetch(broken).is_err());
    }
}
