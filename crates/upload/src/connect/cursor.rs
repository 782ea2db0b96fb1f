//! Where a source's run resumes: a small file per source, beside the
//! connector (the server does not know the source's positions, and the
//! connector runs where the source is). Written whole to a new file and
//! renamed over the old one, so a crash leaves the old cursor or the new,
//! never half of one. Losing it costs time, never data: the next run
//! reads from the beginning, and every upload it sends again is a
//! duplicate by its alias.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sha2::{Digest, Sha256};

use super::source::Source;

/// The cursor file of one source.
#[derive(Debug, Clone)]
pub struct Cursor {
    path: PathBuf,
    /// The source's name, written into the file so that a person reading
    /// it knows whose it is.
    name: String,
}

impl Cursor {
    /// The cursor of the source `kind` named `name`, in `dir`
    /// (`$XDG_STATE_HOME/kenning/connect`, else
    /// `~/.local/state/kenning/connect`, when `None`).
    pub fn of(dir: Option<&Path>, kind: &str, name: &str) -> anyhow::Result<Self> {
        let dir = match dir {
            Some(dir) => dir.to_owned(),
            None => default_dir()?,
        };
        let digest = Sha256::digest(name.as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        Ok(Self {
            path: dir.join(format!("{kind}-{hex}.cursor")),
            name: name.to_owned(),
        })
    }

    /// The cursor of `source` and the choices that shape what its run
    /// teaches ([`Source::choices`]), in `dir` as [`of`](Self::of) says: a
    /// run with other choices keeps a cursor of its own.
    pub fn of_source(dir: Option<&Path>, source: &dyn Source) -> anyhow::Result<Self> {
        let choices = source.choices();
        let name = if choices.is_empty() {
            source.name()
        } else {
            format!("{} ({choices})", source.name())
        };
        Self::of(dir, source.kind(), &name)
    }

    /// The file.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The position stored, if any.
    pub fn load(&self) -> anyhow::Result<Option<String>> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(text
                .lines()
                .find_map(|line| line.strip_prefix("position "))
                .map(str::to_owned)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => {
                Err(e).with_context(|| format!("cannot read the cursor {}", self.path.display()))
            }
        }
    }

    /// Stores `position`, whole or not at all.
    pub fn store(&self, position: &str) -> anyhow::Result<()> {
        let context = || format!("cannot write the cursor {}", self.path.display());
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).with_context(context)?;
        }
        let fresh = self.path.with_extension("cursor.new");
        let name = self.name.replace(['\n', '\r'], " ");
        std::fs::write(&fresh, format!("source {name}\nposition {position}\n"))
            .with_context(context)?;
        let file = std::fs::File::open(&fresh).with_context(context)?;
        file.sync_all().with_context(context)?;
        std::fs::rename(&fresh, &self.path).with_context(context)
    }
}

fn default_dir() -> anyhow::Result<PathBuf> {
    if let Some(state) = std::env::var_os("XDG_STATE_HOME").filter(|s| !s.is_empty()) {
        return Ok(PathBuf::from(state).join("kenning").join("connect"));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).context(
        "neither XDG_STATE_HOME nor HOME is set: name a folder for the cursors with --cursor-dir",
    )?;
    Ok(PathBuf::from(home)
        .join(".local")
        .join("state")
        .join("kenning")
        .join("connect"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_is_stored_whole_and_read_back_per_source() {
        let dir = std::env::temp_dir().join(format!("kenning-cursor-{}", std::process::id()));
        let one = Cursor::of(Some(&dir), "git", "/srv/one").unwrap();
        let two = Cursor::of(Some(&dir), "git", "/srv/two").unwrap();
        assert_ne!(one.path(), two.path());
        assert_eq!(one.load().unwrap(), None);
        one.store("abc123").unwrap();
        one.store("def456").unwrap();
        assert_eq!(one.load().unwrap().as_deref(), Some("def456"));
        assert_eq!(two.load().unwrap(), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
