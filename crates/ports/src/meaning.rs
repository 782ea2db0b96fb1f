//! The text-embedding port: what a topic or a query means, as a point.

/// Maps a short text (a topic's label, a query's words) to a unit-length
/// vector whose nearness to another's (their dot product, the cosine
/// similarity) stands for nearness in meaning: "k8s" near "Kubernetes",
/// "car" near "automobile".
///
/// Implementations are pure computations: no IO after they are built,
/// deterministic for the same input, safe to call from many threads at
/// once, and every vector of one embedder has the same length.
pub trait Embedder: Send + Sync {
    /// The model's name, for logs and answers that say how a query was
    /// read.
    fn model(&self) -> &str;

    /// The length of every vector.
    fn dimensions(&self) -> usize;

    /// The unit-length vector of `text`, or `None` when the model knows
    /// nothing of it (no token it has a meaning for).
    fn embed(&self, text: &str) -> Option<Vec<f32>>;

    /// The vector of each of `texts`, as [`embed`](Self::embed) gives it;
    /// an implementation that runs a model on many texts at once more
    /// cheaply than one at a time says so here.
    fn embed_all(&self, texts: &[&str]) -> Vec<Option<Vec<f32>>> {
        texts.iter().map(|t| self.embed(t)).collect()
    }

    /// What similarities to the text of `vector` (one of this
    /// embedder's) mean, measured on the embedder: a model's unrelated
    /// pairs may sit near 0.1 or near 0.8, and some texts stand near
    /// everything.
    fn scale(&self, vector: &[f32]) -> Scale;

    /// How many tokens of the model's vocabulary spell `word`: one for a
    /// word the model met often enough to keep whole, which it reads by
    /// its meaning; more for one it spells from pieces ("Datenschutz" is
    /// one token of a model made for many languages and four pieces of an
    /// English one, the first of which is "dat"); a character the
    /// vocabulary lacks counts as a piece of its own beyond the word's
    /// length, so that such a word is spelled worst.
    fn pieces(&self, word: &str) -> usize;
}

/// What similarities to one text mean on one embedder: at `noise` or
/// below, a different subject; at `same` or above, the same subject in
/// other words (a synonym, an abbreviation, a translation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The similarity different subjects rarely pass.
    pub noise: f32,
    /// The similarity of the same subject said in other words.
    pub same: f32,
}

impl Scale {
    /// How near in subject `similarity` puts the two texts, in [0, 1]: 0
    /// at the noise or below, 1 at the same subject or above, straight in
    /// between.
    pub fn nearness(&self, similarity: f32) -> f32 {
        if similarity <= self.noise {
            return 0.0;
        }
        if similarity >= self.same || self.same <= self.noise {
            return 1.0;
        }
        (similarity - self.noise) / (self.same - self.noise)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearness_runs_from_the_noise_to_the_same_subject() {
        let scale = Scale {
            noise: 0.4,
            same: 0.8,
        };
        assert!(scale.nearness(0.3).abs() < 1e-6);
        assert!(scale.nearness(0.4).abs() < 1e-6);
        assert!((scale.nearness(0.6) - 0.5).abs() < 1e-6);
        assert!((scale.nearness(0.9) - 1.0).abs() < 1e-6);
        // Nothing passes a noise of 1.
        let closed = Scale {
            noise: 1.0,
            same: 1.0,
        };
        assert!(closed.nearness(1.0).abs() < 1e-6);
    }
}
