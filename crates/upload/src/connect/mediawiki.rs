//! `kenning connect mediawiki`: a MediaWiki XML dump with its history (what
//! `Special:Export` with every revision, or `dumpBackup.php --full`,
//! writes; `.xml` or `.xml.gz`), read as it streams.
//!
//! A revision teaches its author from the text it added: its text and its
//! parent's (the revision before it in the dump) are read as a reader sees
//! them (`wikitext::readable`) and compared line by line, then word by
//! word where lines changed (`diff::added`). Minor edits, bots,
//! anonymous (IP) edits, reverts to an earlier text and revisions that
//! add fewer than `--min-words` words teach nobody.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::diff;
use super::source::{Descriptor, Found, Identity, Item, KeyCase, Source, Text, Window};
use super::wikitext;

/// Why a revision whose parent the dump does not hold is skipped.
const PARENT_MISSING: &str = "parent not in the dump";

/// The entity type of a wiki page.
pub const ENTITY_TYPE: &str = "wiki_page";
/// The action type of a revision's author.
pub const EDITED: &str = "edited";
/// The fewest new words that teach, unless `--min-words` says otherwise.
pub const MIN_WORDS: usize = 10;

/// How a dump is read.
#[derive(Debug, Clone)]
pub struct Rules {
    /// The namespaces read (0, the articles, by default).
    pub namespaces: Vec<i64>,
    /// User names that are bots besides those ending in `bot`.
    pub bots: Vec<String>,
    /// The fewest new words that teach.
    pub min_words: usize,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            namespaces: vec![0],
            bots: Vec::new(),
            min_words: MIN_WORDS,
        }
    }
}

/// One dump file.
#[derive(Debug)]
pub struct Dump {
    path: PathBuf,
    rules: Rules,
    bots: HashSet<String>,
}

impl Dump {
    /// The dump at `path`; an error when it cannot be opened or does not
    /// start as a MediaWiki dump.
    pub fn open(path: &Path, rules: Rules) -> anyhow::Result<Self> {
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("{}: no such file", path.display()))?;
        let mut xml = Reader::from_reader(open(&path)?);
        let mut buf = Vec::new();
        loop {
            match xml.read_event_into(&mut buf) {
                Ok(Event::Start(e) | Event::Empty(e)) => {
                    anyhow::ensure!(
                        e.local_name().as_ref() == "mediawiki",
                        "{}: not a MediaWiki XML dump (it starts with <{}>)",
                        path.display(),
                        e.local_name().as_ref()
                    );
                    break;
                }
                Ok(Event::Eof) => {
                    anyhow::bail!("{}: not a MediaWiki XML dump (no element)", path.display())
                }
                Ok(_) => buf.clear(),
                Err(e) => anyhow::bail!("{}: not a MediaWiki XML dump: {e}", path.display()),
            }
        }
        let bots = rules.bots.iter().map(|b| b.trim().to_lowercase()).collect();
        Ok(Self { path, rules, bots })
    }

    fn is_bot(&self, user: &str) -> bool {
        user.ends_with("bot") || user.ends_with("Bot") || self.bots.contains(&user.to_lowercase())
    }
}

/// A file, unpacked as it is read when it is gzip-compressed.
fn open(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let gzip = reader
        .fill_buf()
        .with_context(|| format!("cannot read {}", path.display()))?
        .starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(reader),
        ))
    } else {
        Box::new(reader)
    })
}

/// Where a run resumes: after revision `last` in the dump's order, every
/// revision before it with an id above `highest` being new (revision ids
/// grow with time over the whole wiki, so a later dump's new revisions of
/// pages read before have higher ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Resume {
    last: u64,
    highest: u64,
}

impl Resume {
    fn parse(position: &str) -> Option<Self> {
        match position.split_whitespace().collect::<Vec<_>>()[..] {
            ["revision", last, "highest", highest] => Some(Self {
                last: last.parse().ok()?,
                highest: highest.parse().ok()?,
            }),
            _ => None,
        }
    }

