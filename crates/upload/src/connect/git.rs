//! `kenning connect git`: the commits of local repositories, read with the
//! `git` command (which every machine holding a repository has, and which
//! adds nothing to Kenning's build).
//!
//! A commit that is not a merge teaches its author and each person its
//! `Co-authored-by:` trailers name, everyone as the repository's
//! `.mailmap` names them; identities with `[bot]` are nobody. What it
//! teaches from: its subject (primary), its body without trailers
//! (default), and the paths it changed (secondary), each path's folders
//! and file name as words. The commits are read oldest first, as `git
//! log` streams them; a run resumes after the last commit it finished.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};

use super::source::{
    before_trailer, cut, trailer, Descriptor, Found, Identity, Item, Source, Text, Window,
};
pub use super::source::{paths_as_words, MAX_PATHS};

/// The entity type of a commit.
pub const ENTITY_TYPE: &str = "commit";
/// The action type of a commit's author.
pub const AUTHOR: &str = "author";
/// The action type of a person a commit's `Co-authored-by:` names.
pub const CO_AUTHOR: &str = "co_author";
/// The most people `.mailmap` moves to another address that a run's
/// report lists; more are counted.
pub const MAILMAP_MOVES_LISTED: usize = 50;

/// The commits and their changed paths: every field NUL-terminated, each
/// commit's hash after an empty field (no path is empty), so that no
/// path can be taken for a commit. A commit's message is never in this
/// output: it is read by its length from `git cat-file --batch`, so no
/// message can be taken for a field either.
const FORMAT: &str = "--format=%x00%H";

/// One repository.
#[derive(Debug)]
pub struct Repository {
    path: PathBuf,
    /// The revision whose history is read.
    revision: String,
    /// People as `.mailmap` names them, asked once each.
    mailmap: HashMap<String, (String, String)>,
    /// The addresses `.mailmap` moved to another address, for the report.
    moved: BTreeSet<String>,
}

impl Repository {
    /// The repository at `path` (a clone or a bare one), reading the
    /// history of `revision`; an error when it is none, or `git` is not
    /// installed.
    pub fn open(path: &Path, revision: &str) -> anyhow::Result<Self> {
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("{}: no such folder", path.display()))?;
        let output = git(&path)
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("{revision}^{{commit}}"))
            .output()
            .context("cannot run `git`: install git to connect repositories")?;
        if !output.status.success() {
            let inside = git(&path).args(["rev-parse", "--git-dir"]).output()?;
            anyhow::ensure!(
                inside.status.success(),
                "{}: not a git repository",
                path.display()
            );
            anyhow::bail!(
                "{}: no commit `{revision}` (an empty repository?)",
                path.display()
            );
        }
        Ok(Self {
            path,
            revision: revision.to_owned(),
            mailmap: HashMap::new(),
            moved: BTreeSet::new(),
        })
    }

    /// The name and e-mail `.mailmap` gives `name <email>`; an address it
    /// moves to another is noted for the run's report, since one line of a
    /// committed `.mailmap` can move a person's whole history.
    fn mapped(&mut self, name: &str, email: &str) -> (String, String) {
        let contact = format!("{name} <{email}>");
        if let Some(known) = self.mailmap.get(&contact) {
            return known.clone();
        }
        let mapped = git(&self.path)
            .args(["check-mailmap", &contact])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| parse_contact(String::from_utf8_lossy(&o.stdout).trim()))
            .unwrap_or_else(|| (name.to_owned(), email.to_owned()));
        if !mapped.1.eq_ignore_ascii_case(email) {
            self.moved.insert(format!(
                "{} is sent as {}",
                email.to_lowercase(),
                mapped.1.to_lowercase()
            ));
        }
        self.mailmap.insert(contact, mapped.clone());
        mapped
    }

    /// Whether `hash` is a commit of the repository.
    fn has(&self, hash: &str) -> bool {
        is_hash(hash)
            && git(&self.path)
                .args(["cat-file", "-e", &format!("{hash}^{{commit}}")])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
    }

    /// `git log` of what a run reads: the commits after `cursor` (from the
    /// first when `None`) inside `window`, oldest first.
    fn log(&self, cursor: Option<&str>, window: &Window) -> anyhow::Result<Child> {
        let range = match cursor.filter(|hash| self.has(hash)) {
            Some(hash) => format!("{hash}..{}", self.revision),
            None => self.revision.clone(),
        };
        let mut command = git(&self.path);
        command.args([
            "log",
            "--reverse",
            "--topo-order",
            "--name-only",
            "--no-renames",
            "-z",
            FORMAT,
        ]);
        let iso = |at: DateTime<Utc>| at.to_rfc3339_opts(SecondsFormat::Secs, true);
        if let Some(since) = window.since {
            command.arg(format!("--since={}", iso(since)));
        }
        if let Some(until) = window.until {
            command.arg(format!("--until={}", iso(until)));
        }
        command
            .arg(&range)
            .arg("--")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run `git log`")
    }
}

