//! `kenning topics extract`: what an upload of a file would teach,
//! previewed: the same topics, labels and scale as an upload's answer,
//! each marked shown (people read it) or kept for ranking alone.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use kenning_app::preview_topics;
use kenning_domain::{Descriptor, TextFormat, UploadText};
use kenning_keyphrase::KeyphraseExtractor;
use serde_json::json;

use crate::compounds_args::{CompoundsArgs, COMPOUNDS};
use crate::scoring_args::ScoringArgs;

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Read the input as HTML (only its visible text counts).
    #[arg(long)]
    html: bool,
    /// Read with the rules of this language (ISO 639-1) instead of
    /// detecting it.
    #[arg(long, value_parser = parse_language)]
    lang: Option<String>,
    /// The most topics printed per input (default: every topic an upload
    /// would teach).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    limit: Option<u16>,
    /// Read the input as a text of this descriptor, which weighs its
    /// topics as an upload's would: primary, default or secondary.
    #[arg(long, default_value = "default", value_parser = parse_descriptor)]
    descriptor: Descriptor,
    #[command(flatten)]
    scoring: ScoringArgs,
    #[command(flatten)]
    compounds: CompoundsArgs,
    /// Files to read; standard input when none is given.
    files: Vec<PathBuf>,
}

fn parse_language(raw: &str) -> Result<String, String> {
    let code = raw.trim().to_ascii_lowercase();
    if KeyphraseExtractor::languages().any(|l| l == code) {
        Ok(code)
    } else {
        let known: Vec<&str> = KeyphraseExtractor::languages().collect();
        Err(format!(
            "{raw:?} is not a supported language (supported: {})",
            known.join(", ")
        ))
    }
}

fn parse_descriptor(raw: &str) -> Result<Descriptor, String> {
    Descriptor::from_name(raw.trim())
        .ok_or_else(|| format!("{raw:?} is not a descriptor (one of primary, default, secondary)"))
}

fn read(path: &PathBuf) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", path.display()))
}

/// Reads every input first, so that an unreadable file stops the command
/// before anything is printed.
pub fn extract(args: ExtractArgs) -> anyhow::Result<()> {
    let inputs: Vec<(String, String)> = if args.files.is_empty() {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("standard input is not UTF-8 text")?;
        vec![("-".to_owned(), text)]
    } else {
        args.files
            .iter()
            .map(|path| Ok((path.display().to_string(), read(path)?)))
            .collect::<anyhow::Result<_>>()?
    };
    let format = if args.html {
        TextFormat::Html
    } else {
        TextFormat::Plain
    };
    let scoring = args.scoring.scoring()?;
    let places =
        kenning::models::model_places(COMPOUNDS, "", kenning::models::data_home().as_deref());
    let extractor = kenning::keyphrase_extractor(args.compounds.dir(&places).as_deref());
    let mut out = std::io::stdout().lock();
    for (file, text) in inputs {
        let texts = [UploadText {
            text,
            format,
            descriptor: args.descriptor,
        }];
        let (language, taught) = preview_topics(&extractor, &texts, args.lang.as_deref(), &scoring);
        let limit = args.limit.map_or(usize::MAX, usize::from);
        let topics: Vec<_> = taught
            .iter()
            .take(limit)
            .map(|t| json!({ "topic": t.label, "key": t.key, "score": t.score, "shown": t.shown }))
            .collect();
        let line = json!({ "file": file, "language": language, "topics": topics });
        writeln!(out, "{line}")?;
    }
    Ok(())
}