    fn position(&self) -> String {
        format!("revision {} highest {}", self.last, self.highest)
    }
}

/// The page being read.
#[derive(Debug, Default)]
struct Page {
    title: String,
    ns: Option<i64>,
    /// The readable lines of the revision before, once there is one.
    lines: Option<Vec<String>>,
    /// A digest of each text the page had, to know a revert.
    texts: HashSet<u64>,
}

/// The revision being read.
#[derive(Debug, Default)]
struct Revision {
    /// Where it starts in the (unpacked) dump.
    at: u64,
    id: String,
    parent: String,
    timestamp: String,
    username: Option<String>,
    minor: bool,
    text: String,
    /// Its text is hidden (revision deletion): it is not the page's.
    hidden: bool,
}

/// The element whose text is being gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Ns,
    Id,
    ParentId,
    Timestamp,
    Username,
    Text,
}

/// The state of one reading of the dump.
struct Reading<'a> {
    dump: &'a Dump,
    /// Revisions up to here were handled by an earlier run.
    resume: Option<Resume>,
    /// Whether the resume point was passed.
    past: bool,
    /// The highest revision id handed on.
    highest: u64,
    page: Page,
    revision: Option<Revision>,
    field: Option<Field>,
    gathered: String,
}

impl Source for Dump {
    fn warnings(&self, skipped: &BTreeMap<&'static str, u64>) -> Vec<String> {
        let Some(&missing) = skipped.get(PARENT_MISSING) else {
            return Vec::new();
        };
        vec![format!(
            "{missing} revisions were skipped because their parent is not in the dump, so what \
             they added cannot be told apart: the export holds current revisions only. Export \
             the pages with their history (Special:Export without \"Include only the current \
             revision\", or dumpBackup.php --full) to learn who wrote them"
        )]
    }

    fn kind(&self) -> &'static str {
        "mediawiki"
    }

    fn name(&self) -> String {
        let mut name = self.path.display().to_string();
        if self.rules.namespaces != [0] {
            let ns: Vec<String> = self.rules.namespaces.iter().map(i64::to_string).collect();
            name.push_str(&format!(" (namespaces {})", ns.join(", ")));
        }
        name
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        _window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let resume = cursor.and_then(Resume::parse);
        let mut reading = Reading {
            dump: self,
            resume,
            past: resume.is_none(),
            highest: resume.map_or(0, |r| r.highest),
            page: Page::default(),
            revision: None,
            field: None,
            gathered: String::new(),
        };
        let mut xml = Reader::from_reader(open(&self.path)?);
        let mut buf = Vec::new();
        let mut open_elements: Vec<String> = Vec::new();
        let packed = if self.path.extension().is_some_and(|e| e == "gz") {
            " of the unpacked dump"
        } else {
            ""
        };
        loop {
            let at = xml.buffer_position();
            let event = xml.read_event_into(&mut buf).map_err(|e| {
                anyhow::anyhow!(
                    "{}: the dump breaks at byte {}{packed}: {e}",
                    self.path.display(),
                    xml.error_position()
                )
            })?;
            if let Event::Eof = event {
                anyhow::ensure!(
                    open_elements.is_empty(),
                    "{}: the dump breaks off at byte {}{packed}, inside <{}> (a truncated file?)",
                    self.path.display(),
                    xml.buffer_position(),
                    open_elements.last().map_or("", String::as_str)
                );
                return Ok(());
            }
            let went_on = reading.event(event, at, &mut open_elements, found);
            if !went_on {
                return Ok(());
            }
            buf.clear();
        }
    }
}

