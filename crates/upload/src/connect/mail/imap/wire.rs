//! How a command goes to an IMAP server and its answers come back: tags,
//! quoted strings and literals (`{n}`, synchronizing or LITERAL+) out,
//! lines and literals in, untagged answers handed on as they arrive.

use std::io::{BufRead, BufReader, Read, Write};

use super::tls::{Stream, ANSWER_TIMEOUT};
use crate::connect::mail::message::MAX_MESSAGE_BYTES;

/// The longest line of an answer (a SEARCH of a million messages fits).
const MAX_LINE: u64 = 16 * 1024 * 1024;

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

/// A session with an IMAP server.
pub struct Connection {
    pub(super) stream: BufReader<Stream>,
    /// `host:port`, for messages.
    pub(super) peer: String,
    pub(super) tag: u32,
    pub(super) capabilities: Vec<String>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Sends a command of `args` and reads the answers until its own,
    /// each untagged one handed to `untagged`; an error when the server
    /// says NO or BAD.
    pub(super) fn command(
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
    pub(super) fn response(&mut self) -> anyhow::Result<Response> {
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

/// Whether `text` can go as a quoted string (7-bit, no line breaks).
fn quotable(text: &[u8]) -> bool {
    text.iter().all(|b| (0x20..0x7f).contains(b))
}

/// The size of the literal a line announces at its end (`{123}` or
/// `{123+}`), if it does.
pub fn literal_at_end(line: &[u8]) -> Option<u64> {
    let inner = line.strip_suffix(b"}")?;
    let open = inner.iter().rposition(|b| *b == b'{')?;
    let digits = &inner[open + 1..];
    let digits = digits.strip_suffix(b"+").unwrap_or(digits);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_that_are_not_7_bit_go_as_literals() {
        assert!(quotable(b"ada@example.com"));
        assert!(quotable(b"pass \"word\""));
        assert!(!quotable("pässword".as_bytes()));
        assert!(!quotable(b"line\r\nbreak"));
    }
}
