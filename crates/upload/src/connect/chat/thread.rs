//! What the chat sources share: which conversations a run reads, which
//! messages teach, and how one person's messages in one thread (or, in
//! Slack, outside threads in one channel on one day) become one item.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::super::source::{Descriptor, Found, Identity, Item, Text};
use super::markup;

/// The entity type of one person's messages in one thread, or in one
/// channel on one day.
pub const ENTITY_TYPE: &str = "chat_thread";
/// The action type of their author.
pub const POSTED: &str = "posted";

/// Why a message or a conversation teaches nobody, as the summary counts it.
pub mod reason {
    /// A message of one word or none (`thanks`, `+1`, an emoji).
    pub const ONE_WORD: &str = "one-word message";
    /// A message of links and at most a word: where something is, not
    /// what anyone knows of it.
    pub const ONLY_A_LINK: &str = "only a link";
    /// Someone joined or left a channel or team.
    pub const JOIN_OR_LEAVE: &str = "join or leave";
    /// A channel's topic, purpose, header or name was set.
    pub const CHANNEL_CHANGE: &str = "topic or name change";
    /// Another event the chat wrote as a message (a pin, a reminder, an
    /// integration added, a deleted message's place).
    pub const EVENT: &str = "not a person's message";
    /// A bot, an app or an integration wrote it.
    pub const BOT: &str = "bot";
    /// A private channel, read only with `--include-private`.
    pub const PRIVATE: &str = "private channel (read with --include-private)";
    /// A direct or group message, read only with `--include-direct`.
    pub const DIRECT: &str = "direct message (read with --include-direct)";
    /// A conversation's folder that none of the export's lists names, so
    /// whether it is public is not known.
    pub const UNLISTED: &str = "a folder no conversation list names";
}

/// Which conversations a run reads besides public channels: the flags
/// that name them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    /// `--include-private`: private channels too.
    pub private: bool,
    /// `--include-direct`: direct and group messages too.
    pub direct: bool,
}

impl Scope {
    /// What is read, as the source's name says it: runs of different
    /// scopes keep cursors of their own.
    pub fn describe(&self) -> &'static str {
        match (self.private, self.direct) {
            (false, false) => "public channels",
            (true, false) => "public and private channels",
            (false, true) => "public channels and direct messages",
            (true, true) => "public and private channels and direct messages",
        }
    }

    /// Why a conversation of `kind` is not read, if it is not.
    pub fn leaves_out(&self, kind: Kind) -> Option<&'static str> {
        match kind {
            Kind::Public => None,
            Kind::Private => (!self.private).then_some(reason::PRIVATE),
            Kind::Direct => (!self.direct).then_some(reason::DIRECT),
        }
    }
}

/// What kind of conversation messages are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A channel anyone may read.
    Public,
    /// A channel its members alone read.
    Private,
    /// A direct message or a group message.
    Direct,
}

/// One message that teaches its author, as a source read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The stamp of its thread's first message, if it is in a thread.
    pub thread: Option<String>,
    /// Who wrote it.
    pub author: Identity,
    /// When.
    pub date: DateTime<Utc>,
    /// The source's stamp of it, unique in its conversation (Slack's
    /// `ts`, Mattermost's `create_at`).
    pub stamp: String,
    /// What it says, as readable text.
    pub text: String,
}

/// A thread's first message, which its other people's messages answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its author's key.
    pub author: String,
    /// What it says.
    pub text: String,
}

/// Why `text` says nothing, if it says no more than one word (mentions,
/// emoji and links not counted): [`reason::ONLY_A_LINK`] when it holds a
/// link, [`reason::ONE_WORD`] otherwise.
pub fn unsaid(text: &str) -> Option<&'static str> {
    let text = markup::without_emoji(text);
    if markup::words(&text) > 1 {
        return None;
    }
    Some(if text.split_whitespace().any(markup::is_link) {
        reason::ONLY_A_LINK
    } else {
        reason::ONE_WORD
    })
}

/// The channels a workspace starts with, which every member is in and
/// which name no subject: Slack's `general` and `random`, Mattermost's
/// `town-square` and `off-topic`.
const NO_SUBJECT: [&str; 4] = ["general", "random", "town-square", "off-topic"];

