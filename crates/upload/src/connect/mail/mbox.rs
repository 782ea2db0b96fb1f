//! mbox files (mboxrd and mboxo, as mail clients, `mutt`, Thunderbird and
//! list archives write them): messages one after another, each begun by
//! a `From ` line, streamed a line at a time, never the whole file.
//!
//! The cursor is the byte offset of the next message, with what makes
//! sure it is still the same file: a digest of the first message's
//! `Message-ID` (a rotated or rewritten file begins with another message)
//! and of the 256 bytes before the offset (a message deleted before it
//! moves what follows). When either differs, the file is read again from
//! its start, every message already sent a duplicate.

use std::fs::File;
use std::io::{BufRead, BufReader, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{NaiveDateTime, Utc};
use sha2::{Digest as _, Sha256};

use super::super::source::{Found, Source, Window};
use crate::connect::mail::message::{judge_in_turn, Place, Rules, Senders, MAX_MESSAGE_BYTES};

/// How many bytes before a position its digest covers.
const TAIL: usize = 256;
/// The longest piece of a line read at once: a file without line breaks
/// is read in pieces of this size.
const LINE_PIECE: u64 = 64 * 1024;
/// How far into the first message its `Message-ID` is looked for.
const FIRST_HEADER_BYTES: usize = 64 * 1024;

/// One mbox file.
#[derive(Debug)]
pub struct Mbox {
    path: PathBuf,
    rules: Rules,
}

impl Mbox {
    /// The mbox file at `path`; an error when it cannot be read or does
    /// not begin with a `From ` line.
    pub fn open(path: &Path, rules: Rules) -> anyhow::Result<Self> {
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("{}: no such file", path.display()))?;
        let mbox = Self { path, rules };
        mbox.first_identity()?;
        Ok(mbox)
    }

    /// A digest of what names the first message: its `Message-ID`, else
    /// its `From ` line; empty for an empty file.
    fn first_identity(&self) -> anyhow::Result<String> {
        let file = File::open(&self.path)
            .with_context(|| format!("{}: cannot read", self.path.display()))?;
        let mut lines = BufReader::new(file).take(FIRST_HEADER_BYTES as u64);
        let mut from_line = Vec::new();
        if lines.read_until(b'\n', &mut from_line)? == 0 {
            return Ok(String::new());
        }
        anyhow::ensure!(
            from_line.starts_with(b"From "),
            "{}: not an mbox file: byte 0 does not begin a `From ` line",
            self.path.display()
        );
        let mut headers = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            if lines.read_until(b'\n', &mut line)? == 0 || line.trim_ascii().is_empty() {
                break;
            }
            headers.extend_from_slice(&line);
        }
        let named = message_id(&headers).unwrap_or_else(|| from_line.trim_ascii().to_vec());
        Ok(short_digest(&named))
    }

    /// Where to start for `cursor`: its offset when it still names the
    /// same place in the same file, else the start.
    fn start(&self, cursor: Option<&str>, first: &str) -> anyhow::Result<u64> {
        let Some(position) = cursor.and_then(Position::parse) else {
            return Ok(0);
        };
        if position.first != first {
            return Ok(0);
        }
        let mut file = File::open(&self.path)?;
        let length = file.metadata()?.len();
        if position.offset > length {
            return Ok(0);
        }
        let from = position.offset.saturating_sub(TAIL as u64);
        file.seek(SeekFrom::Start(from))?;
        let mut around = Vec::new();
        (&mut file)
            .take(position.offset - from + 5)
            .read_to_end(&mut around)?;
        let split = usize::try_from(position.offset - from).unwrap_or(0);
        let (before, after) = around.split_at(split.min(around.len()));
        let same = short_digest(before) == position.tail
            && (after.is_empty() || after.starts_with(b"From "));
        Ok(if same { position.offset } else { 0 })
    }
}

impl Source for Mbox {
    fn kind(&self) -> &'static str {
        "mail"
    }

    fn choices(&self) -> String {
        self.rules.choices()
    }

    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        _window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let first = self.first_identity()?;
        let start = self.start(cursor, &first)?;
        let mut file = File::open(&self.path)
            .with_context(|| format!("{}: cannot read", self.path.display()))?;
        let mut tail = Vec::with_capacity(2 * TAIL);
        let from = start.saturating_sub(TAIL as u64);
        file.seek(SeekFrom::Start(from))?;
        (&mut file).take(start - from).read_to_end(&mut tail)?;
        let mut reader = Reader {
            mbox: self,
            found,
            first,
            tail,
            senders: Senders::default(),
        };
        reader.read(BufReader::with_capacity(64 * 1024, file), start)
    }
}

