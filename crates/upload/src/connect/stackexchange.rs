//! `kenning connect stackexchange`: the folder of a Stack Exchange data
//! dump (`Posts.xml`, and `Users.xml` when it is there), the format Stack
//! Overflow for Teams exports too; read as it streams.
//!
//! An answer teaches its author from the question's title and tags
//! (primary), the question and the answer (HTML); an accepted answer is its
//! own action type, which operators weigh more. A question teaches its
//! asker a little: its title, tags and body as secondary texts, since
//! asking shows what a person works on more than what they know. A tag is the site's name for
//! a subject (`specialty-beers`), read as words (`specialty beers`). The posts are in id order, as the dumps write
//! them: a run resumes after the highest post id it handled. An answer's
//! question is kept from when it was read (up to [`KEPT_BYTES`]), else
//! found again in `Posts.xml` by its id (a binary search of the file).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{DateTime, NaiveDateTime, Utc};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::source::{Descriptor, Found, Identity, Item, Source, Text, Window};

/// The entity type of a question.
pub const QUESTION: &str = "question";
/// The entity type of an answer.
pub const ANSWER: &str = "answer";
/// The action type of a question's asker.
pub const ASKED: &str = "asked";
/// The action type of an answer's author.
pub const ANSWERED: &str = "answer";
/// The action type of the author of the answer the asker accepted.
pub const ACCEPTED: &str = "accepted_answer";
/// The most bytes of questions kept for their answers; older ones are
/// found again in the file.
pub const KEPT_BYTES: usize = 32 << 20;

/// A dump's folder.
#[derive(Debug)]
pub struct Site {
    dir: PathBuf,
    posts: PathBuf,
    users: Option<PathBuf>,
    /// The e-mail address and externalId of users whose rows carry them
    /// (an organisation's export may; public dumps do not).
    contacts: HashMap<u64, (Option<String>, Option<String>)>,
    /// The site's user ids are the organisation's externalIds (a site
    /// that signs its people in through the identity provider): a user
    /// without an `ExternalId` of their own is matched by their id.
    ids_are_external_ids: bool,
}

impl Site {
    /// The dump in `dir`; an error when it holds no `Posts.xml`.
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        let dir = std::fs::canonicalize(dir)
            .with_context(|| format!("{}: no such folder", dir.display()))?;
        let posts = dir.join("Posts.xml");
        anyhow::ensure!(
            posts.is_file(),
            "{}: no Posts.xml (the folder of a Stack Exchange data dump)",
            dir.display()
        );
        let users = Some(dir.join("Users.xml")).filter(|u| u.is_file());
        let mut contacts = HashMap::new();
        if let Some(users) = &users {
            rows(users, &mut |_, row| {
                let Ok(row) = row else { return true };
                let field = |name: &str| {
                    row.get(name)
                        .map(|v| v.trim().to_owned())
                        .filter(|v| !v.is_empty())
                };
                let (email, external_id) = (field("EmailAddress"), field("ExternalId"));
                if let (Some(id), true) = (
                    field("Id").and_then(|id| id.parse().ok()),
                    email.is_some() || external_id.is_some(),
                ) {
                    contacts.insert(id, (email, external_id));
                }
                true
            })?;
        }
        Ok(Self {
            dir,
            posts,
            users,
            contacts,
            ids_are_external_ids: false,
        })
    }

    /// The same site, whose user ids are the organisation's externalIds
    /// when `yes` (see [`Site`]'s field).
    #[must_use]
    pub fn with_ids_as_external_ids(mut self, yes: bool) -> Self {
        self.ids_are_external_ids = yes;
        self
    }

    fn identity(&self, user: u64) -> Identity {
        let (email, external_id) = self.contacts.get(&user).cloned().unwrap_or_default();
        let external_id =
            external_id.or_else(|| self.ids_are_external_ids.then(|| user.to_string()));
        Identity {
            key: user.to_string(),
            email,
            external_id,
            ..Identity::default()
        }
    }
}

/// A row's attributes, by name.
type Row = HashMap<String, String>;

