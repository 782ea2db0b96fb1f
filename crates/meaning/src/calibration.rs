//! What a similarity means for a model, measured on the model itself
//! rather than chosen. A text's similarities to the vocabulary's common
//! words (the reference) say where "unrelated" lies for that text: some
//! texts stand near everything, some near nothing, and a model may put
//! unrelated pairs near 0.1 or near 0.8. A similarity is read as how many
//! standard deviations it stands above the mean of those (its standing),
//! and two standings are measured on pairs written for the purpose
//! ([`same_subject_pairs`]): the noise, which two different subjects
//! rarely pass, and the same subject said in other words.

use kenning_ports::Scale;

/// How many standard deviations above the mean of a text's similarities
/// to the reference words a similarity must stand to count as related
/// when the model has not been measured on the pairs: about one in a
/// thousand, were they spread normally.
const OUTLIER: f32 = 3.0;

/// Vectors of words that stand for "unrelated": a spread of the model's
/// vocabulary, and the standings the model's noise and same subject stand
/// at against them.
#[derive(Debug, Clone)]
pub(crate) struct Reference {
    vectors: Vec<f32>,
    dimensions: usize,
    standings: Standings,
}

/// Where, in standard deviations above a text's mean similarity to the
/// reference words, two different subjects rarely reach (`noise`) and the
/// same subject said in other words does (`same`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Standings {
    pub(crate) noise: f32,
    pub(crate) same: f32,
}

impl Standings {
    /// For a model not measured: related at [`OUTLIER`], and only the
    /// identical is the same subject.
    pub(crate) const UNMEASURED: Self = Self {
        noise: OUTLIER,
        same: f32::INFINITY,
    };
}

impl Default for Reference {
    fn default() -> Self {
        Self::new(Vec::new(), 0)
    }
}

impl Reference {
    /// `vectors` (unit rows of `dimensions`, one per word), not yet
    /// measured on the pairs.
    pub(crate) fn new(vectors: Vec<f32>, dimensions: usize) -> Self {
        Self {
            vectors,
            dimensions,
            standings: Standings::UNMEASURED,
        }
    }

    /// The mean and the standard deviation of the similarities of the text
    /// of `vector` to the reference words; `None` without two of them.
    fn spread(&self, vector: &[f32]) -> Option<(f32, f32)> {
        let similarities: Vec<f32> = self
            .vectors
            .chunks_exact(self.dimensions.max(1))
            .map(|row| row.iter().zip(vector).map(|(x, y)| x * y).sum())
            .collect();
        if similarities.len() < 2 {
            return None;
        }
        let n = similarities.len() as f32;
        let mean = similarities.iter().sum::<f32>() / n;
        let variance = similarities.iter().map(|s| (s - mean).powi(2)).sum::<f32>() / n;
        Some((mean, variance.sqrt().max(f32::EPSILON)))
    }

    /// What similarities to the text of `vector` mean: the measured
    /// standings turned into similarities against its own spread. Without
    /// reference words nothing passes the noise.
    pub(crate) fn scale(&self, vector: &[f32]) -> Scale {
        match self.spread(vector) {
            Some((mean, deviation)) => Scale {
                noise: (mean + self.standings.noise * deviation).min(1.0),
                same: (mean + self.standings.same * deviation).min(1.0),
            },
            None => Scale {
                noise: 1.0,
                same: 1.0,
            },
        }
    }

    /// The same reference, measured on the [`same_subject_pairs`]: the
    /// vectors of their first texts (`firsts`) and second texts
    /// (`seconds`), in the pairs' order ([`measured_standings`]).
    pub(crate) fn measured(
        mut self,
        firsts: &[Option<Vec<f32>>],
        seconds: &[Option<Vec<f32>>],
    ) -> Self {
        let standing = |first: &[f32], second: &[f32]| -> Option<f32> {
            let (mean, deviation) = self.spread(first)?;
            let similarity: f32 = first.iter().zip(second).map(|(x, y)| x * y).sum();
            Some((similarity - mean) / deviation)
        };
        self.standings = measured_standings(firsts, seconds, standing);
        self
    }
}