/// One pass over the file.
struct Reader<'a> {
    mbox: &'a Mbox,
    found: &'a mut dyn FnMut(Found) -> bool,
    first: String,
    /// The last bytes read (at least [`TAIL`] of them, once there are).
    tail: Vec<u8>,
    /// Who sent the messages read so far.
    senders: Senders,
}

/// A message being read.
struct Message {
    /// Its `From ` line's offset.
    start: u64,
    from_line: Vec<u8>,
    bytes: Vec<u8>,
    /// Still in its header (no blank line yet).
    in_header: bool,
}

impl Reader<'_> {
    fn read(&mut self, mut lines: BufReader<File>, start: u64) -> anyhow::Result<()> {
        let path = self.mbox.path.display().to_string();
        let mut offset = start;
        let mut message: Option<Message> = None;
        let mut at_line_start = true;
        let mut after_blank = true;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = (&mut lines)
                .take(LINE_PIECE)
                .read_until(b'\n', &mut line)
                .with_context(|| format!("{path}: cannot read at byte {offset}"))?;
            if n == 0 {
                break;
            }
            let separator = at_line_start
                && line.starts_with(b"From ")
                && (after_blank || looks_like_from_line(&line));
            if separator {
                if let Some(done) = message.take() {
                    if !self.hand_over(done, offset, false) {
                        return Ok(());
                    }
                }
                message = Some(Message {
                    start: offset,
                    from_line: line.clone(),
                    bytes: Vec::new(),
                    in_header: true,
                });
            } else if let Some(message) = message.as_mut() {
                let blank = at_line_start && line.trim_ascii().is_empty();
                if blank {
                    message.in_header = false;
                }
                let text = if at_line_start {
                    unescaped(&line)
                } else {
                    &line
                };
                if message.bytes.len() + text.len() <= MAX_MESSAGE_BYTES {
                    message.bytes.extend_from_slice(text);
                }
            } else {
                anyhow::bail!(
                    "{path}: not an mbox file: byte {offset} does not begin a `From ` line"
                );
            }
            after_blank = at_line_start && line.trim_ascii().is_empty();
            at_line_start = line.ends_with(b"\n");
            self.remember(&line);
            offset += n as u64;
        }
        if let Some(done) = message.take() {
            self.hand_over(done, offset, true);
        }
        Ok(())
    }

    /// Keeps the last bytes read.
    fn remember(&mut self, line: &[u8]) {
        self.tail
            .extend_from_slice(&line[line.len().saturating_sub(TAIL)..]);
        if self.tail.len() > 2 * TAIL {
            self.tail.drain(..self.tail.len() - TAIL);
        }
    }

    /// Judges `message`, which ends at `next` (the end of the file when
    /// `last`); whether the run goes on.
    fn hand_over(&mut self, message: Message, next: u64, last: bool) -> bool {
        let position = Position {
            offset: next,
            first: self.first.clone(),
            tail: short_digest(&self.tail[self.tail.len().saturating_sub(TAIL)..]),
        }
        .to_string();
        let origin = format!(
            "{}: message at byte {}",
            self.mbox.path.display(),
            message.start
        );
        if last && message.in_header && !message.bytes.is_empty() {
            return (self.found)(Found::Bad {
                origin,
                problem: "the file ends inside this message's header (a truncated mbox?)"
                    .to_owned(),
                position: Some(position),
            });
        }
        let place = Place {
            origin,
            position,
            arrived: from_line_date(&message.from_line),
        };
        let judged = judge_in_turn(&message.bytes, &self.mbox.rules, place, &mut self.senders);
        (self.found)(judged)
    }
}

/// Whether a `From ` line not after a blank line still is one: a sender
/// and a time (`From ada@example.com Mon Feb  2 10:00:00 2026`).
fn looks_like_from_line(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() >= 5 && words.iter().skip(2).any(|w| w.matches(':').count() == 2)
}

