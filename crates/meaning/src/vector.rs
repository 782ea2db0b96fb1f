//! Vectors of unit length, as every embedder gives them.

use candle_core::{DType, Tensor};

use crate::error::ModelError;

/// `vector` scaled to unit length; `None` when it is zero.
pub(crate) fn unit(mut vector: Vec<f32>) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm <= f32::EPSILON || !norm.is_finite() {
        return None;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    Some(vector)
}

/// The mean over its tokens of each row of a model's `output` (batch,
/// tokens, dimensions), counting only the tokens `mask` (batch, tokens;
/// 1 for a token, 0 for padding) keeps, at unit length: sentence
/// embeddings as both models were trained to give them.
pub(crate) fn mean_pooled(
    output: &Tensor,
    mask: &Tensor,
) -> candle_core::Result<Vec<Option<Vec<f32>>>> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = output.broadcast_mul(&mask)?.sum(1)?;
    let mean = summed.broadcast_div(&mask.sum(1)?)?;
    Ok(mean
        .to_dtype(DType::F32)?
        .to_vec2::<f32>()?
        .into_iter()
        .map(unit)
        .collect())
}

/// The vectors a model's run gave `texts` texts, or none when the run
/// failed (logged): an embedder answers "no meaning", which a query
/// survives, rather than an error.
pub(crate) fn or_none(
    run: Result<Vec<Option<Vec<f32>>>, ModelError>,
    texts: usize,
) -> Vec<Option<Vec<f32>>> {
    run.unwrap_or_else(|e| {
        log::warn!("embedding {texts} texts failed: {e}");
        vec![None; texts]
    })
}

/// The vector of each of `texts`: those `tokens` gives token ids for are
/// run through `run` in batches, a batch closed once `full` says so of its
/// texts and ids; a text without ids (no piece) has none.
pub(crate) fn in_batches(
    texts: &[&str],
    tokens: impl Fn(&str) -> Option<Vec<u32>>,
    full: impl Fn(usize, usize) -> bool,
    run: impl Fn(&[Vec<u32>]) -> Result<Vec<Option<Vec<f32>>>, ModelError>,
) -> Result<Vec<Option<Vec<f32>>>, ModelError> {
    let mut vectors = vec![None; texts.len()];
    let mut flush = |batch: &mut Vec<Vec<u32>>, at: &mut Vec<usize>| {
        for (i, vector) in at.drain(..).zip(run(batch)?) {
            vectors[i] = vector;
        }
        batch.clear();
        Ok::<_, ModelError>(())
    };
    // The rows of the batch being gathered, where each text stands, and
    // how many ids they hold.
    let (mut batch, mut at, mut ids) = (Vec::new(), Vec::new(), 0);
    for (i, text) in texts.iter().enumerate() {
        let Some(row) = tokens(text) else {
            continue;
        };
        ids += row.len();
        batch.push(row);
        at.push(i);
        if full(batch.len(), ids) {
            flush(&mut batch, &mut at)?;
            ids = 0;
        }
    }
    if !batch.is_empty() {
        flush(&mut batch, &mut at)?;
    }
    Ok(vectors)
}
