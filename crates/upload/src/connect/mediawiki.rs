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

use std::collections::HashSet;
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
    window: &'a Window,
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
        window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let resume = cursor.and_then(Resume::parse);
        let mut reading = Reading {
            dump: self,
            window,
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
            let went_on = match event {
                Event::Start(e) => {
                    reading.start(&e, open_elements.last(), at);
                    open_elements.push(e.local_name().as_ref().to_owned());
                    true
                }
                Event::Empty(e) => {
                    reading.start(&e, open_elements.last(), at);
                    reading.end(e.local_name().as_ref(), found)
                }
                Event::End(e) => {
                    open_elements.pop();
                    reading.end(e.local_name().as_ref(), found)
                }
                Event::Text(t) => {
                    reading.gather(&t.xml10_content());
                    true
                }
                Event::CData(t) => {
                    reading.gather(&t.xml10_content());
                    true
                }
                Event::GeneralRef(r) => {
                    let name = r.xml10_content();
                    let resolved = match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => predefined(&name).map_or_else(|| format!("&{name};"), str::to_owned),
                    };
                    reading.gather(&resolved);
                    true
                }
                Event::Eof => {
                    anyhow::ensure!(
                        open_elements.is_empty(),
                        "{}: the dump breaks off at byte {}{packed}, inside <{}> (a truncated file?)",
                        self.path.display(),
                        xml.buffer_position(),
                        open_elements.last().map_or("", String::as_str)
                    );
                    return Ok(());
                }
                _ => true,
            };
            if !went_on {
                return Ok(());
            }
            buf.clear();
        }
    }
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
            let skipped = |reason| {
                Some(Found::Skipped {
                    reason,
                    position: None,
                })
            };
            let date = match DateTime::parse_from_rfc3339(&revision.timestamp) {
                Ok(date) => date.with_timezone(&Utc),
                Err(_) => {
                    return Some(Found::Bad {
                        origin: origin.clone(),
                        problem: format!(
                            "a timestamp Kenning cannot read: {:?}",
                            revision.timestamp
                        ),
                        position: None,
                    })
                }
            };
            if !reading.window.contains(date) {
                return None;
            }
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
            let parent: Vec<&str> = match &parent_lines {
                Some(lines) => lines.iter().map(String::as_str).collect(),
                None if !matches!(revision.parent.as_str(), "" | "0") => {
                    return skipped("parent not in the dump")
                }
                None => Vec::new(),
            };
            let new: Vec<&str> = lines.iter().map(String::as_str).collect();
            let added = diff::added(&parent, &new);
            if added.words < dump.rules.min_words {
                return skipped("small edit");
            }
            Some(Found::Item(Item {
                id: id.to_string(),
                origin: origin.clone(),
                entity_type: ENTITY_TYPE,
                actions: vec![(
                    Identity {
                        key: user.to_owned(),
                        case: KeyCase::FirstLetter,
                        ..Identity::default()
                    },
                    EDITED,
                )],
                date,
                texts: vec![
                    Text::plain(Descriptor::Primary, reading.page.title.clone()),
                    Text::plain(Descriptor::Default, added.text),
                ],
                position: String::new(),
            }))
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
            Found::Skipped { position: p, .. } | Found::Bad { position: p, .. } => {
                *p = Some(position)
            }
        }
        Some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A revision's XML: `who` a user name, or an address for an IP.
    fn revision(id: u64, parent: u64, who: &str, minor: bool, text: &str) -> String {
        let contributor = if who.contains('.') {
            format!("<ip>{who}</ip>")
        } else {
            format!("<username>{who}</username><id>{id}</id>")
        };
        let parent = if parent == 0 {
            String::new()
        } else {
            format!("<parentid>{parent}</parentid>")
        };
        format!(
            "<revision><id>{id}</id>{parent}<timestamp>2024-03-0{}T10:00:00Z</timestamp>\
             <contributor>{contributor}</contributor>{}<comment>c</comment><model>wikitext</model>\
             <format>text/x-wiki</format><text bytes=\"{}\" xml:space=\"preserve\">{}</text></revision>\n",
            id % 9 + 1,
            if minor { "<minor />" } else { "" },
            text.len(),
            text.replace('&', "&amp;").replace('<', "&lt;")
        )
    }

    const INTRO: &str = "'''Espresso''' is coffee brewed by forcing hot water through [[Coffee bean|finely ground beans]].";

    fn dump(pages: &[(&str, i64, Vec<String>)]) -> String {
        let mut xml = String::from(
            "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\" xml:lang=\"en\">\n\
             <siteinfo><sitename>Brew</sitename><base>https://wiki.example/wiki/Main_Page</base></siteinfo>\n",
        );
        for (title, ns, revisions) in pages {
            xml.push_str(&format!(
                "<page><title>{title}</title><ns>{ns}</ns><id>1</id>\n"
            ));
            for r in revisions {
                xml.push_str(r);
            }
            xml.push_str("</page>\n");
        }
        xml.push_str("</mediawiki>\n");
        xml
    }

    fn history() -> String {
        let typo = INTRO.replace("hot water", "hot watr");
        let section = format!(
            "{INTRO}\n\n== Crema ==\nThe crema is a foam of emulsified oils and carbon dioxide on top of a shot.{{{{cn}}}}"
        );
        dump(&[
            (
                "Espresso",
                0,
                vec![
                    revision(10, 0, "Ada", false, &typo),
                    revision(11, 10, "Grace", false, INTRO),
                    revision(12, 11, "Grace", false, &section),
                    revision(
                        13,
                        12,
                        "Ada",
                        true,
                        &format!("{section}\nA minor note about cups and saucers today."),
                    ),
                    revision(
                        14,
                        13,
                        "ArchiveBot",
                        false,
                        &format!("{section}\nArchived talk pages list of many words here now."),
                    ),
                    revision(15, 14, "192.0.2.7", false, "Vandalism."),
                    revision(16, 15, "Ada", false, &section),
                ],
            ),
            (
                "Talk:Espresso",
                1,
                vec![revision(
                    20,
                    0,
                    "Ada",
                    false,
                    "Talking about espresso at length with many many words here.",
                )],
            ),
            (
                "Ristretto",
                0,
                vec![revision(
                    31,
                    30,
                    "Grace",
                    false,
                    "A ristretto is a short shot of espresso made with less water and finer grind.",
                )],
            ),
        ])
    }

    fn read(xml: &str, cursor: Option<&str>) -> (Vec<Found>, anyhow::Result<()>) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "kenning-wiki-{}-{}.xml",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, xml).unwrap();
        let mut dump = Dump::open(&path, Rules::default()).unwrap();
        let mut all = Vec::new();
        let result = dump.read(cursor, &Window::default(), &mut |f| {
            all.push(f);
            true
        });
        std::fs::remove_file(path).unwrap();
        (all, result)
    }

    fn summary(all: &[Found]) -> Vec<String> {
        all.iter()
            .map(|f| match f {
                Found::Item(item) => format!("{} by {}", item.id, item.actions[0].0.key),
                Found::Skipped { reason, .. } => format!("skipped {reason}"),
                Found::Bad { problem, .. } => format!("bad {problem}"),
            })
            .collect()
    }

    #[test]
    fn revisions_teach_their_authors_what_they_added() {
        let (all, result) = read(&history(), None);
        result.unwrap();
        assert_eq!(
            summary(&all),
            [
                "10 by Ada",
                "skipped small edit",
                "12 by Grace",
                "skipped minor edit",
                "skipped bot",
                "skipped anonymous edit",
                "skipped revert",
                "skipped parent not in the dump",
            ]
        );
        let Found::Item(section) = &all[2] else {
            panic!()
        };
        assert_eq!(section.texts[0].text, "Espresso");
        assert_eq!(
            section.texts[1].text,
            "Crema\nThe crema is a foam of emulsified oils and carbon dioxide on top of a shot."
        );
        assert_eq!(section.entity_type, ENTITY_TYPE);
        assert_eq!(section.position, "revision 12 highest 12");
        assert_eq!(section.date.to_rfc3339(), "2024-03-04T10:00:00+00:00");
        let Found::Item(first) = &all[0] else {
            panic!()
        };
        assert_eq!(
            first.texts[1].text,
            "Espresso is coffee brewed by forcing hot watr through finely ground beans."
        );
    }

    #[test]
    fn a_run_resumes_after_its_cursor_and_reads_new_revisions_of_pages_before_it() {
        let (all, _) = read(&history(), Some("revision 12 highest 12"));
        assert_eq!(all.len(), 5, "{:?}", summary(&all));
        let crema = format!(
            "{INTRO}\n\n== Crema ==\nA thick crema shows freshly roasted beans, a fine grinder setting and a well tamped puck."
        );
        let lungo =
            "A lungo is an espresso pulled long with twice the water through the same grounds.";
        let newer = history()
            .replace(
                "</page>\n<page><title>Talk:Espresso",
                &format!(
                    "{}</page>\n<page><title>Talk:Espresso",
                    revision(40, 16, "Grace", false, &crema)
                ),
            )
            .replace(
                "</mediawiki>",
                &format!(
                    "<page><title>Lungo</title><ns>0</ns><id>3</id>\n{}</page>\n</mediawiki>",
                    revision(41, 0, "Ada", false, lungo)
                ),
            );
        let (all, _) = read(&newer, Some("revision 31 highest 31"));
        assert_eq!(summary(&all), ["40 by Grace", "41 by Ada"]);
    }

    #[test]
    fn a_truncated_dump_hands_what_it_read_and_names_where_it_broke() {
        let xml = history();
        let cut = &xml[..xml.find("<revision><id>13<").unwrap() + 40];
        let (all, result) = read(cut, None);
        assert_eq!(
            summary(&all),
            ["10 by Ada", "skipped small edit", "12 by Grace"]
        );
        let error = result.unwrap_err().to_string();
        assert!(error.contains(".xml: the dump breaks"), "{error}");
        assert!(error.contains("byte"), "{error}");
    }

    #[test]
    fn a_position_names_the_last_revision_and_the_highest() {
        let resume = Resume {
            last: 120,
            highest: 907,
        };
        assert_eq!(Resume::parse(&resume.position()), Some(resume));
        assert_eq!(Resume::parse("3f2c"), None);
    }
}