/// A line as written before mboxrd quoted it: `>From ` and `>>From ` lose
/// a `>`.
fn unescaped(line: &[u8]) -> &[u8] {
    let quotes = line.iter().take_while(|b| **b == b'>').count();
    if quotes > 0 && line[quotes..].starts_with(b"From ") {
        &line[1..]
    } else {
        line
    }
}

/// The date a `From ` line gives (`From sender Mon Feb  2 10:00:00 2026`),
/// read as UTC.
fn from_line_date(line: &[u8]) -> Option<chrono::DateTime<Utc>> {
    let text = String::from_utf8_lossy(line);
    let words: Vec<&str> = text.split_whitespace().skip(2).take(5).collect();
    NaiveDateTime::parse_from_str(&words.join(" "), "%a %b %d %H:%M:%S %Y")
        .ok()
        .map(|at| at.and_utc())
}

/// The value of the `Message-ID` field in `header`, unfolded.
fn message_id(header: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(header);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("message-id") {
            let mut value = value.trim().to_owned();
            if value.is_empty() {
                value = lines.next().unwrap_or_default().trim().to_owned();
            }
            return (!value.is_empty()).then(|| value.into_bytes());
        }
    }
    None
}

fn short_digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a run resumes in an mbox file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Position {
    /// The next message's `From ` line.
    offset: u64,
    /// The digest of what names the first message.
    first: String,
    /// The digest of the bytes just before `offset`.
    tail: String,
}