/// Hands `visit` each `<row>` of the file at `path` with where it starts,
/// until it answers false; an error when the file cannot be read or
/// breaks off.
fn rows(
    path: &Path,
    visit: &mut dyn FnMut(u64, Result<Row, String>) -> bool,
) -> anyhow::Result<()> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut xml = Reader::from_reader(BufReader::with_capacity(1 << 16, file));
    let mut buf = Vec::new();
    let mut depth = 0usize;
    loop {
        let at = xml.buffer_position();
        let event = xml.read_event_into(&mut buf).map_err(|e| {
            anyhow::anyhow!(
                "{}: the dump breaks at byte {}: {e}",
                path.display(),
                xml.error_position()
            )
        })?;
        match event {
            Event::Empty(e) if e.local_name().as_ref() == "row" && !visit(at, attributes(&e)) => {
                return Ok(());
            }
            Event::Start(e) => {
                depth += 1;
                if e.local_name().as_ref() == "row" && !visit(at, attributes(&e)) {
                    return Ok(());
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof => {
                anyhow::ensure!(
                    depth == 0,
                    "{}: the dump breaks off at byte {} before its last element ends (a truncated file?)",
                    path.display(),
                    xml.buffer_position()
                );
                return Ok(());
            }
            _ => {}
        }
        buf.clear();
    }
}

fn attributes(e: &BytesStart<'_>) -> Result<Row, String> {
    let mut row = Row::new();
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed row: {e}"))?;
        let name = attribute.key.as_ref().to_owned();
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("a malformed {name}: {e}"))?;
        row.insert(name, value.into_owned());
    }
    Ok(row)
}

/// A question as its answers need it.
#[derive(Debug, Clone, PartialEq)]
struct Question {
    title: String,
    /// Its tags as words, one a line ([`tags_as_words`]).
    tags: String,
    /// HTML.
    body: String,
    accepted: Option<u64>,
}

impl Question {
    fn of(row: &Row) -> Option<Self> {
        (row.get("PostTypeId").map(String::as_str) == Some("1")).then(|| Self {
            title: row.get("Title").cloned().unwrap_or_default(),
            tags: tags_as_words(row.get("Tags").map_or("", String::as_str)),
            body: row.get("Body").cloned().unwrap_or_default(),
            accepted: row.get("AcceptedAnswerId").and_then(|a| a.parse().ok()),
        })
    }

    fn bytes(&self) -> usize {
        self.title.len() + self.tags.len() + self.body.len()
    }

    /// What it teaches beside an answer's own text: its title and tags,
    /// then its body.
    fn texts(self) -> Vec<Text> {
        let mut texts = vec![Text::plain(Descriptor::Primary, self.title)];
        if !self.tags.is_empty() {
            texts.push(Text::plain(Descriptor::Primary, self.tags));
        }
        texts.push(html(Descriptor::Default, self.body));
        texts
    }

    /// What it teaches its asker: the same texts, all secondary (a third
    /// of what its title and tags teach an answerer, half of its body).
    fn asked(self) -> Vec<Text> {
        self.texts()
            .into_iter()
            .map(|text| Text {
                descriptor: Descriptor::Secondary,
                ..text
            })
            .collect()
    }
}

