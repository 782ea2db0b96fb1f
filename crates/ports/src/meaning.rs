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

    /// The cosine similarity above which a text is taken to mean something
    /// related to the text of `vector` (one of this embedder's): one that
    /// unrelated texts rarely reach against it.
    fn related_above(&self, vector: &[f32]) -> f32;
}
