//! The model itself, run with candle on the CPU.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use kenning_ports::{Embedder, Scale};

use crate::calibration::{embedded_reference, Reference};
use crate::directory::{name_of, pieces, tokenizer};
use crate::error::ModelError;
use crate::static_vectors::StaticVectors;
use crate::vector::{mean_pooled, or_none, unit};

/// How many texts are run through the model at once.
const BATCH: usize = 256;
/// The most tokens of a text the model reads (its training length).
const MAX_TOKENS: usize = 128;

/// A sentence-embedding model (BERT with mean pooling) run in process.
pub struct Transformer {
    name: String,
    model: BertModel,
    tokenizer: tokenizers::Tokenizer,
    device: Device,
    dimensions: usize,
    reference: Reference,
}

impl std::fmt::Debug for Transformer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transformer")
            .field("name", &self.name)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|source| ModelError::Read {
        path: path.to_owned(),
        source,
    })
}

impl Transformer {
    /// The model in `dir` (`config.json`, `model.safetensors`,
    /// `tokenizer.json`), with a spread of its vocabulary's words as the
    /// reference of unrelated texts.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let config_path = dir.join("config.json");
        let config: Config = serde_json::from_slice(&read(&config_path)?)
            .map_err(|e| ModelError::invalid(&config_path, e))?;
        let weights_path = dir.join("model.safetensors");
        let device = Device::Cpu;
        let weights =
            VarBuilder::from_buffered_safetensors(read(&weights_path)?, DType::F32, &device)
                .map_err(|e| ModelError::invalid(&weights_path, e))?;
        let model =
            BertModel::load(weights, &config).map_err(|e| ModelError::invalid(&weights_path, e))?;
        let mut transformer = Self {
            name: name_of(dir),
            model,
            tokenizer: tokenizer(dir)?,
            device,
            dimensions: config.hidden_size,
            reference: Reference::default(),
        };
        transformer.reference = embedded_reference(
            transformer.tokenizer.get_vocab(false),
            transformer.dimensions,
            |texts| transformer.embed_all(texts),
        )?;
        Ok(transformer)
    }

    /// The mean-pooled, unit-length output of the model for each row of
    /// token ids (each at most [`MAX_TOKENS`], special tokens included).
    fn pooled(&self, rows: &[Vec<u32>]) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
        let longest = rows.iter().map(Vec::len).max().unwrap_or(0);
        if longest == 0 {
            return Ok(vec![None; rows.len()]);
        }
        let mut ids = Vec::with_capacity(rows.len() * longest);
        let mut mask = Vec::with_capacity(rows.len() * longest);
        for row in rows {
            ids.extend(row.iter().copied());
            ids.extend(std::iter::repeat_n(0, longest - row.len()));
            mask.extend(std::iter::repeat_n(1u32, row.len()));
            mask.extend(std::iter::repeat_n(0u32, longest - row.len()));
        }
        let shape = (rows.len(), longest);
        let ids = Tensor::from_vec(ids, shape, &self.device)?;
        let mask = Tensor::from_vec(mask, shape, &self.device)?;
        let types = ids.zeros_like()?;
        let output = self.model.forward(&ids, &types, Some(&mask))?;
        Ok(mean_pooled(&output, &mask)?)
    }

    /// The vector of each of `texts`, `None` for a text without a token.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let mut rows = Vec::with_capacity(batch.len());
            for text in batch {
                let encoding = self
                    .tokenizer
                    .encode(*text, true)
                    .map_err(|e| ModelError::Run(e.to_string()))?;
                let mut ids = encoding.get_ids().to_vec();
                if ids.len() > MAX_TOKENS {
                    // The last token is the separator the model expects.
                    let last = ids[ids.len() - 1];
                    ids.truncate(MAX_TOKENS - 1);
                    ids.push(last);
                }
                rows.push(ids);
            }
            let mut found = self.pooled(&rows)?;
            // A text of no token but the special ones means nothing.
            for (vector, row) in found.iter_mut().zip(&rows) {
                if row.len() <= 2 {
                    *vector = None;
                }
            }
            vectors.extend(found);
        }
        Ok(vectors)
    }

    /// Static vectors distilled from the model: for every token of its
    /// vocabulary, the model's output for the token alone (mean pooled
    /// with the special tokens, as model2vec distils), less the mean of
    /// all of them, which every token shares, at unit length.
    pub fn distil(&self) -> Result<StaticVectors, ModelError> {
        let vocabulary = self.tokenizer.get_vocab(true);
        let size = vocabulary.values().max().map_or(0, |id| *id as usize + 1);
        let special = |name: &str| {
            self.tokenizer
                .token_to_id(name)
                .ok_or_else(|| ModelError::Run(format!("the tokenizer has no {name} token")))
        };
        let (first, last) = (special("[CLS]")?, special("[SEP]")?);
        let mut vectors = vec![0.0f32; size * self.dimensions];
        let ids: Vec<u32> = (0..u32::try_from(size).unwrap_or(u32::MAX)).collect();
        for batch in ids.chunks(BATCH) {
            let rows: Vec<Vec<u32>> = batch.iter().map(|id| vec![first, *id, last]).collect();
            for (id, vector) in batch.iter().zip(self.pooled(&rows)?) {
                let at = *id as usize * self.dimensions;
                if let Some(vector) = vector {
                    vectors[at..at + self.dimensions].copy_from_slice(&vector);
                }
            }
        }
        let mut mean = vec![0.0f32; self.dimensions];
        for row in vectors.chunks_exact(self.dimensions) {
            mean.iter_mut()
                .zip(row)
                .for_each(|(m, x)| *m += x / size as f32);
        }
        let vectors: Vec<f32> = vectors
            .chunks_exact(self.dimensions)
            .flat_map(|row| {
                let centred: Vec<f32> = row.iter().zip(&mean).map(|(x, m)| x - m).collect();
                unit(centred).unwrap_or_else(|| vec![0.0; self.dimensions])
            })
            .collect();
        Ok(StaticVectors::new(
            self.name.clone(),
            self.tokenizer.clone(),
            vectors,
            self.dimensions,
        ))
    }
}

impl Embedder for Transformer {
    fn model(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        Embedder::embed_all(self, &[text]).pop().flatten()
    }

    fn embed_all(&self, texts: &[&str]) -> Vec<Option<Vec<f32>>> {
        or_none(Transformer::embed_all(self, texts), texts.len())
    }

    fn scale(&self, vector: &[f32]) -> Scale {
        self.reference.scale(vector)
    }

    fn pieces(&self, word: &str) -> usize {
        pieces(&self.tokenizer, word)
    }
}
