//! `kenning connect slack`: a Slack workspace export, the zip an
//! administrator downloads (or the folder it unzips to): `users.json`,
//! the conversations' lists (`channels.json` public, `groups.json`
//! private, `dms.json` and `mpims.json` direct), and a folder per
//! conversation with a file per day (`general/2024-01-31.json`, an array
//! of messages).
//!
//! The day files are read oldest first, every conversation of a day
//! before the next day, one file at a time. A message teaches its author
//! alone; one person's messages of a day's file in one thread, or outside
//! threads, are one item. Bots, joins and leaves, topic changes and other
//! events, and one-word messages teach nobody. Private channels and
//! direct messages are read only when `--include-private` or
//! `--include-direct` names them.
//!
//! The cursor is the last day file handled, with a digest of that day's
//! files up to it: a later run reads the days after it, and that day again
//! when a newer export holds more of it (an export taken during a day
//! holds part of it).

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use anyhow::Context as _;
use chrono::{DateTime, Days, NaiveDate, Utc};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::super::source::{Found, Identity, Source, Window};
use super::archive::Archive;
use super::markup::{self, Reference};
use super::thread::{self, reason, Kind, Message, Root, Scope};

/// The most of one day file read; a larger one is refused, named.
const MAX_DAY_FILE: u64 = 256 << 20;
/// Thread first messages kept for their later replies to carry.
const ROOTS_KEPT: usize = 10_000;
/// The most of a thread's first message its replies carry.
const ROOT_CHARS: usize = 2_000;
/// Slackbot's user id: a bot, though `users.json` does not say so.
const SLACKBOT: &str = "USLACKBOT";

/// A Slack export.
#[derive(Debug)]
pub struct Export {
    archive: Archive,
    /// The folder of the export inside the zip (`""`, or `name/` when the
    /// zip was made of a folder).
    root: String,
    scope: Scope,
    /// The workspace's id, from `users.json`: the cursor outlives one
    /// export file.
    workspace: Option<String>,
    people: HashMap<String, Person>,
    /// By folder name (a channel's name, a direct message's id).
    conversations: HashMap<String, Conversation>,
    /// A channel's name by its id, for `<#C123>`.
    channel_names: HashMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct RawUser {
    id: String,
    #[serde(default)]
    team_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    is_bot: bool,
    #[serde(default)]
    profile: RawProfile,
}

#[derive(Debug, Default, Deserialize)]
struct RawProfile {
    #[serde(default)]
    email: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawConversation {
    id: String,
    #[serde(default)]
    name: Option<String>,
    /// The channel every member is in, whatever it was renamed to.
    #[serde(default)]
    is_general: bool,
}

#[derive(Debug, Deserialize)]
struct RawMessage {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    subtype: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    ts: Option<String>,
    #[serde(default)]
    thread_ts: Option<String>,
    #[serde(default)]
    bot_id: Option<Value>,
    #[serde(default)]
    files: Option<Vec<Value>>,
}

#[derive(Debug, Clone)]
struct Person {
    name: Option<String>,
    email: Option<String>,
    bot: bool,
}

#[derive(Debug, Clone)]
struct Conversation {
    id: String,
    kind: Kind,
    /// What a channel is about: its name as words
    /// ([`subject_of`](thread::subject_of)); none for a direct message
    /// or the general channel.
    subject: Option<String>,
}

/// A day file: its day, its conversation's folder, its name in the archive.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct DayFile {
    day: NaiveDate,
    folder: String,
    name: String,
}

impl Export {
    /// The export at `path` (a zip file or a folder), reading what `scope`
    /// names besides public channels; an error in one line when it is not
    /// a Slack export Kenning can read.
    pub fn open(path: &Path, scope: Scope) -> anyhow::Result<Self> {
        let archive = Archive::open(path)?;
        let names = archive.names()?;
        let root = names
            .iter()
            .filter_map(|name| name.strip_suffix("channels.json"))
            .filter(|prefix| prefix.is_empty() || prefix.ends_with('/'))
            .min_by_key(|prefix| prefix.matches('/').count())
            .map(str::to_owned)
            .with_context(|| {
                format!(
                    "{}: not a Slack export: it holds no channels.json",
                    archive.path().display()
                )
            })?;
        let mut export = Self {
            archive,
            root,
            scope,
            workspace: None,
            people: HashMap::new(),
            conversations: HashMap::new(),
            channel_names: HashMap::new(),
        };
        let users = ["users.json", "org_users.json"]
            .into_iter()
            .find(|file| names.contains(&format!("{}{file}", export.root)));
        if let Some(file) = users {
            for user in export.list::<RawUser>(file)? {
                export.workspace = export.workspace.take().or(user.team_id);
                let email = user.profile.email.filter(|e| !e.trim().is_empty());
                let person = Person {
                    name: user.name,
                    email,
                    bot: user.is_bot,
                };
                export.people.insert(user.id, person);
            }
        }
        for (file, kind) in [
            ("channels.json", Kind::Public),
            ("groups.json", Kind::Private),
            ("dms.json", Kind::Direct),
            ("mpims.json", Kind::Direct),
        ] {
            if file != "channels.json" && !names.contains(&format!("{}{file}", export.root)) {
                continue;
            }
            for listed in export.list::<RawConversation>(file)? {
                let named = listed.name.as_deref().filter(|_| !listed.is_general);
                let conversation = Conversation {
                    id: listed.id.clone(),
                    kind,
                    subject: named
                        .filter(|_| kind != Kind::Direct)
                        .and_then(thread::subject_of),
                };
                if let Some(name) = listed.name {
                    export.channel_names.insert(listed.id.clone(), name.clone());
                    export
                        .conversations
                        .entry(name)
                        .or_insert_with(|| conversation.clone());
                }
                export
                    .conversations
                    .entry(listed.id)
                    .or_insert(conversation);
            }
        }
        Ok(export)
    }

