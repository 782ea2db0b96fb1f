//! What `kenning upload` sends: the uploads of a JSON Lines file, or one
//! upload per file of a directory, read one at a time.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// One upload to send.
#[derive(Debug, Clone)]
pub struct Item {
    /// Its key in the checkpoint: a digest of where it comes from and what
    /// it holds, so an item changed since the last run is sent again.
    pub id: String,
    /// Where it comes from, for the report: `line 12` or a file's path.
    pub origin: String,
    /// The upload object.
    pub body: Value,
}

/// An input that could not become an upload, with why.
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub origin: String,
    pub problem: String,
}

/// The texts `kenning upload` reads from a directory, by extension, and
/// how the server is to read them.
const FORMATS: [(&str, &str); 6] = [
    ("txt", "plain"),
    ("text", "plain"),
    ("md", "plain"),
    ("markdown", "plain"),
    ("html", "html"),
    ("htm", "html"),
];

/// The upload fields a directory's mapping (or the flags) may set.
pub const MAPPED_FIELDS: [&str; 5] = [
    "user_email",
    "action_type",
    "action_date",
    "entity_type",
    "action_alias",
];

fn digest(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The lines of a JSON Lines file that hold something.
pub fn count_lines(path: &Path) -> anyhow::Result<u64> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut n = 0;
    for line in BufReader::new(file).lines() {
        if !line?.trim().is_empty() {
            n += 1;
        }
    }
    Ok(n)
}

/// The uploads of a JSON Lines file, one object a line (blank lines are
/// skipped), in order.
pub fn jsonl(
    path: &Path,
) -> anyhow::Result<impl Iterator<Item = anyhow::Result<Result<Item, Unreadable>>>> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let lines = BufReader::new(file).lines().enumerate();
    Ok(lines.filter_map(|(at, line)| {
        let line = match line {
            Ok(line) => line,
            Err(e) => return Some(Err(anyhow::Error::new(e).context("reading the input"))),
        };
        if line.trim().is_empty() {
            return None;
        }
        let origin = format!("line {}", at + 1);
        Some(Ok(match serde_json::from_str::<Value>(&line) {
            Ok(body @ Value::Object(_)) => Ok(Item {
                id: digest(&[b"jsonl", line.trim().as_bytes()]),
                origin,
                body,
            }),
            Ok(_) => Err(Unreadable {
                origin,
                problem: "the line is not a JSON object".to_owned(),
            }),
            Err(e) => Err(Unreadable {
                origin,
                problem: format!("the line is not valid JSON: {e}"),
            }),
        }))
    }))
}

/// The files of `root` that `kenning upload` reads, by path, sorted;
/// `skip` are left out (the checkpoint, the report, the mapping).
pub fn files(root: &Path, skip: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .with_context(|| format!("cannot list {}", folder.display()))?;
        for entry in entries {
            let path = entry?.path();
            let hidden = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'));
            if hidden || skip.iter().any(|s| same_file(s, &path)) {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if format_of(&path).is_some() {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// How the server is to read a file, by its extension; `None` for a file
/// `kenning upload` does not send.
fn format_of(path: &Path) -> Option<&'static str> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    FORMATS
        .iter()
        .find(|(e, _)| *e == extension)
        .map(|(_, format)| *format)
}

/// The upload fields of each file, by its path relative to the directory,
/// from a CSV file (a header row naming `path` and some of
/// [`MAPPED_FIELDS`]) or a JSON file (an object from path to fields, or
/// an array of objects with `path`).
pub fn mapping(path: &Path) -> anyhow::Result<HashMap<String, Map<String, Value>>> {
    let is_json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let rows: Vec<Map<String, Value>> = if is_json {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match serde_json::from_str::<Value>(&text)
            .with_context(|| format!("{} is not valid JSON", path.display()))?
        {
            Value::Object(by_path) => by_path
                .into_iter()
                .map(|(file, fields)| match fields {
                    Value::Object(mut fields) => {
                        fields.insert("path".to_owned(), Value::String(file));
                        Ok(fields)
                    }
                    _ => anyhow::bail!("{}: the entry of {file} is not an object", path.display()),
                })
                .collect::<anyhow::Result<_>>()?,
            Value::Array(rows) => rows
                .into_iter()
                .map(|row| match row {
                    Value::Object(fields) => Ok(fields),
                    _ => anyhow::bail!("{}: an entry is not an object", path.display()),
                })
                .collect::<anyhow::Result<_>>()?,
            _ => anyhow::bail!("{}: expected an object or an array", path.display()),
        }
    } else {
        let mut reader = csv::Reader::from_path(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let headers = reader.headers()?.clone();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.with_context(|| format!("{} is not valid CSV", path.display()))?;
            rows.push(
                headers
                    .iter()
                    .zip(record.iter())
                    .filter(|(_, value)| !value.is_empty())
                    .map(|(name, value)| (name.to_owned(), Value::String(value.to_owned())))
                    .collect(),
            );
        }
        rows
    };
    let mut by_path = HashMap::new();
    for mut row in rows {
        let Some(Value::String(file)) = row.remove("path") else {
            anyhow::bail!("{}: every entry needs a path", path.display());
        };
        if let Some(unknown) = row.keys().find(|k| !MAPPED_FIELDS.contains(&k.as_str())) {
            anyhow::bail!(
                "{}: {unknown} is not one of path, {}",
                path.display(),
                MAPPED_FIELDS.join(", ")
            );
        }
        by_path.insert(file.replace('\\', "/"), row);
    }
    Ok(by_path)
}

/// The upload of one file of `root`: the fields from its mapping row, else
/// from `defaults`; `action_date` falls back to the file's modification
/// time, `action_alias` to its path and a digest of its content, so a run
/// cut short and repeated never stores a file twice.
pub fn file_item(
    root: &Path,
    file: &Path,
    mapped: Option<&Map<String, Value>>,
    defaults: &Map<String, Value>,
) -> anyhow::Result<Result<Item, Unreadable>> {
    let relative = file
        .strip_prefix(root)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/");
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let unreadable = |problem: String| {
        Ok(Err(Unreadable {
            origin: relative.clone(),
            problem,
        }))
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return unreadable("the file is not UTF-8 text".to_owned());
    };
    let mut body = Map::new();
    for field in MAPPED_FIELDS {
        if let Some(value) = mapped.and_then(|m| m.get(field)).or(defaults.get(field)) {
            body.insert(field.to_owned(), value.clone());
        }
    }
    if !body.contains_key("user_email") {
        return unreadable(
            "no user_email: the file has no row in the mapping and --user-email is not given"
                .to_owned(),
        );
    }
    if !body.contains_key("action_date") {
        let modified: DateTime<Utc> = std::fs::metadata(file)?.modified()?.into();
        body.insert(
            "action_date".to_owned(),
            json!(modified.to_rfc3339_opts(SecondsFormat::Millis, true)),
        );
    }
    let content = digest(&[text.as_bytes()]);
    if !body.contains_key("action_alias") {
        let alias = format!("{relative}#{}", &content[..12]);
        let alias = if alias.chars().count() > 255 {
            digest(&[relative.as_bytes(), text.as_bytes()])
        } else {
            alias
        };
        body.insert("action_alias".to_owned(), json!(alias));
    }
    let format = format_of(file).unwrap_or("plain");
    body.insert(
        "texts".to_owned(),
        json!([{ "text": text, "text_format": format }]),
    );
    let fields = serde_json::to_string(&body)?;
    Ok(Ok(Item {
        id: digest(&[b"file", relative.as_bytes(), fields.as_bytes()]),
        origin: relative,
        body: Value::Object(body),
    }))
}
