//! Which candidates, taken best first, add something to those chosen.

/// A chosen phrase: its terms and frequency.
#[derive(Debug)]
struct Phrase {
    terms: Vec<u32>,
    tf: f64,
}

/// The phrases chosen so far.
#[derive(Debug, Default)]
pub struct Chosen {
    phrases: Vec<Phrase>,
}

impl Chosen {
    /// Whether a candidate (its terms and frequency) adds nothing to the
    /// chosen phrases: it straddles one and is not seen more often ("theory
    /// devoted" after "nuclear theory": a shifted window over the same
    /// words, rarely a topic of its own); or it is a single word already
    /// part of one; or it is part of one and never seen outside it ("shape
    /// memory" after "shape memory alloy").
    pub fn overlaps(&self, terms: &[u32], tf: f64) -> bool {
        self.phrases.iter().any(|other| {
            (straddles(&other.terms, terms) && tf <= other.tf)
                || (contains(&other.terms, terms) && (terms.len() == 1 || tf <= other.tf))
        })
    }

    pub fn add(&mut self, terms: &[u32], tf: f64) {
        self.phrases.push(Phrase {
            terms: terms.to_vec(),
            tf,
        });
    }
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
    fn parts_and_shifted_windows_of_chosen_phrases_add_nothing() {
        let mut chosen = Chosen::default();
        chosen.add(&[1, 2], 2.0);
        // A part: a single word never, a phrase only when seen on its own.
        assert!(chosen.overlaps(&[2], 5.0));
        chosen.add(&[1, 2, 6], 1.0);
        assert!(chosen.overlaps(&[2, 6], 1.0));
        assert!(!chosen.overlaps(&[2, 6], 3.0));
        // A shifted window: only when not seen more often.
        assert!(chosen.overlaps(&[2, 5], 2.0));
        assert!(!chosen.overlaps(&[2, 5], 3.0));
        assert!(!chosen.overlaps(&[7], 1.0));
    }
}
