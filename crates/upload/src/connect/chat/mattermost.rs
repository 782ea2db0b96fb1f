//! `kenning connect mattermost`: a Mattermost bulk export, the JSON Lines
//! file `mmctl export` writes (or the zip it downloads as, whose `.jsonl`
//! is read in place): a `version` line first, then `user`, `bot` and
//! `channel` lines, then a `post` line per thread (the first message and
//! its `replies`), `direct_channel` lines and a `direct_post` line per
//! thread of direct and group messages.
//!
//! Read line by line, as it streams. A thread teaches each of its people
//! their own messages, one item each; bots, system messages (joins,
//! leaves, header changes) and one-word messages teach nobody. Private
//! channels and direct messages are read only when `--include-private` or
//! `--include-direct` names them. A line that is not JSON is reported
//! with its number, and the run goes on.
//!
//! The export writes threads in the order of their random ids, not by
//! channel or time: one person's lone posts of a day cannot be gathered
//! without holding the whole export, so each thread, a lone post too, is
//! its own item.
//!
//! The cursor is the last line handled with a digest of it: a later run
//! reads the lines after it, or, when the file at that path is another
//! export (the line is not the same), everything again, as duplicates.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use zip::ZipArchive;

use super::super::source::{Found, Identity, Source, Window};
use super::markup;
use super::thread::{self, reason, Kind, Message, Root, Scope};

/// The longest line read; a longer one is refused, named by its number.
const MAX_LINE: u64 = 64 << 20;

/// A Mattermost bulk export.
#[derive(Debug)]
pub struct Export {
    path: PathBuf,
    /// The `.jsonl` entry read when the export is a zip.
    entry: Option<String>,
    scope: Scope,
}

#[derive(Debug, Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    user: Option<User>,
    #[serde(default)]
    bot: Option<User>,
    #[serde(default)]
    channel: Option<Channel>,
    #[serde(default)]
    post: Option<Post>,
    #[serde(default)]
    direct_post: Option<Post>,
}