fn git(repository: &Path) -> Command {
    let mut command = Command::new("git");
    command.arg("-C").arg(repository).args([
        "-c",
        "core.quotePath=false",
        "-c",
        "log.showSignature=false",
    ]);
    command
}

impl Source for Repository {
    fn kind(&self) -> &'static str {
        "git"
    }

    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn read(
        &mut self,
        cursor: Option<&str>,
        window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let mut objects = Objects::open(&self.path)?;
        let mut child = self.log(cursor, window)?;
        let stdout = child.stdout.take().context("no output from `git log`")?;
        let mut fields = BufReader::new(stdout);
        let mut went_on = true;
        let mut commit: Option<(String, Vec<String>)> = None;
        let mut field = Vec::new();
        let mut after_empty = false;
        loop {
            field.clear();
            let ended = fields.read_until(0, &mut field)? == 0;
            if field.last() == Some(&0) {
                field.pop();
            }
            // An empty field ends a commit's paths; the next is a hash.
            let next_commit = ended || field.is_empty();
            if next_commit {
                if let Some((hash, paths)) = commit.take() {
                    let read = match self.commit(&mut objects, &hash, &paths) {
                        Ok(read) => read,
                        Err(e) => {
                            // Git itself failed: no commit after this one
                            // can be read, so the run stops before it.
                            let _ = child.kill();
                            let _ = child.wait();
                            return Err(e);
                        }
                    };
                    if !found(read) {
                        went_on = false;
                        break;
                    }
                }
                if ended {
                    break;
                }
                after_empty = true;
                continue;
            }
            let text = String::from_utf8_lossy(&field);
            match commit.as_mut() {
                None if after_empty => commit = Some((text.into_owned(), Vec::new())),
                None => {}
                // The first path follows the hash's line end.
                Some((_, paths)) => {
                    let path = text.strip_prefix('\n').unwrap_or(&text);
                    if !path.is_empty() {
                        paths.push(path.to_owned());
                    }
                }
            }
            after_empty = false;
        }
        if !went_on {
            // The run stops early: `git log` need not finish.
            let _ = child.kill();
        }
        let status = child.wait()?;
        if went_on && !status.success() {
            let mut why = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                let _ = stderr.read_to_string(&mut why);
            }
            anyhow::bail!("{}: `git log` failed: {}", self.path.display(), why.trim());
        }
        Ok(())
    }

    fn warnings(&self, _skipped: &BTreeMap<&'static str, u64>) -> Vec<String> {
        let mut warnings: Vec<String> = self
            .moved
            .iter()
            .take(MAILMAP_MOVES_LISTED)
            .map(|moved| format!(".mailmap: {moved}"))
            .collect();
        if self.moved.len() > MAILMAP_MOVES_LISTED {
            warnings.push(format!(
                ".mailmap: {} more addresses are sent as another",
                self.moved.len() - MAILMAP_MOVES_LISTED
            ));
        }
        warnings
    }
}

/// A `git cat-file --batch` of the repository: each commit object read
/// by the length git states, whatever bytes its message holds.
struct Objects {
    child: Child,
    ask: ChildStdin,
    answers: BufReader<ChildStdout>,
}

impl Objects {
    fn open(repository: &Path) -> anyhow::Result<Self> {
        let mut child = git(repository)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot run `git cat-file`")?;
        let ask = child.stdin.take().context("no input to `git cat-file`")?;
        let answers = child
            .stdout
            .take()
            .context("no output from `git cat-file`")?;
        Ok(Self {
            child,
            ask,
            answers: BufReader::new(answers),
        })
    }

    /// The raw commit object `hash` names; `None` when it is no commit.
    fn commit(&mut self, hash: &str) -> anyhow::Result<Option<Vec<u8>>> {
        writeln!(self.ask, "{hash}")?;
        self.ask.flush()?;
        let mut header = String::new();
        if self.answers.read_line(&mut header)? == 0 {
            anyhow::bail!("`git cat-file` ended before it answered for {hash}");
        }
        let mut words = header.split_whitespace();
        let (Some(_), Some(kind), Some(size)) = (words.next(), words.next(), words.next()) else {
            return Ok(None);
        };
        let size: usize = size.parse().context("`git cat-file` stated no size")?;
        let mut object = vec![0; size + 1];
        self.answers.read_exact(&mut object)?;
        object.pop();
        Ok((kind == "commit").then_some(object))
    }
}

