//! What a source is to the framework: something that reads items, in an
//! order it can resume from, each teaching the people who wrote it.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

/// How a person is named by a source: its own key for them (an e-mail
/// address, a user id, a wiki user name), and what of it may find them in
/// Kenning.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// The source's own key for the person, as an `--identities` file
    /// names them and the report lists them.
    pub key: String,
    /// Their e-mail address, when the source has one.
    pub email: Option<String>,
    /// Their id in the organisation's identity provider, when the source
    /// has one (matched against a user's externalId).
    pub external_id: Option<String>,
    /// How an `--identities` file's key is compared with `key`.
    pub case: KeyCase,
    /// The name the source shows for the person (a commit's author name,
    /// a chat's display name), for the report of the people not found; it
    /// finds nobody, and two identities that differ only in it are one.
    pub name: Option<String>,
}

impl PartialEq for Identity {
    fn eq(&self, other: &Self) -> bool {
        (&self.key, &self.email, &self.external_id, self.case)
            == (&other.key, &other.email, &other.external_id, other.case)
    }
}

impl Eq for Identity {}

impl std::hash::Hash for Identity {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (&self.key, &self.email, &self.external_id, self.case).hash(state);
    }
}

/// How a source compares its keys for people, and so how an
/// `--identities` file's keys are matched to them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum KeyCase {
    /// Without regard to case (addresses, Slack and Q&A ids).
    #[default]
    Any,
    /// As MediaWiki compares user names: the first letter in any case,
    /// the rest exactly, an underscore as a space ("ALICE" is not
    /// "Alice", "alice_b" is "Alice b").
    FirstLetter,
}

impl KeyCase {
    /// `key` as this rule compares it.
    pub fn fold(self, key: &str) -> String {
        let key = key.trim();
        match self {
            KeyCase::Any => key.to_lowercase(),
            KeyCase::FirstLetter => {
                let key = key.replace('_', " ");
                let mut chars = key.chars();
                match chars.next() {
                    Some(first) => first.to_uppercase().chain(chars).collect(),
                    None => String::new(),
                }
            }
        }
    }
}

impl Identity {
    /// A person the source knows by e-mail address alone.
    pub fn by_email(email: &str) -> Self {
        Self {
            key: email.to_owned(),
            email: Some(email.to_owned()),
            external_id: None,
            case: KeyCase::Any,
            name: None,
        }
    }

    /// The same identity, shown in reports under `name` when it says
    /// something (blank names are none).
    #[must_use]
    pub fn named(mut self, name: Option<&str>) -> Self {
        self.name = name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        self
    }
}

/// How much a text weighs in what an item teaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Descriptor {
    /// The item's subject: a title, a commit's subject line.
    Primary,
    /// Its body.
    Default,
    /// What is beside it: changed paths, a question an answer answers.
    Secondary,
}

impl Descriptor {
    /// The connector API's name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Descriptor::Primary => "primary",
            Descriptor::Default => "default",
            Descriptor::Secondary => "secondary",
        }
    }
}

/// One text of an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// Its weight.
    pub descriptor: Descriptor,
    /// Whether it is HTML (else plain text).
    pub html: bool,
    /// The text.
    pub text: String,
}

impl Text {
    /// A plain text.
    pub fn plain(descriptor: Descriptor, text: impl Into<String>) -> Self {
        Self {
            descriptor,
            html: false,
            text: text.into(),
        }
    }
}

/// One thing a source read that teaches the people who took part in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The source's stable id of it (a commit's hash, a message's
    /// Message-ID, a post's id): each upload's `action_alias` is derived
    /// from it, so a repeated run is a duplicate, never a second lesson.
    pub id: String,
    /// Where it was found, for a one-line error: a file and position, or
    /// the item's id in the source.
    pub origin: String,
    /// The connector API's `entity_type`.
    pub entity_type: &'static str,
    /// Who it teaches, each with the `action_type` of what they did; an
    /// upload each.
    pub actions: Vec<(Identity, &'static str)>,
    /// When it was written.
    pub date: DateTime<Utc>,
    /// What it says.
    pub texts: Vec<Text>,
    /// Where a run that has handled everything up to this item resumes.
    pub position: String,
}

