//! Maildir folders (Dovecot's, Courier's, `mbsync`'s, Postfix's): a file
//! per message in `new/` and `cur/`.
//!
//! The messages are read in the order they arrived in the folder: by the
//! time of the file's last change of name or place (its ctime), then its
//! unique name (the part before `:2,`). The cursor is the last one
//! handled. Not the modification time: servers set it to the message's
//! date (Dovecot to an appended message's INTERNALDATE), so a message
//! appended late could carry a time before the cursor and never be read.
//! A file renamed (its flags changed, moved from `new/` to `cur/`) is read
//! again, and its upload is a duplicate. Files changed in the last
//! second are read but the cursor is not moved past them: a file arriving
//! in the same tick of the clock is not missed.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use chrono::{DateTime, Utc};

use super::super::source::{Found, Source, Window};
use crate::connect::mail::message::{judge_in_turn, Place, Rules, Senders, MAX_MESSAGE_BYTES};

/// How recent a change is too recent for the cursor to pass.
const SETTLING: Duration = Duration::from_secs(1);

/// One Maildir folder.
#[derive(Debug)]
pub struct Maildir {
    path: PathBuf,
    rules: Rules,
}

/// A message file and where it sorts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    /// Its ctime, in nanoseconds since 1970.
    changed: i128,
    /// Its unique name (before `:2,`).
    unique: String,
    path: PathBuf,
    /// Its Maildir flags (after `:2,`).
    flags: String,
}

impl Maildir {
    /// The Maildir folder at `path` (one with `cur/` or `new/`).
    pub fn open(path: &Path, rules: Rules) -> anyhow::Result<Self> {
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("{}: no such folder", path.display()))?;
        anyhow::ensure!(
            is_maildir(&path),
            "{}: not a Maildir (no cur/ or new/ folder) and not an mbox file",
            path.display()
        );
        Ok(Self { path, rules })
    }

    /// The messages after `after`, in order.
    fn entries(&self, after: Option<&(i128, String)>) -> anyhow::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for sub in ["new", "cur"] {
            let dir = self.path.join(sub);
            if !dir.is_dir() {
                continue;
            }
            let listing = std::fs::read_dir(&dir)
                .with_context(|| format!("{}: cannot list", dir.display()))?;
            for entry in listing {
                let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                // A file gone since the listing (moved to cur/, deleted)
                // is met under its new name or not at all.
                let Ok(meta) = entry.metadata() else {
                    continue;
                };
                if !meta.is_file() {
                    continue;
                }
                let changed =
                    i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
                let (unique, flags) = match name.split_once(":2,") {
                    Some((unique, flags)) => (unique.to_owned(), flags.to_owned()),
                    None => (name.clone(), String::new()),
                };
                if after.is_some_and(|(at, name)| (changed, &unique) <= (*at, name)) {
                    continue;
                }
                entries.push(Entry {
                    changed,
                    unique,
                    path: entry.path(),
                    flags,
                });
            }
        }
        entries.sort();
        Ok(entries)
    }
}

/// Whether `path` is a Maildir folder.
pub fn is_maildir(path: &Path) -> bool {
    path.join("cur").is_dir() || path.join("new").is_dir()
}

impl Source for Maildir {
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
        let after = cursor.and_then(parse_position);
        let listed = nanos(SystemTime::now());
        let settled_before = listed - SETTLING.as_nanos() as i128;
        let mut safe = cursor.map(str::to_owned).unwrap_or_else(|| "0 ".to_owned());
        let mut senders = Senders::default();
        for entry in self.entries(after.as_ref())? {
            if entry.changed < settled_before {
                safe = format!("{} {}", entry.changed, entry.unique);
            }
            let position = safe.clone();
            let origin = entry.path.display().to_string();
            let go_on = if entry.flags.contains('T') {
                found(Found::Skipped {
                    reason: "deleted",
                    position: Some(position),
                })
            } else if entry.flags.contains('D') {
                found(Found::Skipped {
                    reason: "draft",
                    position: Some(position),
                })
            } else {
                found(read_message(
                    &entry,
                    (&self.rules, &mut senders),
                    origin,
                    position,
                ))
            };
            if !go_on {
                break;
            }
        }
        Ok(())
    }
}

