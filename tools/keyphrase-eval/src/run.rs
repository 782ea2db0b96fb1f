//! What a system produced on a dataset: timed here for the Rust systems,
//! read from a peer's answer for the Python ones.

use std::time::Instant;

use serde::Deserialize;

/// What a system produced on a dataset: its phrases for each document, best
/// first, and the wall time it took for each, in seconds.
#[derive(Debug, Deserialize)]
pub struct Run {
    pub keyphrases: Vec<Vec<String>>,
    pub seconds: Vec<f64>,
}

impl Run {
    /// Runs `extract` on each text, timing each call alone.
    pub fn timed<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        mut extract: impl FnMut(&str) -> Vec<String>,
    ) -> Self {
        let (mut keyphrases, mut seconds) = (Vec::new(), Vec::new());
        for text in texts {
            let start = Instant::now();
            keyphrases.push(extract(text));
            seconds.push(start.elapsed().as_secs_f64());
        }
        Self {
            keyphrases,
            seconds,
        }
    }

    pub fn ms_per_doc(&self) -> f64 {
        1000.0 * self.seconds.iter().sum::<f64>() / self.seconds.len().max(1) as f64
    }
}