/// An upload a source holds whole (a line of a JSON Lines file, a file
/// of a folder with its fields): sent as it is, to the person it names,
/// whom the server finds.
#[derive(Debug, Clone, PartialEq)]
pub struct Whole {
    /// Its key in `kenning upload`'s checkpoint: a digest of where it comes
    /// from and what it holds.
    pub key: String,
    /// Where it was found (`line 12`, a file's path).
    pub origin: String,
    /// The upload as the connector API takes it.
    pub body: serde_json::Value,
    /// Where a run that has handled everything up to it resumes.
    pub position: String,
}

/// What a source hands the framework, in its reading order.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// An item that may teach someone.
    Item(Item),
    /// An upload written whole: no people to find, no window to check.
    Whole(Whole),
    /// Something read that teaches nobody by the source's rules (a merge
    /// commit, a bot, received mail, a one-word reply), counted by reason.
    Skipped {
        /// Why, in a few words ("merge commit").
        reason: &'static str,
        /// Where a run resumes once this is passed.
        position: Option<String>,
    },
    /// Something that could not be read (a malformed line, a corrupt
    /// message): reported with where it is, and the run goes on.
    Bad {
        /// The file and position, or the item's id.
        origin: String,
        /// What is wrong, in one line.
        problem: String,
        /// Where a run resumes once this is passed.
        position: Option<String>,
    },
}

impl Found {
    /// Where a run that has handled everything up to this resumes.
    pub fn position(&self) -> Option<&str> {
        match self {
            Found::Item(Item { position, .. }) | Found::Whole(Whole { position, .. }) => {
                Some(position)
            }
            Found::Skipped { position, .. } | Found::Bad { position, .. } => position.as_deref(),
        }
    }
}

/// The span of time a backfill reads, both ends included; unbounded when
/// neither is given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// Nothing written before.
    pub since: Option<DateTime<Utc>>,
    /// Nothing written after.
    pub until: Option<DateTime<Utc>>,
}

impl Window {
    /// Whether either end is set: a backfill, which reads without the
    /// cursor and leaves it as it is.
    pub fn is_bounded(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether `date` lies inside.
    pub fn contains(&self, date: DateTime<Utc>) -> bool {
        self.since.is_none_or(|since| date >= since) && self.until.is_none_or(|until| date <= until)
    }
}

/// A source of items: one module each (git, mail, chat, wiki, Q&A).
pub trait Source: Send {
    /// The kind, as runs are reported (`git`, `mail`, ...).
    fn kind(&self) -> &'static str;

    /// Which one (a repository's path, a mailbox): the cursor and the
    /// run's report are kept under it.
    fn name(&self) -> String;

