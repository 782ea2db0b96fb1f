//! What "related" means for a model, measured on the model itself rather
//! than chosen: a text is related to another when their similarity stands
//! out from the other's similarities to the vocabulary's common words.

/// How many standard deviations above the mean of a text's similarities
/// to the reference words a similarity must stand to count as related:
/// about one in a thousand, were they spread normally.
const OUTLIER: f32 = 3.0;

/// Vectors of words that stand for "unrelated": a spread of the model's
/// vocabulary.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reference {
    vectors: Vec<f32>,
    dimensions: usize,
}

impl Reference {
    /// `vectors` (unit rows of `dimensions`, one per word).
    pub(crate) fn new(vectors: Vec<f32>, dimensions: usize) -> Self {
        Self {
            vectors,
            dimensions,
        }
    }

    /// The similarity above which a text is related to the one of
    /// `vector`: [`OUTLIER`] standard deviations above the mean of its
    /// similarities to the reference words; 1 without any.
    pub(crate) fn related_above(&self, vector: &[f32]) -> f32 {
        let similarities: Vec<f32> = self
            .vectors
            .chunks_exact(self.dimensions.max(1))
            .map(|row| row.iter().zip(vector).map(|(x, y)| x * y).sum())
            .collect();
        if similarities.len() < 2 {
            return 1.0;
        }
        let n = similarities.len() as f32;
        let mean = similarities.iter().sum::<f32>() / n;
        let variance = similarities.iter().map(|s| (s - mean).powi(2)).sum::<f32>() / n;
        (mean + OUTLIER * variance.sqrt()).min(1.0)
    }
}

/// The reference of a model that embeds texts with `embed`: the vectors
/// of the [`reference_words`] of its `vocabulary`.
pub(crate) fn embedded_reference<E>(
    vocabulary: impl IntoIterator<Item = (String, u32)>,
    dimensions: usize,
    embed: impl FnOnce(&[&str]) -> Result<Vec<Option<Vec<f32>>>, E>,
) -> Result<Reference, E> {
    let words = reference_words(vocabulary, |_| true);
    let texts: Vec<&str> = words.iter().map(|(word, _)| word.as_str()).collect();
    let vectors: Vec<f32> = embed(&texts)?.into_iter().flatten().flatten().collect();
    Ok(Reference::new(vectors, dimensions))
}

/// How many of the vocabulary's words stand for unrelated texts.
const REFERENCE_WORDS: usize = 1_000;

/// Whether a token of the vocabulary is a whole word of letters (not a
/// piece of one, a special token or punctuation).
fn whole_word(token: &str) -> bool {
    token.len() >= 3 && token.chars().all(|c| c.is_ascii_lowercase())
}

/// The reference words of a `vocabulary` (words with their ids) among
/// those `keep` accepts: [`REFERENCE_WORDS`] whole words spread evenly over
/// the vocabulary in id order, the same every time.
pub(crate) fn reference_words(
    vocabulary: impl IntoIterator<Item = (String, u32)>,
    keep: impl Fn(u32) -> bool,
) -> Vec<(String, u32)> {
    let mut words: Vec<(String, u32)> = vocabulary
        .into_iter()
        .filter(|(token, id)| whole_word(token) && keep(*id))
        .collect();
    words.sort_by_key(|(_, id)| *id);
    spread(words.len(), REFERENCE_WORDS)
        .map(|at| words[at].clone())
        .collect()
}

/// `count` rows spread evenly over `0..rows`, the same every time.
fn spread(rows: usize, count: usize) -> impl Iterator<Item = usize> {
    let step = (rows / count.max(1)).max(1);
    (0..rows).step_by(step).take(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn related_stands_three_deviations_above_the_reference() {
        // Similarities to the vector (1, 0): 1, -1, 1, -1: mean 0, deviation 1.
        let reference = Reference::new(vec![1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0], 2);
        assert!((reference.related_above(&[1.0, 0.0]) - 1.0).abs() < 1e-6);
        // Similarities 0.2, 0.1, 0.2, 0.1: mean 0.15, deviation 0.05.
        let reference = Reference::new(vec![0.2, 0.0, 0.1, 0.0, 0.2, 0.0, 0.1, 0.0], 2);
        assert!((reference.related_above(&[1.0, 0.0]) - 0.3).abs() < 1e-6);
    }

    #[test]
    fn without_reference_words_nothing_is_related() {
        assert!((Reference::default().related_above(&[1.0, 0.0]) - 1.0).abs() < f32::EPSILON);
    }

    #[test]
    fn spread_rows_cover_the_range_evenly() {
        assert_eq!(spread(10, 5).collect::<Vec<_>>(), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread(3, 5).collect::<Vec<_>>(), vec![0, 1, 2]);
    }
}