/// What the message in `entry` is.
fn read_message(
    entry: &Entry,
    (rules, senders): (&Rules, &mut Senders),
    origin: String,
    position: String,
) -> Found {
    let mut raw = Vec::new();
    let read = std::fs::File::open(&entry.path).and_then(|file| {
        std::io::Read::read_to_end(
            &mut std::io::Read::take(file, MAX_MESSAGE_BYTES as u64),
            &mut raw,
        )
    });
    if let Err(e) = read {
        return Found::Bad {
            origin,
            problem: format!("cannot read: {e}"),
            position: Some(position),
        };
    }
    let arrived = std::fs::metadata(&entry.path)
        .and_then(|meta| meta.modified())
        .ok()
        .map(DateTime::<Utc>::from);
    judge_in_turn(
        &raw,
        rules,
        Place {
            origin,
            position,
            arrived,
        },
        senders,
    )
}

fn nanos(at: SystemTime) -> i128 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or_default()
}

/// `ctime-nanoseconds unique-name`.
fn parse_position(raw: &str) -> Option<(i128, String)> {
    let (at, unique) = raw.split_once(' ')?;
    Some((at.parse().ok()?, unique.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, sub: &str, name: &str, subject: &str) {
        std::fs::write(
            dir.join(sub).join(name),
            format!(
                "From: Ada Lovelace <ada@example.com>\nSubject: {subject}\nMessage-ID: <{name}@example.com>\nDate: Mon, 2 Feb 2026 10:00:00 +0000\n\n{subject} in detail.\n"
            ),
        )
        .unwrap();
    }

    fn read(maildir: &mut Maildir, cursor: Option<&str>) -> (Vec<Found>, Option<String>) {
        let mut all = Vec::new();
        maildir
            .read(cursor, &Window::default(), &mut |found| {
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

    #[test]
    fn files_are_read_in_arrival_order_and_the_cursor_waits_for_them_to_settle() {
        let dir = std::env::temp_dir().join(format!("kenning-maildir-{}", std::process::id()));
        for sub in ["cur", "new", "tmp"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        write(&dir, "cur", "1770000000.M1P1.host:2,S", "Gears");
        write(&dir, "cur", "1770000001.M2P1.host:2,SD", "Draft");
        write(&dir, "cur", "1770000002.M3P1.host:2,ST", "Trashed");
        let mut maildir = Maildir::open(
            &dir,
            Rules {
                all_sent: true,
                senders: Vec::new(),
                own: Vec::new(),
            },
        )
        .unwrap();
        let (fresh, position) = read(&mut maildir, None);
        assert_eq!(fresh.len(), 3, "{fresh:?}");
        assert!(
            matches!(&fresh[0], Found::Item(item) if item.id == "1770000000.M1P1.host:2,S@example.com")
        );
        assert!(matches!(
            &fresh[1],
            Found::Skipped {
                reason: "draft",
                ..
            }
        ));
        assert!(matches!(
            &fresh[2],
            Found::Skipped {
                reason: "deleted",
                ..
            }
        ));
        // Just written: read, but the cursor stays before them.
        assert_eq!(position.as_deref(), Some("0 "));
        std::thread::sleep(SETTLING + Duration::from_millis(100));
        let (settled, position) = read(&mut maildir, position.as_deref());
        assert_eq!(settled.len(), 3);
        assert!(
            position
                .as_deref()
                .is_some_and(|p| p.ends_with(" 1770000002.M3P1.host")),
            "{position:?}"
        );
        let (again, _) = read(&mut maildir, position.as_deref());
        assert!(again.is_empty(), "{again:?}");
        write(&dir, "new", "1770000003.M4P1.host", "Levers");
        let (newer, _) = read(&mut maildir, position.as_deref());
        assert!(
            matches!(&newer[..], [Found::Item(item)] if item.texts[0].text == "Levers"),
            "{newer:?}"
        );

        let not = Maildir::open(&dir.join("cur"), Rules::default())
            .unwrap_err()
            .to_string();
        assert!(not.contains("not a Maildir"), "{not}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