    /// The array of `T` in the export's file `file`, read as it streams.
    fn list<T: DeserializeOwned>(&mut self, file: &str) -> anyhow::Result<Vec<T>> {
        let name = format!("{}{file}", self.root);
        let origin = format!("{} {name}", self.archive.path().display());
        let reader = self
            .archive
            .open_file(&name)
            .with_context(|| format!("{origin}: cannot be read"))?;
        serde_json::from_reader(std::io::BufReader::new(reader))
            .with_context(|| format!("{origin}: not the list Slack exports"))
    }

    /// The export's day files, oldest first, each day's by folder.
    fn day_files(&self) -> anyhow::Result<Vec<DayFile>> {
        let mut files: Vec<DayFile> = self
            .archive
            .names()?
            .into_iter()
            .filter_map(|name| {
                let inner = name.strip_prefix(&self.root)?;
                let (folder, file) = inner.split_once('/')?;
                let day = file.strip_suffix(".json")?;
                let day = NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
                Some(DayFile {
                    day,
                    folder: folder.to_owned(),
                    name,
                })
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// Where a run starts: after the file the cursor names when its day's
    /// files up to it are as they were, else at the start of its day.
    fn start(&mut self, cursor: Option<&str>, files: &[DayFile]) -> Option<(NaiveDate, String)> {
        let mut parts = cursor?.split(' ');
        let day = NaiveDate::parse_from_str(parts.next()?, "%Y-%m-%d").ok()?;
        let folder = parts.next()?.to_owned();
        let digest = parts.next()?;
        Some(if self.digest_up_to(files, day, &folder).hex() == digest {
            (day, folder)
        } else {
            (day, String::new())
        })
    }

    /// The digest of `day`'s files this run reads, up to `folder`'s.
    fn digest_up_to(&mut self, files: &[DayFile], day: NaiveDate, folder: &str) -> DayDigest {
        let mut digest = DayDigest::default();
        for file in files
            .iter()
            .filter(|f| f.day == day && f.folder.as_str() <= folder)
        {
            if self.read_here(&file.folder).is_ok() {
                digest.add(&self.archive.fingerprint(&file.name));
            }
        }
        digest
    }

    /// The conversation of `folder`, if this run reads it; else why not.
    fn read_here(&self, folder: &str) -> Result<&Conversation, &'static str> {
        let conversation = self.conversations.get(folder).ok_or(reason::UNLISTED)?;
        match self.scope.leaves_out(conversation.kind) {
            Some(why) => Err(why),
            None => Ok(conversation),
        }
    }

    /// What one day file gives.
    fn day(
        &mut self,
        file: &DayFile,
        conversation: &Conversation,
        roots: &mut Roots,
    ) -> Vec<Found> {
        let origin = format!("{} {}", self.archive.path().display(), file.name);
        let bad = |problem: String| {
            vec![Found::Bad {
                origin: origin.clone(),
                problem,
                position: None,
            }]
        };
        let content = match self.archive.read(&file.name, MAX_DAY_FILE) {
            Ok(content) => content,
            Err(e) => return bad(format!("cannot be read: {e}")),
        };
        let messages: Vec<Value> = match serde_json::from_slice(&content) {
            Ok(messages) => messages,
            Err(e) => return bad(format!("not a JSON array of messages: {e}")),
        };
        drop(content);
        let mut founds = Vec::new();
        let mut said = Vec::new();
        for (n, raw) in messages.into_iter().enumerate() {
            match self.message(raw, conversation, roots) {
                Ok(message) => said.push(message),
                Err(Unread::Skipped(reason)) => founds.push(Found::Skipped {
                    reason,
                    position: None,
                }),
                Err(Unread::Bad(problem)) => founds.push(Found::Bad {
                    origin: format!("{origin} message {}", n + 1),
                    problem,
                    position: None,
                }),
            }
        }
        let unit = format!("the day {}", file.day);
        let root_of = |thread: &str| roots.get(&conversation.id, thread);
        founds.extend(
            thread::gather(
                &conversation.id,
                conversation.subject.as_deref(),
                &unit,
                &origin,
                said,
                &root_of,
            )
            .into_iter()
            .map(Found::Item),
        );
        founds
    }

    /// One message, or why it teaches nobody or cannot be read.
    fn message(
        &self,
        raw: Value,
        conversation: &Conversation,
        roots: &mut Roots,
    ) -> Result<Message, Unread> {
        let raw: RawMessage = serde_json::from_value(raw)
            .map_err(|e| Unread::Bad(format!("not a message Kenning can read: {e}")))?;
        let ts = raw.ts.clone().unwrap_or_default();
        let date = slack_time(&ts)
            .ok_or_else(|| Unread::Bad(format!("`ts` {ts:?} is not seconds since 1970")))?;
        let text = self.readable(&raw);
        if raw.thread_ts.as_deref() == Some(ts.as_str()) {
            let author = raw.user.as_deref().unwrap_or_default();
            roots.keep(&conversation.id, &ts, author, &text);
        }
        if raw.kind.as_deref().is_some_and(|kind| kind != "message") {
            return Err(Unread::Skipped(reason::EVENT));
        }
        match raw.subtype.as_deref() {
            None | Some("me_message" | "thread_broadcast" | "file_share") => {}
            Some(subtype) => return Err(Unread::Skipped(event(subtype))),
        }
        let Some(user) = raw.user.as_deref() else {
            return Err(Unread::Skipped(reason::EVENT));
        };
        let person = self.people.get(user);
        if raw.bot_id.as_ref().is_some_and(|id| !id.is_null())
            || user == SLACKBOT
            || person.is_some_and(|p| p.bot)
        {
            return Err(Unread::Skipped(reason::BOT));
        }
        if let Some(why) = thread::unsaid(&text) {
            return Err(Unread::Skipped(why));
        }
        Ok(Message {
            thread: raw.thread_ts,
            author: Identity {
                key: user.to_owned(),
                email: person.and_then(|p| p.email.clone()),
                external_id: None,
                ..Identity::default()
            }
            .named(person.and_then(|p| p.name.as_deref())),
            date,
            stamp: ts,
            text,
        })
    }

    /// A message's text as readable text, with the titles of the files it
    /// shares.
    fn readable(&self, raw: &RawMessage) -> String {
        let name = |reference: Reference<'_>| match reference {
            Reference::Person(id) => self.people.get(id).and_then(|p| p.name.clone()),
            Reference::Channel(id) => self.channel_names.get(id).cloned(),
        };
        let mut text = markup::slack_text(raw.text.as_deref().unwrap_or_default(), &name);
        for file in raw.files.iter().flatten() {
            if let Some(title) = file["title"].as_str().filter(|t| !text.contains(t)) {
                text.push('\n');
                text.push_str(title);
            }
        }
        text.trim().to_owned()
    }
}

/// A message that teaches nobody, and why, or cannot be read, and why.
#[derive(Debug)]
enum Unread {
    Skipped(&'static str),
    Bad(String),
}

/// Why a message of `subtype` (other than a person's words) teaches nobody.
fn event(subtype: &str) -> &'static str {
    match subtype {
        "bot_message" => reason::BOT,
        "channel_join" | "channel_leave" | "group_join" | "group_leave" => reason::JOIN_OR_LEAVE,
        "channel_topic" | "channel_purpose" | "channel_name" | "group_topic" | "group_purpose"
        | "group_name" => reason::CHANNEL_CHANGE,
        _ => reason::EVENT,
    }
}

/// Slack's `ts` (`"1706700000.000100"`, seconds since 1970) as a moment.
fn slack_time(ts: &str) -> Option<DateTime<Utc>> {
    let (seconds, fraction) = ts.split_once('.').unwrap_or((ts, "0"));
    let seconds: i64 = seconds.parse().ok()?;
    let micros: u32 = format!("{fraction:0<6}").get(..6)?.parse().ok()?;
    DateTime::from_timestamp(seconds, micros * 1_000)
}

/// A digest of a day's files read so far, each by its fingerprint.
#[derive(Debug, Default)]
struct DayDigest(Sha256);

impl DayDigest {
    fn add(&mut self, fingerprint: &str) {
        self.0.update(fingerprint.as_bytes());
        self.0.update(b"\n");
    }

