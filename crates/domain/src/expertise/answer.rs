//! What scores say to a reader: the documented scale in words, and what a
//! ranked list answers, so that every door (the web, GraphQL) says the
//! same of the same scores.

/// The score from which a person is the answer: "this is the person".
/// Below it, the nearest thing Kenning has.
pub const THE_PERSON: f64 = 50.0;

/// The score a person below [`THE_PERSON`] needs to be offered among the
/// nearest: below it a person holds little of the question, and is no
/// lead worth following.
pub const NEAREST_FLOOR: f64 = 10.0;

/// A score in words: the step of the documented scale it reaches
/// (docs/expertise.md, "What a score means").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Band {
    /// 80 or more: several uploads about everything asked.
    Strong,
    /// 50 or more: a solid part of what was asked; this is the person.
    Good,
    /// 30 or more: part of what was asked, or little of it.
    Partial,
    /// Under 30: a word of the question, once or twice.
    Slight,
}

impl Band {
    /// The step `score` (0 to 100) reaches.
    pub fn of(score: f64) -> Self {
        if score >= 80.0 {
            Self::Strong
        } else if score >= THE_PERSON {
            Self::Good
        } else if score >= 30.0 {
            Self::Partial
        } else {
            Self::Slight
        }
    }

    /// What the step promises, as a reader is told it.
    pub fn words(self) -> &'static str {
        match self {
            Self::Strong => "strong: several uploads about everything asked",
            Self::Good => "good: a solid part of what was asked",
            Self::Partial => "some: part of what was asked, or little of it",
            Self::Slight => "slight: a word of the question, once or twice",
        }
    }
}

/// What a ranked list of scores answers: how many people are the answer
/// and how many more are the nearest Kenning has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Answer {
    /// The people scoring [`THE_PERSON`] or more.
    pub knowing: usize,
    /// The people below it who reach [`NEAREST_FLOOR`].
    pub nearest: usize,
}

/// What an [`Answer`] comes to, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Somebody is the answer.
    Known,
    /// Nobody is, but some come near.
    Nearest,
    /// Nobody seems to know.
    Nobody,
}

impl Answer {
    /// The answer of `scores` (each 0 to 100).
    pub fn of(scores: impl IntoIterator<Item = f64>) -> Self {
        scores
            .into_iter()
            .fold(Self::default(), |mut answer, score| {
                if score >= THE_PERSON {
                    answer.knowing += 1;
                } else if score >= NEAREST_FLOOR {
                    answer.nearest += 1;
                }
                answer
            })
    }

    /// What it comes to.
    pub fn verdict(self) -> Verdict {
        if self.knowing > 0 {
            Verdict::Known
        } else if self.nearest > 0 {
            Verdict::Nearest
        } else {
            Verdict::Nobody
        }
    }
}

/// Whether a person scoring `score` is shown at all: as the answer or
/// among the nearest.
pub fn worth_showing(score: f64) -> bool {
    score >= NEAREST_FLOOR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_reads_as_the_step_it_reaches() {
        assert_eq!(Band::of(100.0), Band::Strong);
        assert_eq!(Band::of(80.0), Band::Strong);
        assert_eq!(Band::of(79.9), Band::Good);
        assert_eq!(Band::of(50.0), Band::Good);
        assert_eq!(Band::of(49.9), Band::Partial);
        assert_eq!(Band::of(30.0), Band::Partial);
        assert_eq!(Band::of(29.9), Band::Slight);
        assert_eq!(Band::of(0.0), Band::Slight);
        assert!(Band::Strong.words().starts_with("strong"));
        assert!(Band::Slight.words().starts_with("slight"));
    }

    #[test]
    fn the_answer_counts_only_the_person_as_knowing() {
        let answer = Answer::of([72.0, 50.0, 49.0, 12.0, 9.9, 0.0]);
        assert_eq!(
            answer,
            Answer {
                knowing: 2,
                nearest: 2
            }
        );
        assert_eq!(answer.verdict(), Verdict::Known);
        assert_eq!(Answer::of([49.0, 10.0]).verdict(), Verdict::Nearest);
        // Three people at 0 of 100: nobody seems to know.
        assert_eq!(Answer::of([0.0, 0.0, 0.0]).verdict(), Verdict::Nobody);
        assert_eq!(Answer::of([]).verdict(), Verdict::Nobody);
        assert!(worth_showing(10.0) && !worth_showing(9.9));
    }
}
