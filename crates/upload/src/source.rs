//! `kenning upload`'s sources of the connect engine: a JSON Lines file,
//! one upload a line, and a folder of texts, one upload a file, each
//! written whole ([`Found::Whole`]); what the checkpoint names as
//! acknowledged is skipped.

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::{json, Map, Value};

use crate::args::UploadArgs;
use crate::connect::{Found, Source, Whole, Window};
use crate::input::{self, Item, Unreadable};
use crate::tally::ACKNOWLEDGED_BEFORE;

/// What `kenning upload` reads, and the keys acknowledged before.
pub struct Uploads {
    input: Input,
    done: HashSet<String>,
    /// How many items it holds.
    total: u64,
}

impl Uploads {
    /// The input `args` name, less the files in `skip` (the checkpoint,
    /// the report), with the keys `done` acknowledged before.
    pub fn open(
        args: &UploadArgs,
        skip: &[PathBuf],
        done: HashSet<String>,
    ) -> anyhow::Result<Self> {
        let input = Input::open(args, skip)?;
        let total = input.count()?;
        Ok(Self { input, done, total })
    }
}

impl Source for Uploads {
    fn kind(&self) -> &'static str {
        "upload"
    }

    fn name(&self) -> String {
        match &self.input {
            Input::Jsonl(path) => path.display().to_string(),
            Input::Directory { root, .. } => root.display().to_string(),
        }
    }

    fn total(&self) -> Option<u64> {
        Some(self.total)
    }

    /// Reads from the beginning: what was acknowledged is skipped by its
    /// key, so an upload refused before is sent again.
    fn read(
        &mut self,
        _cursor: Option<&str>,
        _window: &Window,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> anyhow::Result<()> {
        let done = &self.done;
        self.input.each(&mut |read| {
            let next = match read {
                Ok(item) if done.contains(&item.id) => Found::Skipped {
                    reason: ACKNOWLEDGED_BEFORE,
                    position: Some(item.origin),
                },
                Ok(Item { id, origin, body }) => Found::Whole(Whole {
                    key: id,
                    position: origin.clone(),
                    origin,
                    body,
                }),
                Err(Unreadable { origin, problem }) => Found::Bad {
                    position: Some(origin.clone()),
                    origin,
                    problem,
                },
            };
            found(next)
        })
    }
}

/// Where the uploads come from.
enum Input {
    Jsonl(PathBuf),
    Directory {
        root: PathBuf,
        files: Vec<PathBuf>,
        mapping: std::collections::HashMap<String, Map<String, Value>>,
        defaults: Map<String, Value>,
    },
}

impl Input {
    fn open(args: &UploadArgs, skip: &[PathBuf]) -> anyhow::Result<Self> {
        let meta = std::fs::metadata(&args.input)
            .with_context(|| format!("cannot read {}", args.input.display()))?;
        if !meta.is_dir() {
            anyhow::ensure!(
                args.mapping.is_none() && args.user_email.is_none() && args.action_date.is_none(),
                "--mapping, --user-email and --action-date are for a directory; \
                 each line of a JSON Lines file is a whole upload"
            );
            return Ok(Input::Jsonl(args.input.clone()));
        }
        let mut skip = skip.to_vec();
        skip.extend(args.mapping.clone());
        let mapping = match &args.mapping {
            Some(path) => input::mapping(path)?,
            None => Default::default(),
        };
        let mut defaults = Map::new();
        defaults.insert("action_type".to_owned(), json!(args.action_type));
        defaults.insert("entity_type".to_owned(), json!(args.entity_type));
        if let Some(email) = &args.user_email {
            defaults.insert("user_email".to_owned(), json!(email));
        }
        if let Some(date) = &args.action_date {
            defaults.insert("action_date".to_owned(), json!(date));
        }
        Ok(Input::Directory {
            files: input::files(&args.input, &skip)?,
            root: args.input.clone(),
            mapping,
            defaults,
        })
    }

    fn count(&self) -> anyhow::Result<u64> {
        match self {
            Input::Jsonl(path) => input::count_lines(path),
            Input::Directory { files, .. } => Ok(files.len() as u64),
        }
    }

    /// Hands `take` each upload, or what could not become one, in order,
    /// until it answers false; an error is an input that cannot be read.
    fn each(&self, take: &mut dyn FnMut(Result<Item, Unreadable>) -> bool) -> anyhow::Result<()> {
        match self {
            Input::Jsonl(path) => {
                for found in input::jsonl(path)? {
                    if !take(found?) {
                        break;
                    }
                }
            }
            Input::Directory {
                root,
                files,
                mapping,
                defaults,
            } => {
                for file in files {
                    let relative = file
                        .strip_prefix(root)
                        .unwrap_or(file)
                        .to_string_lossy()
                        .replace('\\', "/");
                    let found = input::file_item(root, file, mapping.get(&relative), defaults)?;
                    if !take(found) {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}
