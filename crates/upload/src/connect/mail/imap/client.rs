//! The little of IMAP4rev1 (RFC 3501) that reading sent mail needs, over
//! TLS (rustls, with ring as `ureq` has it): CAPABILITY, STARTTLS, LOGIN,
//! LIST with SPECIAL-USE (RFC 6154), EXAMINE (read-only: nothing is marked
//! seen or changed), UID SEARCH and UID FETCH of `BODY.PEEK[]`, with
//! literals (`{n}`) both ways. Each message fetched is handed on as it
//! arrives, so memory holds one message at a time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use super::syntax::{literal_at_end, Parser, Value};
use crate::connect::mail::MAX_MESSAGE_BYTES;

/// How long a connection is tried.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long an answer is waited for.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest line of an answer (a SEARCH of a million messages fits).
const MAX_LINE: u64 = 16 * 1024 * 1024;

/// The TLS settings: the webpki roots, and a private CA when one is named.
pub fn tls_config(ca: Option<&Path>) -> anyhow::Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(ca) = ca {
        let pem = std::fs::read(ca).with_context(|| format!("cannot read {}", ca.display()))?;
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(&pem) {
            let cert = cert.with_context(|| format!("{}: not a PEM certificate", ca.display()))?;
            roots
                .add(cert)
                .with_context(|| format!("{}: a certificate rustls cannot use", ca.display()))?;
            added += 1;
        }
        anyhow::ensure!(added > 0, "{}: no PEM certificate in it", ca.display());
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS settings")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The socket, in the clear until STARTTLS, or under TLS.
enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// One answer of the server: its lines joined, each literal's `{n}` left
/// in place and its bytes kept apart, in order.
#[derive(Debug, Default)]
pub struct Response {
    pub text: Vec<u8>,
    pub literals: Vec<Vec<u8>>,
}

impl Response {
    /// The answer as text, literals left out, for an error message.
    pub fn line(&self) -> String {
        String::from_utf8_lossy(&self.text).into_owned()
    }
}

/// An argument of a command.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// Written as it is (a keyword, a number, a UID set).
    Atom(&'a str),
    /// Written as a quoted string, or as a literal when it cannot be one.
    Text(&'a [u8]),
}

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

/// A session with an IMAP server.
pub struct Connection {
    stream: BufReader<Stream>,
    /// `host:port`, for messages.
    peer: String,
    tag: u32,
    capabilities: Vec<String>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
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
                anyhow::bail!("imap {}: TLS began twice", peer_of(host, port));
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

    /// Sends a command of `args` and reads the answers until its own,
    /// each untagged one handed to `untagged`; an error when the server
    /// says NO or BAD.
    fn command(
        &mut self,
        args: &[Arg<'_>],
        untagged: &mut dyn FnMut(Response) -> anyhow::Result<()>,
    ) -> anyhow::Result<Response> {
        self.tag += 1;
        let tag = format!("k{}", self.tag);
        let verb = match args.first() {
            Some(Arg::Atom(verb)) => (*verb).to_owned(),
            _ => "command".to_owned(),
        };
        let mut out = tag.clone().into_bytes();
        for arg in args {
            out.push(b' ');
            match arg {
                Arg::Atom(atom) => out.extend_from_slice(atom.as_bytes()),
                Arg::Text(text) if quotable(text) => {
                    out.push(b'"');
                    for b in *text {
                        if matches!(b, b'"' | b'\\') {
                            out.push(b'\\');
                        }
                        out.push(*b);
                    }
                    out.push(b'"');
                }
                Arg::Text(text) if self.has("LITERAL+") => {
                    out.extend_from_slice(format!("{{{}+}}\r\n", text.len()).as_bytes());
                    out.extend_from_slice(text);
                }
                Arg::Text(text) => {
                    out.extend_from_slice(format!("{{{}}}\r\n", text.len()).as_bytes());
                    self.send(&out)?;
                    self.continuation(&tag, untagged)?;
                    out = text.to_vec();
                }
            }
        }
        out.extend_from_slice(b"\r\n");
        self.send(&out)?;
        loop {
            let response = self.response()?;
            if response.text.starts_with(b"* ") {
                untagged(response)?;
                continue;
            }
            if response.text.starts_with(b"+") {
                continue;
            }
            let line = response.line();
            let Some(status) = line.strip_prefix(&format!("{tag} ")) else {
                continue;
            };
            if status
                .get(..2)
                .is_some_and(|s| s.eq_ignore_ascii_case("OK"))
            {
                return Ok(response);
            }
            anyhow::bail!("{verb}: {}", status.get(3..).unwrap_or(status).trim());
        }
    }

    /// Waits for the server's `+` before a literal is sent.
    fn continuation(
        &mut self,
        tag: &str,
        untagged: &mut dyn FnMut(Response) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        loop {
            let response = self.response()?;
            if response.text.starts_with(b"+") {
                return Ok(());
            }
            if response.text.starts_with(b"* ") {
                untagged(response)?;
                continue;
            }
            anyhow::bail!(
                "{}",
                response
                    .line()
                    .strip_prefix(tag)
                    .unwrap_or(&response.line())
                    .trim()
            );
        }
    }

    fn send(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        let stream = self.stream.get_mut();
        let sent = stream.write_all(bytes).and_then(|()| stream.flush());
        sent.map_err(|e| self.broken(e))
    }

    /// Reads one answer, its literals included.
    fn response(&mut self) -> anyhow::Result<Response> {
        let mut response = Response::default();
        loop {
            let mut line = Vec::new();
            let read = (&mut self.stream)
                .take(MAX_LINE)
                .read_until(b'\n', &mut line);
            let n = read.map_err(|e| self.broken(e))?;
            if n == 0 {
                anyhow::bail!("imap {}: the server closed the connection", self.peer);
            }
            anyhow::ensure!(
                line.ends_with(b"\n"),
                "imap {}: an answer line longer than {MAX_LINE} bytes",
                self.peer
            );
            while line.last().is_some_and(|b| matches!(b, b'\r' | b'\n')) {
                line.pop();
            }
            let literal = literal_at_end(&line);
            response.text.extend_from_slice(&line);
            let Some(size) = literal else {
                return Ok(response);
            };
            anyhow::ensure!(
                size <= MAX_MESSAGE_BYTES as u64 + 64 * 1024,
                "imap {}: the server sent {size} bytes where at most {MAX_MESSAGE_BYTES} were asked",
                self.peer
            );
            let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            let read = (&mut self.stream).take(size).read_to_end(&mut bytes);
            read.map_err(|e| self.broken(e))?;
            anyhow::ensure!(
                bytes.len() as u64 == size,
                "imap {}: the server closed the connection in the middle of a message",
                self.peer
            );
            response.literals.push(bytes);
        }
    }

    /// A read that failed, as one line: a certificate refused says how to
    /// name a private CA.
    fn broken(&self, e: std::io::Error) -> anyhow::Error {
        let why = e.to_string();
        if why.contains("certificate") || why.contains("UnknownIssuer") {
            anyhow::anyhow!(
                "imap {}: TLS: {why} (a server certificate of a private CA: name the CA with --imap-ca FILE)",
                self.peer
            )
        } else if matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ) {
            anyhow::anyhow!("imap {}: no answer in {ANSWER_TIMEOUT:?}", self.peer)
        } else {
            anyhow::anyhow!("imap {}: the connection broke: {why}", self.peer)
        }
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

fn peer_of(host: &str, port: u16) -> String {
    format!("{host}:{port}")
}

fn connect(peer: &str) -> anyhow::Result<TcpStream> {
    let addresses: Vec<_> = peer
        .to_socket_addrs()
        .with_context(|| format!("cannot reach imap server {peer}: no such host"))?
        .collect();
    let mut last = None;
    for address in addresses {
        match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
            Ok(socket) => {
                socket.set_read_timeout(Some(ANSWER_TIMEOUT))?;
                socket.set_write_timeout(Some(ANSWER_TIMEOUT))?;
                return Ok(socket);
            }
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) => anyhow::bail!("cannot reach imap server {peer}: {e}"),
        None => anyhow::bail!("cannot reach imap server {peer}: no address"),
    }
}

fn secure(
    socket: TcpStream,
    host: &str,
    tls: &Arc<ClientConfig>,
) -> anyhow::Result<StreamOwned<ClientConnection, TcpStream>> {
    let name = ServerName::try_from(host.to_owned())
        .with_context(|| format!("imap {host}: not a host name TLS can check"))?;
    let connection =
        ClientConnection::new(tls.clone(), name).with_context(|| format!("imap {host}: TLS"))?;
    Ok(StreamOwned::new(connection, socket))
}

/// Whether `text` can go as a quoted string (7-bit, no line breaks).
fn quotable(text: &[u8]) -> bool {
    text.iter().all(|b| (0x20..0x7f).contains(b))
}

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

    #[test]
    fn texts_that_are_not_7_bit_go_as_literals() {
        assert!(quotable(b"ada@example.com"));
        assert!(quotable(b"pass \"word\""));
        assert!(!quotable("pässword".as_bytes()));
        assert!(!quotable(b"line\r\nbreak"));
    }
}
