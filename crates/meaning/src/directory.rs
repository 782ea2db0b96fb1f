//! A model's directory, as both embedders read it: its name, its
//! tokenizer, and the file static vectors are written to.

use std::path::Path;

use crate::error::ModelError;

/// The file static vectors are written to in a model's directory.
pub const STATIC_FILE: &str = "static.safetensors";

/// The model's name: its directory's.
pub(crate) fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into())
}

/// The model's tokenizer, from its `tokenizer.json`.
pub(crate) fn tokenizer(dir: &Path) -> Result<tokenizers::Tokenizer, ModelError> {
    let path = dir.join("tokenizer.json");
    if !path.is_file() {
        return Err(ModelError::Read {
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            path,
        });
    }
    let mut tokenizer =
        tokenizers::Tokenizer::from_file(&path).map_err(|e| ModelError::invalid(&path, e))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// The token a WordPiece vocabulary reads a word it cannot spell as.
const UNKNOWN: &str = "[UNK]";

/// How many tokens `tokenizer` spells `word` with (see
/// [`kenning_ports::Embedder::pieces`]).
pub(crate) fn pieces(tokenizer: &tokenizers::Tokenizer, word: &str) -> usize {
    match tokenizer.encode(word, false) {
        Ok(encoding) if !encoding.get_tokens().iter().any(|t| t == UNKNOWN) => {
            encoding.get_ids().len()
        }
        _ => unspellable(word),
    }
}

/// The pieces a word counts as when a vocabulary lacks one of its
/// characters: more than any spelling of it, so that it is spelled worst.
pub(crate) fn unspellable(word: &str) -> usize {
    word.chars().count() + 1
}
