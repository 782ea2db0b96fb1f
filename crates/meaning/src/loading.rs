//! Which model a directory holds, loaded.

use std::path::Path;
use std::sync::Arc;

use kenning_ports::Embedder;

use crate::directory::STATIC_FILE;
use crate::error::ModelError;
use crate::quantised::{Quantised, QUANTISED_FILE};
use crate::static_vectors::StaticVectors;
use crate::transformer::Transformer;
use crate::universal::{Universal, ENCODER_FILE};

/// Whether `dir` holds a model [`load_model`] runs: the universal
/// sentence encoder's weights, the 4-bit multilingual file, or a
/// sentence-transformers model's config and weights.
pub fn holds_model(dir: &Path) -> bool {
    dir.join(ENCODER_FILE).is_file()
        || dir.join(QUANTISED_FILE).is_file()
        || (dir.join("config.json").is_file() && dir.join("model.safetensors").is_file())
}

/// The model in `dir`, run in process: the 4-bit multilingual model when
/// the directory holds [`QUANTISED_FILE`], the universal sentence encoder
/// when it holds [`ENCODER_FILE`], else the sentence-transformers model
/// of its `config.json`, `model.safetensors` and `tokenizer.json`.
pub fn load_model(dir: &Path) -> Result<Arc<dyn Embedder>, ModelError> {
    if dir.join(ENCODER_FILE).is_file() {
        Ok(Arc::new(Universal::load(dir)?))
    } else if dir.join(QUANTISED_FILE).is_file() {
        Ok(Arc::new(Quantised::load(dir)?))
    } else {
        Ok(Arc::new(Transformer::load(dir)?))
    }
}

/// The static vectors of the model in `dir`, distilled from the model and
/// written there first when they never were ([`STATIC_FILE`] missing,
/// the model's `model.safetensors` present): a first start needs only the
/// fetched model, and pays the distillation (about half a minute) once.
pub fn load_or_distil(dir: &Path) -> Result<StaticVectors, ModelError> {
    if dir.join(STATIC_FILE).is_file() || !dir.join("model.safetensors").is_file() {
        return StaticVectors::load(dir);
    }
    log::info!(
        "meaning: distilling static vectors from the model in {} (once)",
        dir.display()
    );
    let vectors = Transformer::load(dir)?.distil()?;
    vectors.save(dir)?;
    Ok(vectors)
}
