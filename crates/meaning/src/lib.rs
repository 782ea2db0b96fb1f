//! Text embedding for Kenning: a pretrained sentence-embedding model
//! (all-MiniLM-L6-v2, a six-layer BERT) run in process with candle, and
//! static vectors distilled from it, one per token of its vocabulary, as
//! model2vec distils them.
//!
//! A model is a directory with the model's `config.json`,
//! `model.safetensors` and `tokenizer.json` (as the Makefile unpacks them
//! from the package registry) and, once [`Transformer::distil`] wrote it,
//! `static.safetensors`. [`Transformer`] embeds a text by running the
//! model on it (mean pooling, as the model was trained); [`StaticVectors`]
//! by averaging the distilled vectors of its tokens, which costs
//! microseconds instead of milliseconds and knows nothing of context.

#![warn(missing_docs)]

mod calibration;
mod static_vectors;
mod transformer;

use std::path::{Path, PathBuf};

pub use static_vectors::StaticVectors;
pub use transformer::Transformer;

/// The file static vectors are written to in a model's directory.
pub const STATIC_FILE: &str = "static.safetensors";

/// Why a model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file of the model could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file of the model is not what Kenning can run.
    #[error("{path} is not a model Kenning can run: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Running the model failed.
    #[error("running the model failed: {0}")]
    Run(String),
}

impl ModelError {
    fn invalid(path: &Path, reason: impl std::fmt::Display) -> Self {
        Self::Invalid {
            path: path.to_owned(),
            reason: reason.to_string(),
        }
    }
}

impl From<candle_core::Error> for ModelError {
    fn from(e: candle_core::Error) -> Self {
        Self::Run(e.to_string())
    }
}

/// The model's name: its directory's.
fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into())
}

/// The model's tokenizer, from its `tokenizer.json`.
fn tokenizer(dir: &Path) -> Result<tokenizers::Tokenizer, ModelError> {
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

/// `vector` scaled to unit length; `None` when it is zero.
fn unit(mut vector: Vec<f32>) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm <= f32::EPSILON || !norm.is_finite() {
        return None;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    Some(vector)
}
