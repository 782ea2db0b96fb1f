//! The arguments of `kenning upload`.

use std::path::PathBuf;

use clap::Args;

use crate::send::Sending;

/// The arguments of `kenning upload`.
#[derive(Debug, Args)]
pub struct UploadArgs {
    /// A JSON Lines file (one upload object a line, as the connector API
    /// takes it) or a directory of .txt, .md, .html files (one upload per
    /// file; sub-directories too).
    pub(crate) input: PathBuf,
    #[command(flatten)]
    pub(crate) sending: Sending,
    /// For a directory: a CSV (header row `path,user_email,...`) or JSON
    /// file giving each file's upload fields by its path relative to the
    /// directory: user_email, action_type, action_date, entity_type,
    /// action_alias.
    #[arg(long)]
    pub(crate) mapping: Option<PathBuf>,
    /// For a directory: the user_email of files the mapping does not name.
    #[arg(long)]
    pub(crate) user_email: Option<String>,
    /// For a directory: the action_type of files the mapping gives none.
    #[arg(long, default_value = "create")]
    pub(crate) action_type: String,
    /// For a directory: the entity_type of files the mapping gives none.
    #[arg(long, default_value = "document")]
    pub(crate) entity_type: String,
    /// For a directory: the action_date of files the mapping gives none
    /// (default: each file's modification time).
    #[arg(long)]
    pub(crate) action_date: Option<String>,
    /// The checkpoint: what the server acknowledged, one key a line
    /// (default: INPUT's path with `.kenning-checkpoint`).
    #[arg(long)]
    pub(crate) checkpoint: Option<PathBuf>,
    /// The report of refused and failed uploads, one JSON object a line
    /// (default: INPUT's path with `.kenning-failures.jsonl`).
    #[arg(long)]
    pub(crate) report: Option<PathBuf>,
    /// Seconds between progress lines when standard error is not a
    /// terminal.
    #[arg(long, default_value_t = 10)]
    pub(crate) progress_secs: u64,
}
