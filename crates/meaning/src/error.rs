//! The one error of loading and running a model.

use std::path::{Path, PathBuf};

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
    /// A file derived from the model (its static vectors) could not be
    /// written.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
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
    pub(crate) fn invalid(path: &Path, reason: impl std::fmt::Display) -> Self {
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
