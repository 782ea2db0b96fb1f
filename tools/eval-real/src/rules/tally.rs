//! What every rule shares: the questions, and the count of work per area
//! and person they are derived from.

use std::collections::BTreeMap;

use crate::sources::Kind;

/// A question and the person its source's history answers it with.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub kind: Kind,
    /// What is asked, as `experts` takes it.
    pub text: String,
    /// The e-mail address in Kenning of the expected person.
    pub expected: String,
    /// How much of the area's work they did, of how much (for the docs).
    pub theirs: u64,
    pub of: u64,
    /// How much of the area's work each person did, by e-mail address:
    /// what a miss's first person did is read from it.
    pub work: BTreeMap<String, u64>,
}

impl Question {
    /// How much of the area's work `person` did (0 when none).
    pub fn work_of(&self, person: &str) -> u64 {
        self.work.get(person).copied().unwrap_or(0)
    }
}

/// Counts of work per area and person, turned into questions: an area
/// with at least `least` pieces of work whose first person did strictly
/// more than the second asks `text(area)` of them.
#[derive(Debug, Default)]
pub struct Tally {
    areas: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Tally {
    /// One piece of work in `area` by `person`.
    pub fn add(&mut self, area: &str, person: &str) {
        *self
            .areas
            .entry(area.to_owned())
            .or_default()
            .entry(person.to_owned())
            .or_default() += 1;
    }

    pub fn questions(&self, kind: Kind, least: u64) -> Vec<Question> {
        let mut questions = Vec::new();
        for (area, people) in &self.areas {
            let of: u64 = people.values().sum();
            let mut counts: Vec<(&String, &u64)> = people.iter().collect();
            counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let (Some((first, theirs)), second) = (counts.first(), counts.get(1)) else {
                continue;
            };
            if of < least || second.is_some_and(|(_, n)| *n == *theirs) {
                continue;
            }
            questions.push(Question {
                kind,
                text: area.clone(),
                expected: (*first).clone(),
                theirs: **theirs,
                of,
                work: people.clone(),
            });
        }
        questions
    }
}

/// A name as a question says it: `-` and `_` as spaces, trimmed.
pub fn as_words(name: &str) -> String {
    name.replace(['-', '_'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_area_asks_of_the_person_with_strictly_most_work() {
        let mut tally = Tally::default();
        for (area, person) in [("a", "x"), ("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")] {
            tally.add(area, person);
        }
        let questions = tally.questions(Kind::Git, 2);
        assert_eq!(questions.len(), 1, "b is a tie");
        assert_eq!(questions[0].text, "a");
        assert_eq!(questions[0].expected, "x");
        assert_eq!((questions[0].theirs, questions[0].of), (2, 3));
        assert_eq!(questions[0].work_of("y"), 1);
        assert_eq!(questions[0].work_of("z"), 0);
        assert!(tally.questions(Kind::Git, 4).is_empty());
    }

    #[test]
    fn names_are_asked_as_words() {
        assert_eq!(as_words("design-thinking"), "design thinking");
        assert_eq!(as_words("meetup-"), "meetup");
        assert_eq!(as_words("get_feedback"), "get feedback");
    }
}
