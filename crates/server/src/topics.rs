//! `kenning topics extract`: the topics an upload would teach, previewed.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::TopicExtractor;
use serde_json::json;

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Read the input as HTML (only its visible text counts).
    #[arg(long)]
    html: bool,
    /// Read with the rules of this language (ISO 639-1) instead of
    /// detecting it.
    #[arg(long, value_parser = parse_language)]
    lang: Option<String>,
    /// The most topics per input.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    limit: u16,
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
    let extractor = KeyphraseExtractor::new();
    let mut out = std::io::stdout().lock();
    for (file, text) in inputs {
        let found = extractor.extract(&text, format, args.lang.as_deref(), args.limit.into());
        let topics: Vec<_> = found
            .topics
            .iter()
            .map(|t| json!({ "topic": t.label, "key": t.key, "score": t.relevance }))
            .collect();
        let line = json!({ "file": file, "language": found.language, "topics": topics });
        writeln!(out, "{line}")?;
    }
    Ok(())
}