/// The reference of a model that embeds texts with `embed`: the vectors
/// of the [`reference_words`] of its `vocabulary`, measured on the
/// [`same_subject_pairs`], all embedded in one call.
pub(crate) fn embedded_reference<E>(
    vocabulary: impl IntoIterator<Item = (String, u32)>,
    dimensions: usize,
    embed: impl FnOnce(&[&str]) -> Result<Vec<Option<Vec<f32>>>, E>,
) -> Result<Reference, E> {
    let words = reference_words(vocabulary, |_| true);
    let pairs = same_subject_pairs();
    let mut texts: Vec<&str> = words.iter().map(|(word, _)| word.as_str()).collect();
    texts.extend(pairs.iter().map(|(first, _)| *first));
    texts.extend(pairs.iter().map(|(_, second)| *second));
    let mut vectors = embed(&texts)?;
    let calibration = vectors.split_off(words.len());
    let (firsts, seconds) = calibration.split_at(pairs.len());
    let vectors: Vec<f32> = vectors.into_iter().flatten().flatten().collect();
    Ok(Reference::new(vectors, dimensions).measured(firsts, seconds))
}

/// Pairs of texts that name the same subject in other words, one subject
/// a pair (`calibration/same-subject.tsv`), written for this
/// calibration: English synonyms and abbreviations, and subjects named in
/// eleven other languages beside their English names.
const SAME_SUBJECT: &str = include_str!("../calibration/same-subject.tsv");

/// The pairs of [`SAME_SUBJECT`].
pub(crate) fn same_subject_pairs() -> Vec<(&'static str, &'static str)> {
    SAME_SUBJECT
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| line.split_once('\t'))
        .collect()
}

/// The share of different subjects the noise stands above.
const NOISE_QUANTILE: f64 = 0.99;
/// The share of the same-subject pairs the model tells apart that stand
/// at the same subject or above: three in four.
const SAME_QUANTILE: f64 = 0.25;
/// How many same-subject pairs must stand above the noise for the model to
/// be said to tell them; fewer, and only the identical is the same.
const RECOGNISED_AT_LEAST: usize = 5;

/// The standings of a model, from its vectors of the
/// [`same_subject_pairs`]' first texts (`firsts`) and second texts
/// (`seconds`), `standing` giving how far a second text stands above a
/// first text's reference: the noise is the [`NOISE_QUANTILE`] of the
/// standings of a first text's against the second text of every other pair
/// (two different subjects, said as the calibration's pairs say them),
/// and the same subject the [`SAME_QUANTILE`] of those of the pairs the
/// model puts above the noise (a model that reads no German is not
/// judged by its German). Unmeasured without the pairs' vectors.
pub(crate) fn measured_standings(
    firsts: &[Option<Vec<f32>>],
    seconds: &[Option<Vec<f32>>],
    standing: impl Fn(&[f32], &[f32]) -> Option<f32>,
) -> Standings {
    let mut different = Vec::new();
    let mut same = Vec::new();
    for (i, first) in firsts.iter().enumerate() {
        let Some(first) = first else { continue };
        for (j, second) in seconds.iter().enumerate() {
            let Some(z) = second.as_ref().and_then(|second| standing(first, second)) else {
                continue;
            };
            if i == j {
                same.push(z);
            } else {
                different.push(z);
            }
        }
    }
    let Some(noise) = quantile(&mut different, NOISE_QUANTILE) else {
        return Standings::UNMEASURED;
    };
    let mut told: Vec<f32> = same.into_iter().filter(|z| *z > noise).collect();
    let same = if told.len() >= RECOGNISED_AT_LEAST {
        quantile(&mut told, SAME_QUANTILE).unwrap_or(f32::INFINITY)
    } else {
        f32::INFINITY
    };
    Standings { noise, same }
}