/// What the revision `revision` of the page `title` is, read in `dump`
/// at `origin`: whom it teaches what it added to `parent` (its parent's
/// readable lines, if the dump has them) to make `lines`, or why it
/// teaches nobody.
fn teaching(
    dump: &Dump,
    title: &str,
    revision: &Revision,
    origin: String,
    parent: Option<&[String]>,
    lines: &[String],
    revert: bool,
) -> Found {
    let skipped = |reason| Found::Skipped {
        reason,
        position: None,
    };
    let Ok(date) = DateTime::parse_from_rfc3339(&revision.timestamp) else {
        return Found::Bad {
            origin,
            problem: format!("a timestamp Kenning cannot read: {:?}", revision.timestamp),
            position: None,
        };
    };
    let Some(user) = revision
        .username
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
    else {
        return skipped("anonymous edit");
    };
    if dump.is_bot(user) {
        return skipped("bot");
    }
    if revision.minor {
        return skipped("minor edit");
    }
    if revert {
        return skipped("revert");
    }
    let parent: Vec<&str> = match parent {
        Some(lines) => lines.iter().map(String::as_str).collect(),
        None if !matches!(revision.parent.as_str(), "" | "0") => return skipped(PARENT_MISSING),
        None => Vec::new(),
    };
    let new: Vec<&str> = lines.iter().map(String::as_str).collect();
    let added = diff::added(&parent, &new);
    if added.words < dump.rules.min_words {
        return skipped("small edit");
    }
    Found::Item(Item {
        id: revision
            .id
            .parse::<u64>()
            .map_or_else(|_| revision.id.clone(), |id| id.to_string()),
        origin,
        entity_type: ENTITY_TYPE,
        actions: vec![(
            Identity {
                key: user.to_owned(),
                case: KeyCase::FirstLetter,
                ..Identity::default()
            },
            EDITED,
        )],
        date: date.with_timezone(&Utc),
        texts: vec![
            Text::plain(Descriptor::Primary, title.to_owned()),
            Text::plain(Descriptor::Default, added.text),
        ],
        position: String::new(),
    })
}

/// The character XML's predefined entity `name` stands for.
fn predefined(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        _ => return None,
    })
}