impl Position {
    fn parse(raw: &str) -> Option<Self> {
        let mut words = raw.split_whitespace();
        let offset = words.next()?.parse().ok()?;
        let first = words.next().unwrap_or_default().to_owned();
        let tail = words.next()?.to_owned();
        let first = if first == "-" { String::new() } else { first };
        Some(Self {
            offset,
            first,
            tail,
        })
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first = if self.first.is_empty() {
            "-"
        } else {
            &self.first
        };
        write!(f, "{} {first} {}", self.offset, self.tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::source::Item;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "kenning-mbox-{name}-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn message(n: u32, body: &str) -> String {
        format!(
            "From ada@example.com Mon Feb  2 10:00:0{n} 2026\n\
             From: Ada Lovelace <ada@example.com>\n\
             Subject: Note {n}\n\
             Message-ID: <note{n}@example.com>\n\
             Date: Mon, 2 Feb 2026 10:00:0{n} +0000\n\
             \n\
             {body}\n\
             \n"
        )
    }

    fn sent() -> Rules {
        Rules {
            all_sent: true,
            senders: Vec::new(),
            own: Vec::new(),
        }
    }

    /// Everything read from `cursor`, and the last position.
    fn read_all(mbox: &mut Mbox, cursor: Option<&str>) -> (Vec<Found>, Option<String>) {
        let mut all = Vec::new();
        mbox.read(cursor, &Window::default(), &mut |found| {
            all.push(found);
            true
        })
        .unwrap();
        let last = all
            .iter()
            .rev()
            .find_map(|found| found.position().map(str::to_owned));
        (all, last)
    }

    fn items(all: &[Found]) -> Vec<&Item> {
        all.iter()
            .filter_map(|found| match found {
                Found::Item(item) => Some(item),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_sender_read_before_is_a_name_in_later_messages() {
        let dir = scratch("senders");
        let path = dir.join("list.mbox");
        let later = "From grace@example.com Mon Feb  2 11:00:00 2026\n\
             From: Grace Hopper <grace@example.com>\n\
             To: list@example.com\n\
             Subject: Re: Note 1\n\
             Message-ID: <reply@example.com>\n\
             Date: Mon, 2 Feb 2026 11:00:00 +0000\n\
             \n\
             Rebased on Lovelace's engine patches, as Ada asked.\n\
             \n";
        std::fs::write(&path, format!("{}{later}", message(1, "Engine patches."))).unwrap();
        let mut mbox = Mbox::open(&path, sent()).unwrap();
        let (all, _) = read_all(&mut mbox, None);
        let texts: Vec<&str> = items(&all)
            .iter()
            .map(|item| item.texts[1].text.as_str())
            .collect();
        assert_eq!(
            texts,
            ["Engine patches.", "Rebased on engine patches, as asked."]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn messages_are_read_one_by_one_and_a_run_resumes_after_the_last() {
        let dir = scratch("resume");
        let path = dir.join("Sent");
        let escaped = "Gears mesh.\n>From the start, the engine was general.";
        std::fs::write(&path, message(1, escaped) + &message(2, "Levers lift.")).unwrap();
        let mut mbox = Mbox::open(&path, sent()).unwrap();
        let (all, last) = read_all(&mut mbox, None);
        let read = items(&all);
        assert_eq!(read.len(), 2, "{all:?}");
        assert_eq!(read[0].id, "note1@example.com");
        assert_eq!(
            read[0].texts[1].text,
            "Gears mesh.\nFrom the start, the engine was general."
        );
        assert!(
            read[1].origin.contains("message at byte"),
            "{}",
            read[1].origin
        );

        let (again, _) = read_all(&mut mbox, last.as_deref());
        assert!(again.is_empty(), "{again:?}");

        let mut appended = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut appended, message(3, "Cams turn.").as_bytes()).unwrap();
        let (newer, _) = read_all(&mut mbox, last.as_deref());
        assert_eq!(items(&newer)[0].id, "note3@example.com");

        // Rotated: another file under the same name is read from its start.
        std::fs::write(&path, message(4, "Punched cards.") + &message(5, "Looms.")).unwrap();
        let (rotated, _) = read_all(&mut mbox, last.as_deref());
        assert_eq!(items(&rotated).len(), 2, "{rotated:?}");

        // A message deleted before the position moves what follows: all again.
        std::fs::write(
            &path,
            message(4, "Punched cards.") + &message(6, "Shuttles."),
        )
        .unwrap();
        let (_, at) = read_all(&mut mbox, None);
        std::fs::write(
            &path,
            message(4, "Punched cards.")
                + &message(7, "Heddles and more heddles.")
                + &message(8, "x"),
        )
        .unwrap();
        let (shifted, _) = read_all(&mut mbox, at.as_deref());
        assert_eq!(items(&shifted).len(), 3, "{shifted:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_bad_or_truncated_message_is_named_by_file_and_byte() {
        let dir = scratch("bad");
        let path = dir.join("Sent");
        let broken = "From someone Mon Feb  2 10:00:00 2026\nSubject: nobody sent this\n\nno From header\n\n";
        let cut =
            "From ada@example.com Mon Feb  2 10:00:09 2026\nFrom: ada@example.com\nSubject: cut";
        let first = message(1, "Fine.");
        std::fs::write(
            &path,
            format!("{first}{broken}{}{cut}", message(2, "Also fine.")),
        )
        .unwrap();
        let mut mbox = Mbox::open(&path, sent()).unwrap();
        let (all, _) = read_all(&mut mbox, None);
        assert_eq!(items(&all).len(), 2, "{all:?}");
        let bad: Vec<String> = all
            .iter()
            .filter_map(|found| match found {
                Found::Bad {
                    origin, problem, ..
                } => Some(format!("{origin}: {problem}")),
                _ => None,
            })
            .collect();
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(
            bad[0].ends_with(&format!(
                "Sent: message at byte {}: no From address",
                first.len()
            )),
            "{bad:?}"
        );
        assert!(bad[1].contains("truncated"), "{bad:?}");

        let not_mbox = dir.join("notes.txt");
        std::fs::write(&not_mbox, "Dear Ada,\n").unwrap();
        let refused = Mbox::open(&not_mbox, sent()).unwrap_err().to_string();
        assert!(refused.contains("notes.txt: not an mbox file"), "{refused}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn from_lines_give_a_date_and_are_told_from_text() {
        assert_eq!(
            from_line_date(b"From ada@example.com Mon Feb  2 10:00:00 2026\n")
                .map(|d| d.to_rfc3339()),
            Some("2026-02-02T10:00:00+00:00".to_owned())
        );
        assert!(looks_like_from_line(
            b"From ada@example.com Mon Feb  2 10:00:00 2026\n"
        ));
        assert!(!looks_like_from_line(b"From the start, it was general.\n"));
        assert_eq!(unescaped(b">>From here\n"), b">From here\n");
        assert_eq!(unescaped(b">quoted\n"), b">quoted\n");
        let position = Position {
            offset: 12,
            first: String::new(),
            tail: "ab".to_owned(),
        };
        assert_eq!(Position::parse(&position.to_string()), Some(position));
    }
}
