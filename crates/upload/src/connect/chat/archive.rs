//! An export as the zip a chat gives, or the folder it unzips to: its
//! files by name, each opened alone and read as a stream, so that no more
//! than one is in memory at a time.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use anyhow::Context as _;
use sha2::{Digest, Sha256};
use zip::ZipArchive;

/// A zip file or a folder.
#[derive(Debug)]
pub struct Archive {
    path: PathBuf,
    zip: Option<ZipArchive<BufReader<File>>>,
}

impl Archive {
    /// The zip file or folder at `path`; an error in one line when it is
    /// neither, or the zip cannot be read (truncated, damaged).
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("{}: no such file or folder", path.display()))?;
        if path.is_dir() {
            return Ok(Self { path, zip: None });
        }
        let file =
            File::open(&path).with_context(|| format!("{}: cannot be opened", path.display()))?;
        let zip = ZipArchive::new(BufReader::new(file)).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a zip file Kenning can read (truncated or damaged?): {e}",
                path.display()
            )
        })?;
        Ok(Self {
            path,
            zip: Some(zip),
        })
    }

    /// Where it is, made absolute.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its files' names, `/` between folders: every file of a zip, and a
    /// folder's files and its subfolders' files (an export is two deep).
    pub fn names(&self) -> anyhow::Result<Vec<String>> {
        if let Some(zip) = &self.zip {
            return Ok(zip
                .file_names()
                .filter(|name| !name.ends_with('/'))
                .map(str::to_owned)
                .collect());
        }
        let list = |dir: &Path| {
            std::fs::read_dir(dir)
                .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
                .with_context(|| format!("{}: cannot be listed", dir.display()))
        };
        let mut names = Vec::new();
        for entry in list(&self.path)? {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                for inner in list(&entry.path())? {
                    if inner.path().is_file() {
                        names.push(format!("{name}/{}", inner.file_name().to_string_lossy()));
                    }
                }
            } else {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// The file `name`, to read as a stream (a zip's entry is inflated as
    /// it is read, its checksum checked at its end).
    pub fn open_file(&mut self, name: &str) -> std::io::Result<Box<dyn Read + '_>> {
        match &mut self.zip {
            Some(zip) => Ok(Box::new(zip.by_name(name).map_err(std::io::Error::other)?)),
            None => Ok(Box::new(BufReader::new(File::open(self.path.join(name))?))),
        }
    }

    /// The file `name` whole, or an error when it cannot be read or holds
    /// more than `limit` bytes.
    pub fn read(&mut self, name: &str, limit: u64) -> std::io::Result<Vec<u8>> {
        let mut content = Vec::new();
        self.open_file(name)?
            .take(limit.saturating_add(1))
            .read_to_end(&mut content)?;
        if content.len() as u64 > limit {
            return Err(std::io::Error::other(format!(
                "larger than {} MiB",
                limit >> 20
            )));
        }
        Ok(content)
    }

    /// What changes when `name`'s content does, without reading it: a
    /// zip entry's CRC-32 and size, a file's size and modification time.
    pub fn fingerprint(&mut self, name: &str) -> String {
        let facts = match &mut self.zip {
            Some(zip) => zip
                .by_name(name)
                .map(|entry| format!("{:08x} {}", entry.crc32(), entry.size()))
                .unwrap_or_default(),
            None => std::fs::metadata(self.path.join(name))
                .map(|meta| {
                    let modified = meta
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                        .map(|d| d.as_nanos())
                        .unwrap_or_default();
                    format!("{} {modified}", meta.len())
                })
                .unwrap_or_default(),
        };
        let digest = Sha256::digest(format!("{name}\n{facts}").as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}