impl Reading<'_> {
    /// Takes in one event of the dump but its end; false when `found`
    /// wants no more.
    fn event(
        &mut self,
        event: Event<'_>,
        at: u64,
        open_elements: &mut Vec<String>,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> bool {
        match event {
            Event::Start(e) => {
                self.start(&e, open_elements.last(), at);
                open_elements.push(e.local_name().as_ref().to_owned());
                true
            }
            Event::Empty(e) => {
                self.start(&e, open_elements.last(), at);
                self.end(e.local_name().as_ref(), found)
            }
            Event::End(e) => {
                open_elements.pop();
                self.end(e.local_name().as_ref(), found)
            }
            Event::Text(t) => {
                self.gather(&t.xml10_content());
                true
            }
            Event::CData(t) => {
                self.gather(&t.xml10_content());
                true
            }
            Event::GeneralRef(r) => {
                let name = r.xml10_content();
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => predefined(&name).map_or_else(|| format!("&{name};"), str::to_owned),
                };
                self.gather(&resolved);
                true
            }
            _ => true,
        }
    }

    fn start(&mut self, e: &BytesStart<'_>, parent: Option<&String>, at: u64) {
        let parent = parent.map_or("", String::as_str);
        let name = e.local_name();
        let field = match (parent, name.as_ref()) {
            (_, "page") => {
                self.page = Page::default();
                None
            }
            ("page", "revision") => {
                self.revision = Some(Revision {
                    at,
                    ..Revision::default()
                });
                None
            }
            ("page", "title") => Some(Field::Title),
            ("page", "ns") => Some(Field::Ns),
            ("revision", "id") => Some(Field::Id),
            ("revision", "parentid") => Some(Field::ParentId),
            ("revision", "timestamp") => Some(Field::Timestamp),
            ("revision", "minor") => {
                if let Some(revision) = &mut self.revision {
                    revision.minor = true;
                }
                None
            }
            ("revision", "text") => {
                let hidden = e
                    .attributes()
                    .flatten()
                    .any(|a| a.key.local_name().as_ref() == "deleted");
                if let Some(revision) = &mut self.revision {
                    revision.hidden = hidden;
                }
                Some(Field::Text)
            }
            ("contributor", "username") => Some(Field::Username),
            _ => None,
        };
        if field.is_some() {
            self.gathered.clear();
        }
        self.field = field;
    }

    fn gather(&mut self, text: &str) {
        if self.field.is_some() {
            self.gathered.push_str(text);
        }
    }

    /// Ends the element `name`; false when `found` wants no more.
    fn end(&mut self, name: &str, found: &mut dyn FnMut(Found) -> bool) -> bool {
        if let Some(field) = self.field.take() {
            let text = std::mem::take(&mut self.gathered);
            match (field, &mut self.revision) {
                (Field::Title, _) => self.page.title = text,
                (Field::Ns, _) => self.page.ns = text.trim().parse().ok(),
                (Field::Id, Some(r)) => r.id = text.trim().to_owned(),
                (Field::ParentId, Some(r)) => r.parent = text.trim().to_owned(),
                (Field::Timestamp, Some(r)) => r.timestamp = text.trim().to_owned(),
                (Field::Username, Some(r)) => r.username = Some(text),
                (Field::Text, Some(r)) => r.text = text,
                _ => {}
            }
            return true;
        }
        if name != "revision" {
            return true;
        }
        let Some(revision) = self.revision.take() else {
            return true;
        };
        match self.revision_found(revision) {
            Some(f) => found(f),
            None => true,
        }
    }

    /// What a revision just read is, if it is handed on at all: revisions
    /// of other namespaces, outside the window or handled by an earlier
    /// run are not (they are still the next revision's parent).
    fn revision_found(&mut self, revision: Revision) -> Option<Found> {
        let dump = self.dump;
        let in_namespace = dump.rules.namespaces.contains(&self.page.ns.unwrap_or(0));
        let origin = format!(
            "{} revision {} of \"{}\" (byte {})",
            dump.path.display(),
            if revision.id.is_empty() {
                "?"
            } else {
                &revision.id
            },
            self.page.title,
            revision.at
        );
        let Ok(id) = revision.id.parse::<u64>() else {
            return in_namespace.then(|| Found::Bad {
                origin,
                problem: format!("a revision id Kenning cannot read: {:?}", revision.id),
                position: None,
            });
        };
        if revision.hidden {
            // Hidden text is not the page's: the next revision is compared
            // with the one before.
            return self.handed(id, in_namespace, |_| {
                Some(Found::Skipped {
                    reason: "text hidden",
                    position: None,
                })
            });
        }
        let parent_lines = self.page.lines.take();
        let lines = wikitext::readable(&revision.text);
        let digest = {
            let mut hasher = DefaultHasher::new();
            revision.text.hash(&mut hasher);
            hasher.finish()
        };
        let revert = !self.page.texts.insert(digest);
        let found = self.handed(id, in_namespace, |reading| {
            Some(teaching(
                dump,
                &reading.page.title,
                &revision,
                origin,
                parent_lines.as_deref(),
                &lines,
                revert,
            ))
        });
        self.page.lines = Some(lines);
        found
    }

    /// `what(self)` for revision `id` when it is to be handed on (in a
    /// namespace read, not handled by an earlier run), with its position
    /// set; `None` otherwise.
    fn handed(
        &mut self,
        id: u64,
        in_namespace: bool,
        what: impl FnOnce(&Self) -> Option<Found>,
    ) -> Option<Found> {
        if !in_namespace {
            return None;
        }
        if !self.past {
            let resume = self.resume?;
            if id == resume.last {
                self.past = true;
                return None;
            }
            if id <= resume.highest {
                return None;
            }
        }
        let mut found = what(self)?;
        self.highest = self.highest.max(id);
        let position = Resume {
            last: id,
            highest: self.highest,
        }
        .position();
        match &mut found {
            Found::Item(item) => item.position = position,
            Found::Whole(whole) => whole.position = position,
            Found::Skipped { position: p, .. } | Found::Bad { position: p, .. } => {
                *p = Some(position)
            }
        }
        Some(found)
    }
}

#[cfg(test)]
mod tests;