/// What a channel named `name` is about, as words (`data-viz` as `data
/// viz`): a channel's name is its members' word for its subject. None for
/// a channel a workspace starts with ([`NO_SUBJECT`]).
pub fn subject_of(name: &str) -> Option<String> {
    let name = name.trim().trim_start_matches('#');
    if NO_SUBJECT.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        return None;
    }
    let words = name.replace(['-', '_', '.'], " ");
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    (!words.is_empty()).then_some(words)
}

/// One item per person and thread (or per person outside threads) of
/// `messages`, read together from one unit of the source (a day's file
/// of `conversation`, a line), in the order each person first speaks.
/// `root` gives a thread's first message, which an item of someone else
/// in the thread carries as `secondary` text: what they answered. The
/// conversation's `subject` ([`subject_of`] its channel's name), when it
/// has one, is `secondary` text of every item: where it was said. The
/// id is the conversation, the thread (or `unit`), the person and the
/// stamp of their last message: the same messages read again are the
/// same item, and a thread grown since is a new one. The items'
/// positions are left for [`hand_over`].
pub fn gather(
    conversation: &str,
    subject: Option<&str>,
    unit: &str,
    origin: &str,
    messages: Vec<Message>,
    root: &dyn Fn(&str) -> Option<Root>,
) -> Vec<Item> {
    let mut order: Vec<(Option<String>, Identity)> = Vec::new();
    let mut said: HashMap<(Option<String>, Identity), Vec<Message>> = HashMap::new();
    for message in messages {
        let key = (message.thread.clone(), message.author.clone());
        if !said.contains_key(&key) {
            order.push(key.clone());
        }
        said.entry(key).or_default().push(message);
    }
    order
        .into_iter()
        .filter_map(|key| {
            let messages = said.remove(&key)?;
            let (thread, author) = key;
            let last = messages.last()?;
            let (date, stamp) = (last.date, last.stamp.clone());
            let within = match &thread {
                Some(thread) => format!("the thread {thread}"),
                None => unit.to_owned(),
            };
            let mut texts = vec![Text::plain(
                Descriptor::Default,
                messages
                    .iter()
                    .map(|m| m.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            )];
            if let Some(root) = thread.as_deref().and_then(root) {
                if root.author != author.key {
                    texts.push(Text::plain(Descriptor::Secondary, root.text));
                }
            }
            if let Some(subject) = subject {
                texts.push(Text::plain(Descriptor::Secondary, subject));
            }
            Some(Item {
                id: format!("{conversation} {within} {} {stamp}", author.key),
                origin: format!("{origin}, {}'s messages in {within}", author.key),
                entity_type: ENTITY_TYPE,
                actions: vec![(author, POSTED)],
                date,
                texts,
                position: String::new(),
            })
        })
        .collect()
}

/// Hands `found` what one unit of the source (a day's file, a line) gave,
/// in order: only the last moves the cursor past the unit (`after`); the
/// others leave it where the unit began (`before`), so that a run cut in
/// the middle of the unit reads all of it again. False when `found` wants
/// no more.
pub fn hand_over(
    founds: Vec<Found>,
    before: &str,
    after: &str,
    found: &mut dyn FnMut(Found) -> bool,
) -> bool {
    let last = founds.len().saturating_sub(1);
    for (n, mut next) in founds.into_iter().enumerate() {
        let here = n == last;
        match &mut next {
            Found::Item(item) => {
                item.position = if here { after } else { before }.to_owned();
            }
            Found::Whole(whole) => {
                whole.position = if here { after } else { before }.to_owned();
            }
            Found::Skipped { position, .. } | Found::Bad { position, .. } => {
                *position = here.then(|| after.to_owned());
            }
        }
        if !found(next) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;

    fn person(key: &str) -> Identity {
        Identity {
            key: key.to_owned(),
            email: Some(format!("{key}@example.com")),
            external_id: None,
            ..Identity::default()
        }
    }

    fn said(thread: Option<&str>, who: &str, stamp: u32, text: &str) -> Message {
        Message {
            thread: thread.map(str::to_owned),
            author: person(who),
            date: Utc.timestamp_opt(i64::from(stamp), 0).unwrap(),
            stamp: stamp.to_string(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn one_persons_messages_in_a_thread_or_outside_threads_are_one_item() {
        let root = |thread: &str| {
            (thread == "10").then(|| Root {
                author: "ada".to_owned(),
                text: "How do looms read cards?".to_owned(),
            })
        };
        let items = gather(
            "C1",
            Some("weaving history"),
            "2024-01-31",
            "export.zip looms/2024-01-31.json",
            vec![
                said(None, "ada", 5, "Punched cards arrived"),
                said(Some("10"), "ada", 10, "How do looms read cards?"),
                said(Some("10"), "grace", 11, "Hooks drop through the holes"),
                said(None, "ada", 12, "Stored them in the archive"),
                said(Some("10"), "grace", 13, "and lift the warp threads"),
            ],
            &root,
        );
        let summary: Vec<(String, Vec<(&str, Descriptor)>)> = items
            .iter()
            .map(|item| {
                (
                    item.id.clone(),
                    item.texts
                        .iter()
                        .map(|t| (t.text.as_str(), t.descriptor))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "C1 2024-01-31 ada 12".to_owned(),
                    vec![
                        (
                            "Punched cards arrived\nStored them in the archive",
                            Descriptor::Default
                        ),
                        ("weaving history", Descriptor::Secondary)
                    ]
                ),
                (
                    "C1 the thread 10 ada 10".to_owned(),
                    vec![
                        ("How do looms read cards?", Descriptor::Default),
                        ("weaving history", Descriptor::Secondary)
                    ]
                ),
                (
                    "C1 the thread 10 grace 13".to_owned(),
                    vec![
                        (
                            "Hooks drop through the holes\nand lift the warp threads",
                            Descriptor::Default
                        ),
                        ("How do looms read cards?", Descriptor::Secondary),
                        ("weaving history", Descriptor::Secondary)
                    ]
                ),
            ]
        );
        assert!(items
            .iter()
            .all(|item| item.actions.len() == 1 && item.entity_type == ENTITY_TYPE));
        assert_eq!(items[2].actions[0].0.key, "grace");
        assert_eq!(items[2].date.timestamp(), 13);
    }

    #[test]
    fn a_channels_name_is_its_subject_unless_every_workspace_has_it() {
        assert_eq!(subject_of("data-viz").as_deref(), Some("data viz"));
        assert_eq!(subject_of("#d3_js").as_deref(), Some("d3 js"));
        for none in ["general", "Random", "town-square", "off-topic", "-"] {
            assert_eq!(subject_of(none), None, "{none}");
        }
    }

    #[test]
    fn only_the_last_of_a_unit_moves_the_cursor_past_it() {
        let item = |id: &str| {
            Found::Item(Item {
                id: id.to_owned(),
                origin: String::new(),
                entity_type: ENTITY_TYPE,
                actions: Vec::new(),
                date: Utc.timestamp_opt(0, 0).unwrap(),
                texts: Vec::new(),
                position: String::new(),
            })
        };
        let skipped = Found::Skipped {
            reason: reason::BOT,
            position: None,
        };
        let mut handed = Vec::new();
        assert!(hand_over(
            vec![skipped.clone(), item("a"), item("b")],
            "day 1",
            "day 2",
            &mut |f| {
                handed.push(f);
                true
            }
        ));
        let positions: Vec<Option<String>> = handed
            .iter()
            .map(|f| f.position().map(str::to_owned))
            .collect();
        assert_eq!(
            positions,
            [None, Some("day 1".to_owned()), Some("day 2".to_owned())]
        );
        let mut once = 0;
        assert!(!hand_over(vec![skipped, item("c")], "x", "y", &mut |_| {
            once += 1;
            false
        }));
        assert_eq!(once, 1);
    }

    #[test]
    fn a_run_reads_public_channels_and_what_its_flags_name() {
        let public = Scope::default();
        assert_eq!(public.leaves_out(Kind::Public), None);
        assert_eq!(public.leaves_out(Kind::Private), Some(reason::PRIVATE));
        assert_eq!(public.leaves_out(Kind::Direct), Some(reason::DIRECT));
        let both = Scope {
            private: true,
            direct: true,
        };
        assert_eq!(both.leaves_out(Kind::Private), None);
        assert_eq!(both.leaves_out(Kind::Direct), None);
        assert_ne!(public.describe(), both.describe());
        assert_eq!(unsaid("Hooks lift threads"), None);
        assert_eq!(unsaid("@ada thanks :tada:"), Some(reason::ONE_WORD));
        assert_eq!(
            unsaid("https://github.com/d3/d3/pull/3712"),
            Some(reason::ONLY_A_LINK)
        );
        assert_eq!(
            unsaid("see https://github.com/d3/d3/pull/3712"),
            Some(reason::ONLY_A_LINK)
        );
    }
}