impl Drop for Objects {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A commit object's parts Kenning reads.
#[derive(Debug, PartialEq)]
struct Commit {
    parents: usize,
    name: String,
    email: String,
    date: DateTime<Utc>,
    message: String,
}

impl Commit {
    /// The raw object as git stores it: header lines, a blank line, the
    /// message; `Err` names what is wrong.
    fn parse(object: &[u8]) -> Result<Self, String> {
        let text = String::from_utf8_lossy(object);
        let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
        let mut parents = 0;
        let mut author = None;
        for line in headers.lines() {
            if line.starts_with("parent ") {
                parents += 1;
            } else if let Some(rest) = line.strip_prefix("author ") {
                // The first, as git reads it.
                author.get_or_insert(rest);
            }
        }
        let author = author.ok_or("no author")?;
        // As git splits an identity: the name before the first `<`, the
        // address up to the first `>` after it, the date after the last.
        let unreadable = || format!("an author Kenning cannot read: {}", cut(author, 80));
        let (name, rest) = author.split_once('<').ok_or_else(unreadable)?;
        let (email, _) = rest.split_once('>').ok_or_else(unreadable)?;
        let (_, when) = rest.rsplit_once('>').ok_or_else(unreadable)?;
        let seconds = when
            .split_whitespace()
            .next()
            .and_then(|s| s.parse::<i64>().ok())
            .and_then(|s| DateTime::from_timestamp(s, 0))
            .ok_or_else(|| format!("an author date Kenning cannot read: {}", cut(when, 40)))?;
        Ok(Self {
            parents,
            name: name.trim().to_owned(),
            email: email.trim().to_owned(),
            date: seconds,
            message: message.to_owned(),
        })
    }
}

/// Whether `text` is a commit's hash (SHA-1 or SHA-256, hexadecimal).
fn is_hash(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Repository {
    /// Whom `commit` teaches: its author, then each of `co_authors`, each
    /// as `.mailmap` names them and once; bots are nobody.
    fn people(
        &mut self,
        commit: &Commit,
        co_authors: Vec<(String, String)>,
    ) -> Vec<(Identity, &'static str)> {
        let author = self.mapped(&commit.name, &commit.email);
        let co_authors: Vec<_> = co_authors
            .into_iter()
            .map(|(n, e)| self.mapped(&n, &e))
            .collect();
        let mut actions = Vec::new();
        for (n, (name, email)) in std::iter::once(author).chain(co_authors).enumerate() {
            if is_bot(&name, &email) {
                continue;
            }
            let action = if n == 0 { AUTHOR } else { CO_AUTHOR };
            let identity = Identity::by_email(&email.to_lowercase()).named(Some(&name));
            if !actions.iter().any(|(known, _)| *known == identity) {
                actions.push((identity, action));
            }
        }
        actions
    }

    /// What the commit `hash`, which changed `paths`, is; `Err` when
    /// `git cat-file` failed, which no later commit gets past either.
    fn commit(
        &mut self,
        objects: &mut Objects,
        hash: &str,
        paths: &[String],
    ) -> anyhow::Result<Found> {
        let hash = hash.trim();
        let origin = format!("{} commit {}", self.path.display(), cut(hash, 12));
        let bad = |problem: String| Found::Bad {
            origin: origin.clone(),
            problem,
            position: is_hash(hash).then(|| hash.to_owned()),
        };
        if !is_hash(hash) {
            return Ok(bad("`git log` named no commit Kenning can read".to_owned()));
        }
        let commit = match objects.commit(hash)? {
            Some(object) => Commit::parse(&object),
            None => Err("not a commit in `git cat-file`".to_owned()),
        };
        let commit = match commit {
            Ok(commit) => commit,
            Err(problem) => return Ok(bad(problem)),
        };
        let hash = hash.to_owned();
        if commit.parents > 1 {
            return Ok(Found::Skipped {
                reason: "merge commit",
                position: Some(hash),
            });
        }
        let body = commit.message.as_str();
        let (subject, rest) = body.split_once('\n').unwrap_or((body, ""));
        let (text, co_authors) = without_trailers(rest);
        let actions = self.people(&commit, co_authors);
        if actions.is_empty() {
            return Ok(Found::Skipped {
                reason: "bot",
                position: Some(hash),
            });
        }
        let mut texts = vec![
            Text::plain(Descriptor::Primary, subject.trim()),
            Text::plain(Descriptor::Default, text.trim()),
        ];
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        if !paths.is_empty() && paths.len() <= MAX_PATHS {
            texts.push(Text::plain(Descriptor::Secondary, paths_as_words(&paths)));
        }
        Ok(Found::Item(Item {
            id: hash.clone(),
            origin,
            entity_type: ENTITY_TYPE,
            actions,
            date: commit.date,
            texts,
            position: hash,
        }))
    }
}

/// Whether a name or address is a bot's (`dependabot[bot]`).
fn is_bot(name: &str, email: &str) -> bool {
    name.contains("[bot]") || email.contains("[bot]")
}

/// `Name <address>` as a name and an address.
fn parse_contact(contact: &str) -> Option<(String, String)> {
    let (name, rest) = contact.rsplit_once('<')?;
    let email = rest.strip_suffix('>')?.trim();
    (!email.is_empty()).then(|| (name.trim().to_owned(), email.to_owned()))
}

/// A commit's body without its trailers (the last paragraph's
/// `Signed-off-by:`, `Co-authored-by:` and other `Token: value` lines,
/// and one that follows words of its own, as a mail's), and the people
/// its `Co-authored-by:` trailers name.
fn without_trailers(body: &str) -> (String, Vec<(String, String)>) {
    let mut co_authors = Vec::new();
    let mut kept = Vec::new();
    for line in body.lines() {
        match trailer(line) {
            Some((token, value)) => {
                if token.eq_ignore_ascii_case("co-authored-by") {
                    co_authors.extend(parse_contact(value));
                }
            }
            None => kept.push(before_trailer(line)),
        }
    }
    (kept.join("\n"), co_authors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailers_leave_the_body_and_co_authors_are_read_from_them() {
        let (body, co) = without_trailers(
            "Explains why.\n\nSigned-off-by: Ada <ada@example.com>\nCo-authored-by: Bob Lee <bob@example.com>\nSee: this stays\nSerial portion: Acked-by: Cy <cy@example.com>",
        );
        assert_eq!(body, "Explains why.\n\nSee: this stays\nSerial portion: ");
        assert_eq!(co, [("Bob Lee".to_owned(), "bob@example.com".to_owned())]);
    }

    #[test]
    fn bots_and_contacts_are_recognised() {
        assert!(is_bot(
            "dependabot[bot]",
            "49699333+dependabot[bot]@users.noreply.github.com"
        ));
        assert!(!is_bot("Ada", "ada@example.com"));
        assert_eq!(
            parse_contact("A B <a@b.c>"),
            Some(("A B".to_owned(), "a@b.c".to_owned()))
        );
        assert_eq!(parse_contact("nobody"), None);
    }

    #[test]
    fn a_commit_object_is_read_by_its_headers_whatever_its_message_holds() {
        let object = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 1111111111111111111111111111111111111111\nauthor Ada L\u{e9}e <ada@example.com> 1700000000 +0100\ncommitter Bob <bob@example.com> 1700000100 +0000\n\nSubject \u{1e}\u{1f}x\n\nbody\nauthor Mallory <m@example.com> 1 +0000\n";
        let commit = Commit::parse(object.as_bytes()).unwrap();
        assert_eq!(commit.parents, 1);
        assert_eq!(commit.name, "Ada L\u{e9}e");
        assert_eq!(commit.email, "ada@example.com");
        assert_eq!(commit.date.timestamp(), 1_700_000_000);
        assert!(commit.message.starts_with("Subject \u{1e}\u{1f}x"));
        // Read as git reads it: the first author line, the first address.
        let forged = "tree x\nauthor Eve <eve@example.com> <victim@example.com> 1 +0000\n\
                      author Victim <victim@example.com> 2 +0000\n\nx";
        let commit = Commit::parse(forged.as_bytes()).unwrap();
        assert_eq!(commit.name, "Eve");
        assert_eq!(commit.email, "eve@example.com");
        assert_eq!(commit.date.timestamp(), 1);
        let problem =
            Commit::parse(b"tree x\nauthor \xc3\xa9\xc3\xa9 no address\n\nx").unwrap_err();
        assert!(problem.contains("cannot read"), "{problem}");
    }

    #[test]
    fn a_hash_is_hexadecimal() {
        assert!(is_hash(&"a".repeat(40)));
        assert!(!is_hash("\u{e9}bc"));
    }

    #[test]
    fn paths_read_as_their_folders_and_file_names() {
        assert_eq!(
            paths_as_words(&[
                "tsdb/head.go",
                "README.md",
                "sway/input/text_input.c",
                "common/wlr-output-management.v1.xml",
                ".gitignore",
                "Makefile",
            ]),
            "tsdb/head,\nREADME,\nsway/input/text input,\n\
             common/wlr output management v1,\ngitignore,\nMakefile"
        );
    }
}
