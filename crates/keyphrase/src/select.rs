//! Which candidates, taken best first, add something to those chosen.

/// A chosen phrase: its terms, folded label and frequency.
#[derive(Debug)]
struct Phrase {
    terms: Vec<u32>,
    label: Vec<char>,
    tf: f64,
}

/// The phrases chosen so far.
#[derive(Debug, Default)]
pub struct Chosen {
    phrases: Vec<Phrase>,
}

impl Chosen {
    /// Whether a candidate (its terms, label and frequency) says something
    /// new. It does not when its label is a near-copy of a chosen one
    /// (YAKE's deduplication); when it straddles a chosen phrase and is
    /// not seen more often ("theory devoted" after "nuclear theory": a
    /// shifted window over the same words, rarely a topic of its own); when it is a single word already
    /// part of a chosen phrase; or when it is part of a chosen phrase and
    /// never seen outside it ("shape memory" after "shape memory alloy").
    pub fn admits(&self, terms: &[u32], label: &str, tf: f64) -> bool {
        let label = folded(label);
        !self.phrases.iter().any(|other| {
            let inside = contains(&other.terms, terms);
            similar(&label, &other.label)
                || (straddles(&other.terms, terms) && tf <= other.tf)
                || (inside && (terms.len() == 1 || tf <= other.tf))
        })
    }

    pub fn add(&mut self, terms: Vec<u32>, label: &str, tf: f64) {
        self.phrases.push(Phrase {
            terms,
            label: folded(label),
            tf,
        });
    }
}

fn folded(label: &str) -> Vec<char> {
    label.chars().flat_map(char::to_lowercase).collect()
}

/// Whether `part` is a run of `whole`.
fn contains(whole: &[u32], part: &[u32]) -> bool {
    !part.is_empty() && whole.windows(part.len()).any(|w| w == part)
}

/// Whether `a` and `b` overlap without one containing the other: a suffix
/// of one is a prefix of the other.
fn straddles(a: &[u32], b: &[u32]) -> bool {
    if contains(a, b) || contains(b, a) {
        return false;
    }
    (1..a.len().min(b.len())).any(|k| a[a.len() - k..] == b[..k] || b[b.len() - k..] == a[..k])
}

/// Whether two folded labels differ in under a tenth of their characters.
fn similar(a: &[char], b: &[char]) -> bool {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return true;
    }
    if a.len().abs_diff(b.len()) * 10 > longest {
        return false;
    }
    (levenshtein(a, b) as f64) / (longest as f64) < 0.1
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{straddles, Chosen};

    #[test]
    fn shifted_windows_straddle_but_parts_do_not() {
        assert!(straddles(&[1, 2, 3], &[2, 3, 4]));
        assert!(straddles(&[2, 3], &[1, 2]));
        assert!(!straddles(&[1, 2, 3], &[2, 3]));
        assert!(!straddles(&[1, 2], &[3, 4]));
    }

    #[test]
    fn near_copies_and_covered_words_are_not_admitted() {
        let mut chosen = Chosen::default();
        chosen.add(vec![1, 2], "neural networks", 1.0);
        assert!(!chosen.admits(&[3, 4], "Neural network", 1.0));
        assert!(!chosen.admits(&[2], "networks", 1.0));
        assert!(!chosen.admits(&[2, 5], "networks learn", 1.0));
        assert!(chosen.admits(&[1, 2, 6], "neural networks training", 1.0));
        assert!(chosen.admits(&[7], "gradient", 1.0));
    }
}
