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
//!
//! [`Quantised`] runs multilingual-e5-small (a twelve-layer XLM-RoBERTa
//! encoder reading about a hundred languages) from a 4-bit file,
//! `model.q4`, and [`Universal`] universal-sentence-encoder-multilingual
//! v3 (convolutions over n-grams of pieces, sixteen languages) from
//! `encoder.safetensors` and `pieces.json`; [`load_model`] runs whichever
//! model a directory holds.

#![warn(missing_docs)]

mod calibration;
mod directory;
mod error;
mod loading;
mod quantised;
mod static_vectors;
mod transformer;
mod unigram;
mod universal;
mod vector;

pub use directory::STATIC_FILE;
pub use error::ModelError;
pub use loading::{holds_model, load_model, load_or_distil};
pub use quantised::{Quantised, QUANTISED_FILE};
pub use static_vectors::StaticVectors;
pub use transformer::Transformer;
pub use universal::{Universal, ENCODER_FILE, PIECES_FILE};