/// A question's `Tags` (`<beer><specialty-beers>`, or `|beer|ipa|` in
/// newer dumps) as words, one tag a line, its `-` and `_` as spaces.
fn tags_as_words(tags: &str) -> String {
    tags.split(['<', '>', '|'])
        .map(|tag| tag.replace(['-', '_'], " "))
        .map(|tag| tag.trim().to_owned())
        .filter(|tag| !tag.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The questions read last, up to [`KEPT_BYTES`].
#[derive(Debug, Default)]
struct Kept {
    questions: HashMap<u64, Question>,
    order: VecDeque<u64>,
    bytes: usize,
}

impl Kept {
    fn keep(&mut self, id: u64, question: Question) {
        self.bytes += question.bytes();
        if self.questions.insert(id, question).is_none() {
            self.order.push_back(id);
        }
        while self.bytes > KEPT_BYTES {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(gone) = self.questions.remove(&oldest) {
                self.bytes -= gone.bytes();
            }
        }
    }
}

/// The question `id` in the posts file at `path`, found by a binary
/// search of its rows (in id order, one after another, each starting
/// `<row`, which no attribute value holds unescaped).
fn find_question(path: &Path, id: u64) -> anyhow::Result<Option<Question>> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let (mut low, mut high) = (0, file.metadata()?.len());
    while low < high {
        let middle = low + (high - low) / 2;
        let Some(start) = row_at_or_after(&mut file, middle)? else {
            high = middle;
            continue;
        };
        file.seek(SeekFrom::Start(start))?;
        let mut xml = Reader::from_reader(BufReader::new(&mut file));
        let mut buf = Vec::new();
        let row = match xml.read_event_into(&mut buf) {
            Ok(Event::Empty(e) | Event::Start(e)) => attributes(&e).ok(),
            _ => None,
        };
        let Some(found) = row
            .as_ref()
            .and_then(|r| r.get("Id"))
            .and_then(|i| i.parse::<u64>().ok())
        else {
            // A row that cannot be read: search on after it.
            low = start + 1;
            continue;
        };
        match found.cmp(&id) {
            std::cmp::Ordering::Equal => return Ok(row.as_ref().and_then(Question::of)),
            std::cmp::Ordering::Less => low = start + 1,
            std::cmp::Ordering::Greater => high = middle,
        }
    }
    Ok(None)
}

/// Where the first row starting at or after byte `from` starts.
fn row_at_or_after(file: &mut File, from: u64) -> anyhow::Result<Option<u64>> {
    const MARK: &[u8] = b"<row";
    file.seek(SeekFrom::Start(from))?;
    let mut chunk = vec![0; 1 << 16];
    let mut carried: Vec<u8> = Vec::new();
    let mut at = from;
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        let start = at - carried.len() as u64;
        carried.extend_from_slice(&chunk[..n]);
        if let Some(i) = carried
            .windows(MARK.len() + 1)
            .position(|w| w.starts_with(MARK) && w[MARK.len()].is_ascii_whitespace())
        {
            return Ok(Some(start + i as u64));
        }
        at += n as u64;
        let keep = carried.len().min(MARK.len());
        carried.drain(..carried.len() - keep);
    }
}

impl Source for Site {
    fn kind(&self) -> &'static str {
        "stackexchange"
    }

    fn name(&self) -> String {
        self.dir.display().to_string()
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        _window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let after = cursor.and_then(|c| c.trim().parse::<u64>().ok());
        let mut kept = Kept::default();
        let mut highest = after.unwrap_or(0);
        let posts = self.posts.clone();
        let mut lookup_failure = None;
        rows(&posts, &mut |at, row| {
            let origin = |id: Option<&str>| match id {
                Some(id) => format!("{} post {id}", posts.display()),
                None => format!("{} row at byte {at}", posts.display()),
            };
            let row = match row {
                Ok(row) => row,
                Err(problem) => {
                    return found(Found::Bad {
                        origin: origin(None),
                        problem,
                        position: None,
                    })
                }
            };
            let Some(id) = row.get("Id").and_then(|i| i.trim().parse::<u64>().ok()) else {
                return found(Found::Bad {
                    origin: origin(row.get("Id").map(String::as_str)),
                    problem: "a row without a numeric Id".to_owned(),
                    position: None,
                });
            };
            if let Some(question) = Question::of(&row) {
                kept.keep(id, question);
            }
            if after.is_some_and(|after| id <= after) {
                return true;
            }
            let post = match self.post(id, &row, &mut kept, &origin(Some(&id.to_string()))) {
                Ok(post) => post,
                Err(e) => {
                    lookup_failure = Some(e);
                    return false;
                }
            };
            highest = highest.max(id);
            found(with_position(post, highest.to_string()))
        })?;
        match lookup_failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn display_names(&self, keys: &[&str]) -> BTreeMap<String, String> {
        let mut names = BTreeMap::new();
        let Some(users) = &self.users else {
            return names;
        };
        let wanted: HashSet<&str> = keys.iter().copied().collect();
        let _ = rows(users, &mut |_, row| {
            if let Ok(row) = row {
                if let (Some(id), Some(name)) = (row.get("Id"), row.get("DisplayName")) {
                    if wanted.contains(id.as_str()) {
                        names.insert(id.clone(), name.clone());
                    }
                }
            }
            names.len() < wanted.len()
        });
        names
    }
}

