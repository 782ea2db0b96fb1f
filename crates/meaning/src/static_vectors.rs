//! Static vectors: one per token of the model's vocabulary, distilled from
//! the model once; a text's vector is the mean of its tokens'.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use kenning_ports::{Embedder, Scale};

use crate::calibration::{reference_words, same_subject_pairs, Reference};
use crate::directory::{name_of, pieces, tokenizer, STATIC_FILE};
use crate::error::ModelError;
use crate::vector::unit;

/// The tensor the vectors are kept under in [`STATIC_FILE`].
const TENSOR: &str = "vectors";

/// A vector per token, and the tokenizer that splits a text into them.
pub struct StaticVectors {
    name: String,
    tokenizer: tokenizers::Tokenizer,
    vectors: Vec<f32>,
    dimensions: usize,
    reference: Reference,
}

impl std::fmt::Debug for StaticVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticVectors")
            .field("name", &self.name)
            .field("tokens", &(self.vectors.len() / self.dimensions.max(1)))
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl StaticVectors {
    /// `vectors` (one unit row of `dimensions` per token id of
    /// `tokenizer`), with a spread of the vocabulary's whole words as the
    /// reference of unrelated texts.
    pub(crate) fn new(
        name: String,
        tokenizer: tokenizers::Tokenizer,
        vectors: Vec<f32>,
        dimensions: usize,
    ) -> Self {
        let rows = vectors.len() / dimensions.max(1);
        let sample: Vec<f32> =
            reference_words(tokenizer.get_vocab(false), |id| (id as usize) < rows)
                .into_iter()
                .flat_map(|(_, id)| {
                    let row = id as usize * dimensions;
                    vectors[row..row + dimensions].iter().copied()
                })
                .collect();
        let mut vectors = Self {
            name,
            tokenizer,
            reference: Reference::default(),
            vectors,
            dimensions,
        };
        let pairs = same_subject_pairs();
        let firsts: Vec<Option<Vec<f32>>> = pairs.iter().map(|(a, _)| vectors.embed(a)).collect();
        let seconds: Vec<Option<Vec<f32>>> = pairs.iter().map(|(_, b)| vectors.embed(b)).collect();
        vectors.reference = Reference::new(sample, dimensions).measured(&firsts, &seconds);
        vectors
    }

    /// The static vectors of the model in `dir` ([`STATIC_FILE`] and the
    /// model's `tokenizer.json`).
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let path = dir.join(STATIC_FILE);
        if !path.is_file() {
            return Err(ModelError::Read {
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                path,
            });
        }
        let tensors = candle_core::safetensors::load(&path, &Device::Cpu)
            .map_err(|e| ModelError::invalid(&path, e))?;
        let tensor = tensors
            .get(TENSOR)
            .ok_or_else(|| ModelError::invalid(&path, format!("no tensor {TENSOR:?}")))?;
        let (rows, dimensions) = tensor.dims2().map_err(|e| ModelError::invalid(&path, e))?;
        let vectors: Vec<f32> = tensor
            .flatten_all()
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| ModelError::invalid(&path, e))?;
        let tokenizer = tokenizer(dir)?;
        if tokenizer.get_vocab_size(true) > rows {
            return Err(ModelError::invalid(
                &path,
                format!(
                    "{rows} vectors for a vocabulary of {}",
                    tokenizer.get_vocab_size(true)
                ),
            ));
        }
        Ok(Self::new(name_of(dir), tokenizer, vectors, dimensions))
    }

    /// Writes the vectors to [`STATIC_FILE`] in `dir`, whole or not at
    /// all: written beside it first and renamed into place, so that a
    /// reader (another instance starting) never finds half a file.
    pub fn save(&self, dir: &Path) -> Result<(), ModelError> {
        let path = dir.join(STATIC_FILE);
        let writing = dir.join(format!("{STATIC_FILE}.{}.part", std::process::id()));
        let rows = self.vectors.len() / self.dimensions.max(1);
        let tensor = Tensor::from_slice(&self.vectors, (rows, self.dimensions), &Device::Cpu)?;
        let tensors = HashMap::from([(TENSOR.to_owned(), tensor)]);
        let failed = |reason: String| ModelError::Write {
            path: path.clone(),
            reason,
        };
        candle_core::safetensors::save(&tensors, &writing).map_err(|e| failed(e.to_string()))?;
        std::fs::rename(&writing, &path).map_err(|e| failed(e.to_string()))
    }
}

impl Embedder for StaticVectors {
    fn model(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let encoding = self.tokenizer.encode(text, false).ok()?;
        let mut sum = vec![0.0f32; self.dimensions];
        let mut counted = 0;
        for id in encoding.get_ids() {
            let at = *id as usize * self.dimensions;
            if let Some(row) = self.vectors.get(at..at + self.dimensions) {
                sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                counted += 1;
            }
        }
        if counted == 0 {
            return None;
        }
        unit(sum)
    }

    fn scale(&self, vector: &[f32]) -> Scale {
        self.reference.scale(vector)
    }

    fn pieces(&self, word: &str) -> usize {
        pieces(&self.tokenizer, word)
    }
}