#[derive(Debug, Deserialize)]
struct User {
    username: String,
    #[serde(default)]
    email: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Channel {
    team: String,
    name: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Post {
    #[serde(default)]
    team: Option<String>,
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    channel_members: Option<Vec<String>>,
    #[serde(flatten)]
    said: Said,
    #[serde(default)]
    replies: Option<Vec<Said>>,
}

/// A post or a reply.
#[derive(Debug, Deserialize)]
struct Said {
    user: String,
    #[serde(default)]
    message: String,
    create_at: i64,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    props: Option<Value>,
}

/// Who and what the lines before a post named.
#[derive(Debug, Default)]
struct Known {
    emails: HashMap<String, Option<String>>,
    bots: HashSet<String>,
    channels: HashMap<(String, String), Kind>,
}

/// Where a run resumes: after line `number`, whose digest was `digest`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Resume {
    number: u64,
    digest: String,
}

impl Export {
    /// The export at `path` (a `.jsonl` file, or a zip holding one); an
    /// error in one line when it is neither.
    pub fn open(path: &Path, scope: Scope) -> anyhow::Result<Self> {
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("{}: no such file", path.display()))?;
        let mut magic = [0_u8; 4];
        let read = File::open(&path)
            .and_then(|mut file| file.read(&mut magic))
            .with_context(|| format!("{}: cannot be read", path.display()))?;
        let entry = if read == 4 && magic == *b"PK\x03\x04" {
            let file = File::open(&path)?;
            let zip = ZipArchive::new(BufReader::new(file)).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not a zip file Kenning can read (truncated or damaged?): {e}",
                    path.display()
                )
            })?;
            let mut lines: Vec<&str> = zip
                .file_names()
                .filter(|name| name.ends_with(".jsonl"))
                .collect();
            lines.sort_by_key(|name| (name.matches('/').count(), *name));
            let entry = lines.first().map(|name| (*name).to_owned());
            Some(entry.with_context(|| {
                format!(
                    "{}: not a Mattermost export: the zip holds no .jsonl file",
                    path.display()
                )
            })?)
        } else {
            None
        };
        Ok(Self { path, entry, scope })
    }

    /// The export's lines from the start, with the name lines are reported under.
    fn with_lines<T>(
        &self,
        read: impl FnOnce(&mut dyn BufRead, &str) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let file = File::open(&self.path)
            .with_context(|| format!("{}: cannot be read", self.path.display()))?;
        match &self.entry {
            None => read(&mut BufReader::new(file), &self.path.display().to_string()),
            Some(name) => {
                let mut zip = ZipArchive::new(BufReader::new(file))?;
                let entry = zip
                    .by_name(name)
                    .with_context(|| format!("{} {name}: cannot be read", self.path.display()))?;
                let origin = format!("{} {name}", self.path.display());
                let mut lines = BufReader::new(entry);
                read(&mut lines, &origin)
            }
        }
    }

    /// Reads the lines after `resume` (all when `None`); `Ok(false)` when
    /// the line `resume` names is not the one this export has there.
    fn read_lines(
        &self,
        lines: &mut dyn BufRead,
        origin: &str,
        resume: Option<&Resume>,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<bool> {
        let mut known = Known::default();
        let mut line = Vec::new();
        let mut number = 0_u64;
        let mut before = String::new();
        loop {
            line.clear();
            let whole = next_line(lines, &mut line)
                .with_context(|| format!("{origin} line {}: cannot be read", number + 1))?;
            let Some(whole) = whole else { break };
            number += 1;
            let text = trim_end(&line);
            if number == 1 {
                check_version(text, origin)?;
                continue;
            }
            let after = format!("line {number} {}", digest(text));
            if let Some(resume) = resume.filter(|r| number <= r.number) {
                if number == resume.number && after != format!("line {number} {}", resume.digest) {
                    return Ok(false);
                }
                if !is_post(text) {
                    let _ = self.line(text, &mut known);
                }
                before = after;
                continue;
            }
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let founds = if whole {
                self.line(text, &mut known).unwrap_or_else(|problem| {
                    vec![Found::Bad {
                        origin: format!("{origin} line {number}"),
                        problem,
                        position: None,
                    }]
                })
            } else {
                vec![Found::Bad {
                    origin: format!("{origin} line {number}"),
                    problem: format!("longer than {} MiB", MAX_LINE >> 20),
                    position: None,
                }]
            };
            if !thread::hand_over(founds, &before, &after, found) {
                return Ok(true);
            }
            before = after;
        }
        if resume.is_some_and(|r| number < r.number) {
            return Ok(false);
        }
        Ok(true)
    }

    /// What one line (after the first) gives, learning who and what it
    /// names; an error in one line when it is not JSON.
    fn line(&self, text: &[u8], known: &mut Known) -> Result<Vec<Found>, String> {
        let line: Line = serde_json::from_slice(text)
            .map_err(|e| format!("not a line of a Mattermost export: {e}"))?;
        let kind = line.kind.clone();
        match (kind.as_str(), line) {
            (
                "user",
                Line {
                    user: Some(user), ..
                },
            ) => {
                let email = user.email.filter(|e| !e.trim().is_empty());
                known.emails.insert(user.username, email);
            }
            ("bot", Line { bot: Some(bot), .. }) => {
                known.bots.insert(bot.username);
            }
            (
                "channel",
                Line {
                    channel: Some(channel),
                    ..
                },
            ) => {
                let kind = match channel.kind.as_deref() {
                    Some("O") => Kind::Public,
                    _ => Kind::Private,
                };
                known.channels.insert((channel.team, channel.name), kind);
            }
            (
                "post",
                Line {
                    post: Some(post), ..
                },
            ) => {
                let team = post.team.clone().unwrap_or_default();
                let channel = post.channel.clone().unwrap_or_default();
                // A channel the export does not list is taken for private.
                let kind = known
                    .channels
                    .get(&(team.clone(), channel.clone()))
                    .copied()
                    .unwrap_or(Kind::Private);
                let subject = thread::subject_of(&channel);
                let conversation = format!("{team}/{channel}");
                return Ok(self.thread((&conversation, subject.as_deref()), kind, post, known));
            }
            (
                "direct_post",
                Line {
                    direct_post: Some(post),
                    ..
                },
            ) => {
                let mut members = post.channel_members.clone().unwrap_or_default();
                members.sort();
                let conversation = format!("direct {}", members.join(","));
                return Ok(self.thread((&conversation, None), Kind::Direct, post, known));
            }
            ("user" | "bot" | "channel" | "post" | "direct_post", _) => {
                return Err(format!("a `{kind}` line without its `{kind}` object"));
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    /// What one thread of `conversation` (with its channel's subject, if
    /// any) gives: an item per person, or why it teaches nobody.
    fn thread(
        &self,
        (conversation, subject): (&str, Option<&str>),
        kind: Kind,
        post: Post,
        known: &Known,
    ) -> Vec<Found> {
        if let Some(why) = self.scope.leaves_out(kind) {
            return vec![Found::Skipped {
                reason: why,
                position: None,
            }];
        }
        let root = post.said.create_at.to_string();
        // What the replies answer, unless the first message is the
        // system's (a join has no question in it).
        let system = matches!(
            teaches(&post.said, known),
            Err(reason::JOIN_OR_LEAVE | reason::CHANNEL_CHANGE | reason::EVENT)
        );
        let first = (!system).then(|| Root {
            author: post.said.user.clone(),
            text: markup::without_emoji(&post.said.message).trim().to_owned(),
        });
        let mut founds = Vec::new();
        let mut said = Vec::new();
        for message in std::iter::once(post.said).chain(post.replies.into_iter().flatten()) {
            match teaches(&message, known) {
                Ok(date) => said.push(Message {
                    thread: Some(root.clone()),
                    author: Identity {
                        key: message.user.clone(),
                        email: known.emails.get(&message.user).cloned().flatten(),
                        external_id: None,
                        ..Identity::default()
                    },
                    date,
                    stamp: message.create_at.to_string(),
                    text: markup::without_emoji(&message.message).trim().to_owned(),
                }),
                Err(why) => founds.push(Found::Skipped {
                    reason: why,
                    position: None,
                }),
            }
        }
        let origin = format!("{} {conversation}", self.path.display());
        let root_of = |_: &str| first.clone();
        founds.extend(
            thread::gather(conversation, subject, "", &origin, said, &root_of)
                .into_iter()
                .map(Found::Item),
        );
        founds
    }
}

/// When `message` was written, if it teaches its author; else why not.
fn teaches(message: &Said, known: &Known) -> Result<DateTime<Utc>, &'static str> {
    let kind = message.kind.as_deref().unwrap_or_default();
    if let Some(system) = kind.strip_prefix("system_") {
        return Err(match system {
            "join_channel"
            | "leave_channel"
            | "join_team"
            | "leave_team"
            | "add_to_channel"
            | "remove_from_channel"
            | "add_to_team"
            | "remove_from_team" => reason::JOIN_OR_LEAVE,
            "header_change" | "purpose_change" | "displayname_change" => reason::CHANNEL_CHANGE,
            _ => reason::EVENT,
        });
    }
    let prop = |name: &str| {
        message
            .props
            .as_ref()
            .is_some_and(|props| props[name] == "true" || props[name] == true)
    };
    let written = kind.is_empty() || kind == "me";
    if !written || known.bots.contains(&message.user) || prop("from_bot") || prop("from_webhook") {
        return Err(reason::BOT);
    }
    if is_old_system_message(&message.user, &message.message) {
        return Err(reason::JOIN_OR_LEAVE);
    }
    let date = DateTime::from_timestamp_millis(message.create_at).ok_or(reason::EVENT)?;
    if let Some(why) = thread::unsaid(&message.message) {
        return Err(why);
    }
    Ok(date)
}

/// Whether `message` is what older exports wrote, without a `type`, for
/// a join or a leave (`ron joined the channel.`).
fn is_old_system_message(user: &str, message: &str) -> bool {
    let message = message.trim();
    message.strip_prefix(user).is_some_and(|rest| {
        [
            " joined the channel.",
            " joined the team.",
            " left the channel.",
            " left the team.",
        ]
        .contains(&rest)
    }) || (message.contains(" added to the channel by ")
        && message.ends_with(&format!(" by {user}.")))
        || message.ends_with(" removed from the channel.")
}

/// The first line must say it is an export.
fn check_version(text: &[u8], origin: &str) -> anyhow::Result<()> {
    let first: Value = serde_json::from_slice(text).unwrap_or(Value::Null);
    anyhow::ensure!(
        first["type"] == "version",
        "{origin}: not a Mattermost bulk export: line 1 is not its {{\"type\":\"version\"}} line"
    );
    Ok(())
}

/// Whether a line is a thread's (a cheap look, for lines a resumed run
/// passes over: they are not parsed).
fn is_post(text: &[u8]) -> bool {
    let kind = line_kind(text);
    kind == "post" || kind == "direct_post"
}

/// The `type` a line starts with, as the export writes it
/// (`{"type":"post",...`), or nothing.
fn line_kind(text: &[u8]) -> &str {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.trim_start().strip_prefix("{\"type\":\""))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
}

fn digest(text: &[u8]) -> String {
    let digest = Sha256::digest(text);
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn trim_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// The next line into `line`: `Some(true)` whole, `Some(false)` longer
/// than [`MAX_LINE`] (cut, the rest passed over), `None` at the end.
fn next_line(lines: &mut dyn BufRead, line: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    let read = lines.take(MAX_LINE).read_until(b'\n', line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.ends_with(b"\n") || (read as u64) < MAX_LINE {
        return Ok(Some(true));
    }
    let mut rest = Vec::new();
    loop {
        rest.clear();
        let more = lines.take(MAX_LINE).read_until(b'\n', &mut rest)?;
        if more == 0 || rest.ends_with(b"\n") {
            return Ok(Some(false));
        }
    }
}

impl Source for Export {
    fn kind(&self) -> &'static str {
        "mattermost"
    }

    fn name(&self) -> String {
        format!("{} ({})", self.path.display(), self.scope.describe())
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        _window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let resume = cursor.and_then(|cursor| {
            let mut parts = cursor.split(' ');
            (parts.next()? == "line").then_some(())?;
            Some(Resume {
                number: parts.next()?.parse().ok()?,
                digest: parts.next()?.to_owned(),
            })
        });
        let went = self
            .with_lines(|lines, origin| self.read_lines(lines, origin, resume.as_ref(), found))?;
        if !went {
            // Another export at the same path: everything again, as
            // duplicates of what was sent.
            self.with_lines(|lines, origin| self.read_lines(lines, origin, None, found))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