    fn hex(&self) -> String {
        let digest = self.0.clone().finalize();
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

/// The first messages of recent threads, for their replies on later days.
#[derive(Debug, Default)]
struct Roots {
    by_thread: HashMap<(String, String), Root>,
    order: VecDeque<(String, String)>,
}

impl Roots {
    fn keep(&mut self, conversation: &str, ts: &str, author: &str, text: &str) {
        let key = (conversation.to_owned(), ts.to_owned());
        let root = Root {
            author: author.to_owned(),
            text: text.chars().take(ROOT_CHARS).collect(),
        };
        if self.by_thread.insert(key.clone(), root).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > ROOTS_KEPT {
            if let Some(oldest) = self.order.pop_front() {
                self.by_thread.remove(&oldest);
            }
        }
    }

    fn get(&self, conversation: &str, ts: &str) -> Option<Root> {
        self.by_thread
            .get(&(conversation.to_owned(), ts.to_owned()))
            .cloned()
    }
}

impl Source for Export {
    fn kind(&self) -> &'static str {
        "slack"
    }

    fn name(&self) -> String {
        let which = match &self.workspace {
            Some(workspace) => format!("workspace {workspace}"),
            None => self.archive.path().display().to_string(),
        };
        format!("{which} ({})", self.scope.describe())
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let files = self.day_files()?;
        let start = self.start(cursor, &files);
        let mut before = cursor.unwrap_or_default().to_owned();
        let mut roots = Roots::default();
        let mut digest = DayDigest::default();
        let mut digest_day = None;
        for file in &files {
            if let Some((day, folder)) = &start {
                if file.day < *day || (file.day == *day && file.folder <= *folder) {
                    continue;
                }
            }
            if !day_may_hold(file.day, window) {
                continue;
            }
            if digest_day != Some(file.day) {
                digest_day = Some(file.day);
                digest = match &start {
                    Some((day, folder)) if *day == file.day => {
                        self.digest_up_to(&files, *day, folder)
                    }
                    _ => DayDigest::default(),
                };
            }
            let founds = match self.read_here(&file.folder).cloned() {
                Ok(conversation) => {
                    digest.add(&self.archive.fingerprint(&file.name));
                    self.day(file, &conversation, &mut roots)
                }
                Err(why) => vec![Found::Skipped {
                    reason: why,
                    position: None,
                }],
            };
            let after = format!("{} {} {}", file.day, file.folder, digest.hex());
            if !thread::hand_over(founds, &before, &after, found) {
                return Ok(());
            }
            before = after;
        }
        Ok(())
    }
}

/// Whether a day's file may hold a message inside `window` (a day early
/// or late, as its day is the workspace's, not UTC's).
fn day_may_hold(day: NaiveDate, window: &Window) -> bool {
    let early = day.checked_sub_days(Days::new(1)).unwrap_or(day);
    let late = day.checked_add_days(Days::new(2)).unwrap_or(day);
    let start = early.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    let end = late.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    window
        .since
        .is_none_or(|since| end.is_none_or(|end| end > since))
        && window
            .until
            .is_none_or(|until| start.is_none_or(|start| start <= until))
}

#[cfg(test)]
mod tests;