fn with_position(mut found: Found, position: String) -> Found {
    match &mut found {
        Found::Item(item) => item.position = position,
        Found::Whole(whole) => whole.position = position,
        Found::Skipped { position: p, .. } | Found::Bad { position: p, .. } => *p = Some(position),
    }
    found
}

impl Site {
    /// What the post `id` (its `row`) is; an error when its question
    /// cannot be looked for.
    fn post(&self, id: u64, row: &Row, kept: &mut Kept, origin: &str) -> anyhow::Result<Found> {
        let bad = |problem: String| {
            Ok(Found::Bad {
                origin: origin.to_owned(),
                problem,
                position: None,
            })
        };
        let skipped = |reason| {
            Ok(Found::Skipped {
                reason,
                position: None,
            })
        };
        let kind = row.get("PostTypeId").map(String::as_str);
        if !matches!(kind, Some("1" | "2")) {
            return skipped("not a question or answer");
        }
        let Some(created) = row.get("CreationDate") else {
            return bad("no CreationDate".to_owned());
        };
        // The dumps write UTC without a zone.
        let Ok(date) = NaiveDateTime::parse_from_str(created.trim(), "%Y-%m-%dT%H:%M:%S%.f")
            .map(|d| d.and_utc())
            .or_else(|_| {
                DateTime::parse_from_rfc3339(created.trim()).map(|d| d.with_timezone(&Utc))
            })
        else {
            return bad(format!("a CreationDate Kenning cannot read: {created:?}"));
        };
        let owner = match row.get("OwnerUserId").map(|o| o.trim().parse::<i64>()) {
            None => return skipped("no author"),
            Some(Err(_)) => {
                return bad(format!(
                    "an OwnerUserId Kenning cannot read: {:?}",
                    row.get("OwnerUserId")
                ))
            }
            Some(Ok(owner)) => owner,
        };
        // The site's own user (-1, "Community") is the site's robot.
        let Ok(owner) = u64::try_from(owner) else {
            return skipped("community user");
        };
        let (entity_type, action, texts) = match self.taught(id, kind == Some("1"), row, kept)? {
            Ok(taught) => taught,
            Err(problem) => return bad(problem),
        };
        Ok(Found::Item(Item {
            id: id.to_string(),
            origin: origin.to_owned(),
            entity_type,
            actions: vec![(self.identity(owner), action)],
            date,
            texts,
            position: String::new(),
        }))
    }

    /// What the post `id` (its `row`; a question, else an answer) teaches
    /// its author: its entity type, its action and its texts (an answer's
    /// with its question's), or what is wrong with it; an error when its
    /// question cannot be looked for.
    fn taught(
        &self,
        id: u64,
        is_question: bool,
        row: &Row,
        kept: &mut Kept,
    ) -> anyhow::Result<Result<Taught, String>> {
        if is_question {
            let texts = Question::of(row).map(Question::asked).unwrap_or_default();
            return Ok(Ok((QUESTION, ASKED, texts)));
        }
        let body = row.get("Body").cloned().unwrap_or_default();
        let Some(parent) = row
            .get("ParentId")
            .and_then(|p| p.trim().parse::<u64>().ok())
        else {
            return Ok(Err("an answer without a numeric ParentId".to_owned()));
        };
        let question = match kept.questions.get(&parent) {
            Some(question) => question.clone(),
            None => match find_question(&self.posts, parent)? {
                Some(question) => question,
                None => return Ok(Err(format!("its question {parent} is not in Posts.xml"))),
            },
        };
        let action = if question.accepted == Some(id) {
            ACCEPTED
        } else {
            ANSWERED
        };
        let mut texts = question.texts();
        texts.push(html(Descriptor::Default, body));
        Ok(Ok((ANSWER, action, texts)))
    }
}

/// What a post teaches its author: its entity type, its action, its texts.
type Taught = (&'static str, &'static str, Vec<Text>);

fn html(descriptor: Descriptor, text: String) -> Text {
    Text {
        descriptor,
        html: true,
        text,
    }
}

#[cfg(test)]
mod tests;