/// The `q` quantile of `values` (the value at that share of them, sorted),
/// or `None` of none.
fn quantile(values: &mut [f32], q: f64) -> Option<f32> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f32::total_cmp);
    let at = ((values.len() - 1) as f64 * q).round() as usize;
    values.get(at).copied()
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
    fn unmeasured_noise_stands_three_deviations_above_the_reference() {
        // Similarities to the vector (1, 0): 1, -1, 1, -1: mean 0, deviation 1.
        let reference = Reference::new(vec![1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0], 2);
        assert!((reference.scale(&[1.0, 0.0]).noise - 1.0).abs() < 1e-6);
        // Similarities 0.2, 0.1, 0.2, 0.1: mean 0.15, deviation 0.05.
        let reference = Reference::new(vec![0.2, 0.0, 0.1, 0.0, 0.2, 0.0, 0.1, 0.0], 2);
        assert!((reference.scale(&[1.0, 0.0]).noise - 0.3).abs() < 1e-6);
    }

    #[test]
    fn without_reference_words_nothing_is_related() {
        let scale = Reference::default().scale(&[1.0, 0.0]);
        assert!(scale.nearness(0.99).abs() < f32::EPSILON);
    }

    #[test]
    fn a_scale_is_the_standings_against_a_text_s_own_spread() {
        // Similarities 0.2, 0.1, 0.2, 0.1: mean 0.15, deviation 0.05.
        let mut reference = Reference::new(vec![0.2, 0.0, 0.1, 0.0, 0.2, 0.0, 0.1, 0.0], 2);
        reference.standings = Standings {
            noise: 3.0,
            same: 5.0,
        };
        let scale = reference.scale(&[1.0, 0.0]);
        assert!((scale.noise - 0.3).abs() < 1e-6, "{scale:?}");
        assert!((scale.same - 0.4).abs() < 1e-6, "{scale:?}");
        // Unmeasured: related at three deviations, the same never.
        let scale = Reference::new(vec![0.2, 0.0, 0.1, 0.0], 2).scale(&[1.0, 0.0]);
        assert!((scale.noise - 0.3).abs() < 1e-6, "{scale:?}");
        assert!((scale.same - 1.0).abs() < 1e-6, "{scale:?}");
    }

    #[test]
    fn the_calibration_pairs_are_one_subject_each() {
        let pairs = same_subject_pairs();
        assert!(pairs.len() >= 40, "{} pairs", pairs.len());
        let mut texts: Vec<String> = pairs
            .iter()
            .flat_map(|(a, b)| [a.to_lowercase(), b.to_lowercase()])
            .collect();
        texts.sort();
        let before = texts.len();
        texts.dedup();
        assert_eq!(texts.len(), before, "a text stands in two pairs");
        assert!(pairs.iter().all(|(a, b)| !a.is_empty() && !b.is_empty()));
    }

    fn dot(a: &[f32], b: &[f32]) -> Option<f32> {
        Some(a.iter().zip(b).map(|(x, y)| x * y).sum())
    }

    #[test]
    fn the_noise_is_read_from_other_pairs_and_the_same_from_pairs() {
        // Five pairs on three axes: each pair near, most others far.
        let firsts = vec![
            Some(vec![1.0, 0.0, 0.0]),
            Some(vec![0.0, 1.0, 0.0]),
            Some(vec![0.0, 0.0, 1.0]),
            Some(vec![0.0, 0.0, 1.0]),
            Some(vec![1.0, 0.0, 0.0]),
        ];
        let seconds = vec![
            Some(vec![0.9, 0.1, 0.0]),
            Some(vec![0.0, 0.9, 0.1]),
            Some(vec![0.1, 0.0, 0.9]),
            Some(vec![0.0, 0.2, 0.8]),
            Some(vec![0.7, 0.0, 0.0]),
        ];
        let standings = measured_standings(&firsts, &seconds, dot);
        // The fourth pair's first text is the third's: 0.9 against the
        // third's second text is the greatest of different subjects.
        assert!((standings.noise - 0.9).abs() < 1e-6, "{standings:?}");
        // Of 0.9, 0.9, 0.9, 0.8, 0.7 none stands above 0.9: too few told.
        assert!(standings.same.is_infinite(), "{standings:?}");
        assert_eq!(
            measured_standings(&[None], &[None], dot),
            Standings::UNMEASURED
        );
    }

    #[test]
    fn the_same_subject_is_where_three_in_four_told_pairs_stand() {
        let pairs = [0.95f32, 0.9, 0.85, 0.8, 0.75, 0.3];
        let axis = |i: usize, length: f32| {
            let mut v = vec![0.0; pairs.len()];
            v[i] = length;
            Some(v)
        };
        let firsts: Vec<Option<Vec<f32>>> = (0..pairs.len()).map(|i| axis(i, 1.0)).collect();
        let seconds: Vec<Option<Vec<f32>>> =
            pairs.iter().enumerate().map(|(i, s)| axis(i, *s)).collect();
        let standings = measured_standings(&firsts, &seconds, dot);
        assert!(standings.noise.abs() < 1e-6, "{standings:?}");
        // All six stand above 0: the lower quartile of them is 0.75.
        assert!((standings.same - 0.75).abs() < 1e-6, "{standings:?}");
    }

    #[test]
    fn spread_rows_cover_the_range_evenly() {
        assert_eq!(spread(10, 5).collect::<Vec<_>>(), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread(3, 5).collect::<Vec<_>>(), vec![0, 1, 2]);
    }
}
