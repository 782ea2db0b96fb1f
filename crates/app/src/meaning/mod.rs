//! Topics found by their meaning: a vector for every learned topic, kept in
//! memory, and the topics nearest to a query's, so that "automobile" finds
//! the people who learned "car".
//!
//! Nothing here is stored: the vectors are computed from the topics' labels
//! (never from an uploaded text) by the [`Embedder`](kenning_ports::Embedder)
//! and rebuilt by any instance from the store's topics, so several
//! instances each keep their own copy of the same index.
//!
//! One idea a file, each depending only on those listed before it:
//! `quantized` (eight bits a component, the dot product), `index` (the
//! rows, the nearest of them), `asked` (the vectors of texts queries
//! asked), `merge` (a topic reached twice counts once), `meanings` (one
//! embedder's index and cache), `refresh` (the index brought up to the
//! store), `reach` (the topics a query reaches), `models` (which embedder
//! reads a query).

mod asked;
mod index;
mod meanings;
mod merge;
mod models;
mod quantized;
mod reach;
mod refresh;
#[cfg(test)]
mod tests;

pub(crate) use meanings::Meanings;
pub(crate) use merge::keep_greater;
pub(crate) use models::{MeaningModels, ENGLISH};
