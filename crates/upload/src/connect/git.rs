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

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};

use super::source::{Descriptor, Found, Identity, Item, Source, Text, Window};

/// The entity type of a commit.
pub const ENTITY_TYPE: &str = "commit";
/// The action type of a commit's author.
pub const AUTHOR: &str = "author";
/// The action type of a person a commit's `Co-authored-by:` names.
pub const CO_AUTHOR: &str = "co_author";
/// The most paths of one commit sent: a commit touching more is a sweep
/// (a rename, a formatting run), whose paths say little of anyone.
pub const MAX_PATHS: usize = 50;

/// Between commits in `git log`'s output.
const RECORD: u8 = 0x1e;
/// Between a commit's fields.
const FIELD: char = '\u{1f}';
/// Hash, parents, author name and e-mail as `.mailmap` names them,
/// author date, raw body (subject first).
const FORMAT: &str = "--format=%x1e%H%x1f%P%x1f%aN%x1f%aE%x1f%aI%x1f%B%x1f";

/// One repository.
#[derive(Debug)]
pub struct Repository {
    path: PathBuf,
    /// The revision whose history is read.
    revision: String,
    /// Co-authors as `.mailmap` names them, asked once each.
    mailmap: HashMap<String, (String, String)>,
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
        })
    }

    /// The name and e-mail `.mailmap` gives `name <email>`.
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
        self.mailmap.insert(contact, mapped.clone());
        mapped
    }

    /// Whether `hash` is a commit of the repository.
    fn has(&self, hash: &str) -> bool {
        hash.chars().all(|c| c.is_ascii_hexdigit())
            && git(&self.path)
                .args(["cat-file", "-e", &format!("{hash}^{{commit}}")])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
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
            FORMAT,
        ]);
        let iso = |at: DateTime<Utc>| at.to_rfc3339_opts(SecondsFormat::Secs, true);
        if let Some(since) = window.since {
            command.arg(format!("--since={}", iso(since)));
        }
        if let Some(until) = window.until {
            command.arg(format!("--until={}", iso(until)));
        }
        let mut child = command
            .arg(&range)
            .arg("--")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run `git log`")?;
        let stdout = child.stdout.take().context("no output from `git log`")?;
        let mut records = BufReader::new(stdout);
        let mut record = Vec::new();
        let mut went_on = true;
        loop {
            record.clear();
            if records.read_until(RECORD, &mut record)? == 0 {
                break;
            }
            if record.last() == Some(&RECORD) {
                record.pop();
            }
            if record.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let text = String::from_utf8_lossy(&record);
            if !found(self.commit(&text, window)) {
                went_on = false;
                break;
            }
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
}

impl Repository {
    /// What one record of `git log` is.
    fn commit(&mut self, record: &str, window: &Window) -> Found {
        let fields: Vec<&str> = record.splitn(7, FIELD).collect();
        let [hash, parents, name, email, date, body, paths] = fields[..] else {
            return Found::Bad {
                origin: format!("{}: a commit", self.path.display()),
                problem: "`git log` wrote a commit Kenning cannot read".to_owned(),
                position: None,
            };
        };
        let hash = hash.trim().to_owned();
        let origin = format!(
            "{} commit {}",
            self.path.display(),
            &hash[..hash.len().min(12)]
        );
        if parents.split_whitespace().count() > 1 {
            return Found::Skipped {
                reason: "merge commit",
                position: Some(hash),
            };
        }
        let Ok(date) = DateTime::parse_from_rfc3339(date.trim()) else {
            return Found::Bad {
                origin,
                problem: format!("an author date Kenning cannot read: {date}"),
                position: Some(hash),
            };
        };
        let date = date.with_timezone(&Utc);
        if !window.contains(date) {
            return Found::Skipped {
                reason: "outside --since/--until",
                position: Some(hash),
            };
        }
        let (subject, rest) = body.split_once('\n').unwrap_or((body, ""));
        let (text, co_authors) = without_trailers(rest);
        let mut actions = Vec::new();
        let author = (name.to_owned(), email.to_owned());
        for (n, (name, email)) in std::iter::once(author)
            .chain(co_authors.into_iter().map(|(n, e)| self.mapped(&n, &e)))
            .enumerate()
        {
            if is_bot(&name, &email) {
                continue;
            }
            let action = if n == 0 { AUTHOR } else { CO_AUTHOR };
            let identity = Identity::by_email(&email.to_lowercase());
            if !actions.iter().any(|(known, _)| *known == identity) {
                actions.push((identity, action));
            }
        }
        if actions.is_empty() {
            return Found::Skipped {
                reason: "bot",
                position: Some(hash),
            };
        }
        let mut texts = vec![
            Text::plain(Descriptor::Primary, subject.trim()),
            Text::plain(Descriptor::Default, text.trim()),
        ];
        let paths: Vec<&str> = paths
            .lines()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        if !paths.is_empty() && paths.len() <= MAX_PATHS {
            texts.push(Text::plain(Descriptor::Secondary, paths_as_words(&paths)));
        }
        Found::Item(Item {
            id: hash.clone(),
            origin,
            entity_type: ENTITY_TYPE,
            actions,
            date,
            texts,
            position: hash,
        })
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
/// `Signed-off-by:`, `Co-authored-by:` and other `Token: value` lines),
/// and the people its `Co-authored-by:` trailers name.
fn without_trailers(body: &str) -> (String, Vec<(String, String)>) {
    let mut co_authors = Vec::new();
    let mut kept = Vec::new();
    for line in body.lines() {
        let trimmed = line.trim();
        if let Some((token, value)) = trimmed.split_once(':') {
            let is_trailer = !token.is_empty()
                && !token.contains(' ')
                && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && (token.ends_with("-by")
                    || ["Change-Id", "Fixes", "Closes", "Refs", "Bug"].contains(&token));
            if is_trailer {
                if token.eq_ignore_ascii_case("co-authored-by") {
                    co_authors.extend(parse_contact(value.trim()));
                }
                continue;
            }
        }
        kept.push(line);
    }
    (kept.join("\n"), co_authors)
}

/// Changed paths as words a reader (and the topic extractor) takes in:
/// one path a line, its folders and its file name apart, separators and
/// the file's extension spelled out as spaces and a dot.
pub fn paths_as_words(paths: &[&str]) -> String {
    paths
        .iter()
        .map(|path| {
            path.split('/')
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailers_leave_the_body_and_co_authors_are_read_from_them() {
        let (body, co) = without_trailers(
            "Explains why.\n\nSigned-off-by: Ada <ada@example.com>\nCo-authored-by: Bob Lee <bob@example.com>\nSee: this stays",
        );
        assert_eq!(body, "Explains why.\n\nSee: this stays");
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
    fn paths_read_as_their_folders_and_file_names() {
        assert_eq!(
            paths_as_words(&["tsdb/head.go", "README.md"]),
            "tsdb head.go\nREADME.md"
        );
    }
}
