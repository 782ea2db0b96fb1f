//! Which model a directory holds, loaded.

use std::path::Path;
use std::sync::Arc;

use kenning_ports::Embedder;

use crate::error::ModelError;
use crate::quantised::{Quantised, QUANTISED_FILE};
use crate::transformer::Transformer;

/// The model in `dir`, run in process: the 4-bit multilingual model when
/// the directory holds [`QUANTISED_FILE`], else the sentence-transformers
/// model of its `config.json`, `model.safetensors` and `tokenizer.json`.
pub fn load_model(dir: &Path) -> Result<Arc<dyn Embedder>, ModelError> {
    if dir.join(QUANTISED_FILE).is_file() {
        Ok(Arc::new(Quantised::load(dir)?))
    } else {
        Ok(Arc::new(Transformer::load(dir)?))
    }
}