    /// Hands `found` every item after `cursor` (from the beginning when
    /// `None`, or when the cursor no longer names anything the source
    /// has) and inside `window`, in reading order, until `found` answers
    /// false. Reads as it goes: memory stays bounded whatever the
    /// source's size. An error is a source that cannot be read at all
    /// (not a repository, a wrong password): the run stops with it; a bad
    /// item is [`Found::Bad`], and the run goes on.
    fn read(
        &mut self,
        cursor: Option<&str>,
        window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()>;

    /// The names the people of `keys` go by in the source, where its keys
    /// are not names (a Q&A site's user ids), for the report of the people
    /// not found; none by default.
    fn display_names(&self, _keys: &[&str]) -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    /// The choices that shape what a run of this source teaches (a mail
    /// folder's `--sender` addresses), beside its name: a run with other
    /// choices keeps a cursor of its own, so it reads what the first did
    /// not take. None by default.
    fn choices(&self) -> String {
        String::new()
    }

    /// How many items a run will read, when the source knows before
    /// reading (a progress bar then shows how far it got); none by
    /// default.
    fn total(&self) -> Option<u64> {
        None
    }

    /// What the operator should check after a run that skipped
    /// `skipped` (by reason), one line each (a repository's `.mailmap`
    /// moving people to other addresses, a wiki's export without its
    /// history); none by default.
    fn warnings(&self, _skipped: &BTreeMap<&'static str, u64>) -> Vec<String> {
        Vec::new()
    }
}

/// The most changed paths of one item sent (a commit, a patch in a
/// mail): one touching more is a sweep (a rename, a formatting run),
/// whose paths say little of anyone.
pub const MAX_PATHS: usize = 50;

/// Changed paths as words a reader (and the topic extractor) takes in:
/// one path a line, the lines a list (ending in `,`), its folders and then
/// its file name's words apart (`/`), the file name without its extension
/// and with `_`, `-` and `.` read as spaces (`sway/input/text_input.c` is
/// "sway/input/text input"), as a person reads the name; a dot file is
/// its name (`.gitignore` is "gitignore"). Each folder and each file
/// name is a name of its own: read as one run of words, a path's folders
/// and the next path's would make phrases of words no name joins
/// ("sway input text").
pub fn paths_as_words(paths: &[&str]) -> String {
    paths
        .iter()
        .map(|path| {
            let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            let file = parts.pop().map(file_name_words).unwrap_or_default();
            parts.push(&file);
            parts.retain(|p| !p.is_empty());
            parts.join("/")
        })
        .collect::<Vec<_>>()
        .join(",\n")
}

/// The words of the file name `name`: without its extension, `_`, `-`
/// and `.` read as spaces.
fn file_name_words(name: &str) -> String {
    let bare = name.trim_start_matches('.');
    let stem = match bare.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => bare,
    };
    stem.split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a trailer that follows words of their own begins in `line`: at
/// a word such as `Acked-by:` ([`is_trailer_token`]).
pub fn trailer_start(line: &str) -> Option<usize> {
    line.match_indices(' ').map(|(at, _)| at + 1).find(|&at| {
        let word = line[at..].split(' ').next().unwrap_or_default();
        word.strip_suffix(':').is_some_and(is_trailer_token)
    })
}

/// `line` up to a trailer that follows words of its own, if any; a line
/// that is a trailer whole is nothing.
pub fn before_trailer(line: &str) -> &str {
    if trailer(line).is_some() {
        return "";
    }
    trailer_start(line).map_or(line, |at| &line[..at])
}

/// Whether `word` is a trailer's token that names people for what they
/// did to a patch (`Acked-by`, `Signed-off-by`, `Co-developed-by`): a
/// participle before `-by`. Such a word names a step of the review, not a
/// subject, even in a sentence ("could I get an acked-by?"); `stand-by`
/// and `passer-by` are words.
pub fn is_trailer_token(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.strip_suffix("-by").is_some_and(|did| {
        did.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
            && (did.ends_with("ed") || did.ends_with("-off"))
    })
}

/// Trailer tokens that end in neither `-by` nor `-to` but name people,
/// links or tracking ids, not the subject.
const TRAILERS: &[&str] = &[
    "cc",
    "link",
    "closes",
    "fixes",
    "refs",
    "bug",
    "change-id",
    "message-id",
    "references",
    "in-reply-to",
    "patchwork-id",
];

/// The token and value of `line` when it is a trailer, as a commit and a
/// patch mail end with them: `Token: value`, the token ending in `-by` or
/// `-to` (`Signed-off-by`, `Co-authored-by`, `Sent-to`) or a listed one
/// (`Cc`, `Link`, `Fixes`, ...), in any case.
pub fn trailer(line: &str) -> Option<(&str, &str)> {
    let (token, value) = line.trim().split_once(':')?;
    let lower = token.to_ascii_lowercase();
    let is_trailer = !value.trim().is_empty()
        && !lower.is_empty()
        && lower.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && (lower.ends_with("-by") || lower.ends_with("-to") || TRAILERS.contains(&lower.as_str()));
    is_trailer.then(|| (token, value.trim()))
}

/// The first `chars` characters of `text`: cut at a character boundary,
/// never inside one.
pub(crate) fn cut(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(at, _)| &text[..at])
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn wiki_names_compare_as_mediawiki_compares_them() {
        use super::KeyCase;
        let wiki = |key| KeyCase::FirstLetter.fold(key);
        assert_eq!(wiki("alice"), wiki("Alice"));
        assert_eq!(wiki("alice_b"), "Alice b");
        assert_ne!(wiki("ALICE"), wiki("Alice"));
        assert_eq!(KeyCase::Any.fold("ALICE"), KeyCase::Any.fold("alice"));
    }

    #[test]
    fn a_line_that_only_looks_like_a_trailer_is_none() {
        use super::trailer;
        assert!(trailer("Cc: stable@vger.kernel.org").is_some());
        assert_eq!(
            trailer("Tested-by: Ada <ada@example.com>"),
            Some(("Tested-by", "Ada <ada@example.com>"))
        );
        assert!(trailer("Note: the cache is cold").is_none());
        assert!(trailer("Signed-off-by:").is_none());
    }

    #[test]
    fn text_is_cut_at_a_character_boundary() {
        assert_eq!(cut("\u{e9}\u{e9}\u{e9}", 2), "\u{e9}\u{e9}");
        assert_eq!(cut("ab", 12), "ab");
    }
}
