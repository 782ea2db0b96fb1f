//! How central each term is to the text: PageRank over the graph whose
//! edges join content words written next to each other (stop words
//! skipped, chunks not crossed), as in TextRank (Mihalcea and Tarau, 2004).
//!
//! YAKE scores each term on its own; a term that many other terms of the
//! text gather around is more likely what the text is about, even when it
//! is written only once or twice.

use std::ops::Range;

/// The damping factor of PageRank, its usual value.
const DAMPING: f64 = 0.85;

/// Iterations of the power method; ranks on a text's graph settle well
/// before, and a fixed count keeps the result deterministic.
const ITERATIONS: usize = 30;

/// Each term's centrality: about one on average over the terms joined to
/// another, `1 - DAMPING` for a term joined to none (every stop word, and
/// a content word never written next to another). `stop[t]` tells whether term `t` is a stop word, `ids`
/// are the terms of the words and `runs` the chunks as ranges of `ids`.
pub fn of(stop: &[bool], ids: &[u32], runs: &[Range<usize>]) -> Vec<f64> {
    let n = stop.len();
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(ids.len() * 2);
    for run in runs {
        let mut previous: Option<u32> = None;
        for id in &ids[run.clone()] {
            if stop[*id as usize] {
                continue;
            }
            if let Some(before) = previous.filter(|before| before != id) {
                edges.push((before, *id));
                edges.push((*id, before));
            }
            previous = Some(*id);
        }
    }
    let mut degree = vec![0.0_f64; n];
    for (from, _) in &edges {
        degree[*from as usize] += 1.0;
    }
    let mut rank = vec![1.0_f64; n];
    let mut next = vec![0.0_f64; n];
    for _ in 0..ITERATIONS {
        next.fill(1.0 - DAMPING);
        for (from, to) in &edges {
            next[*to as usize] += DAMPING * rank[*from as usize] / degree[*from as usize];
        }
        std::mem::swap(&mut rank, &mut next);
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::of;

    #[test]
    fn the_hub_of_the_text_ranks_highest() {
        // Terms: 0 hub, 1..=3 leaves, 4 a stop word between them.
        let stop = [false, false, false, false, true];
        let ids = [1, 0, 2, 4, 0, 3, 1];
        let rank = of(&stop, &ids, &[0..3, 3..7]);
        assert!(rank[0] > rank[1] && rank[0] > rank[2] && rank[0] > rank[3]);
        let content: f64 = rank[..4].iter().sum();
        assert!((content / 4.0 - 1.0).abs() < 0.1, "{rank:?}");
    }
}
