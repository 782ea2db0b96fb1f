//! Each question asked of each system, the expected person's rank in the
//! whole organisation and among the people of the question's source, and
//! P@1 and MRR over them.

use std::collections::HashMap;

use serde_json::json;

use crate::bm25;
use crate::people::People;
use crate::rules::Question;
use crate::server::Kenning;
use crate::sources::Kind;

/// `experts` answers at most this many people.
pub const LIMIT: usize = 100;

/// Where the expected person came, 1 first; `None` when not ranked.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Ranks {
    pub organisation: Option<usize>,
    pub source: Option<usize>,
}

/// The ranks of `expected` in `ranked` (e-mail addresses, best first).
pub fn ranks(ranked: &[String], expected: &str, kind: Kind, people: &People) -> Ranks {
    let organisation = ranked.iter().position(|p| p == expected).map(|i| i + 1);
    let source = ranked
        .iter()
        .filter(|p| {
            people
                .get(*p)
                .is_some_and(|person| person.sources.contains(&kind))
        })
        .position(|p| p == expected)
        .map(|i| i + 1);
    Ranks {
        organisation,
        source,
    }
}

const EXPERTS: &str = "query experts($q: String!, $limit: Int) \
     { experts(query: $q, limit: $limit) { user { globalUserId } score } }";

/// The people `kenning` ranks for `query`, by e-mail address; an error
/// answer is no one, said on standard error.
pub fn kenning_ranked(
    kenning: &Kenning,
    query: &str,
    by_id: &HashMap<String, String>,
) -> Vec<String> {
    kenning_scored(kenning, query, by_id)
        .into_iter()
        .map(|(email, _)| email)
        .collect()
}

/// The people `kenning` ranks for `query`, by e-mail address, each with
/// their score; an error answer is no one, said on standard error.
pub fn kenning_scored(
    kenning: &Kenning,
    query: &str,
    by_id: &HashMap<String, String>,
) -> Vec<(String, f64)> {
    match kenning.graphql(EXPERTS, json!({ "q": query, "limit": LIMIT })) {
        Ok(data) => data["experts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let id = e["user"]["globalUserId"].as_str()?;
                Some((by_id.get(id)?.clone(), e["score"].as_f64()?))
            })
            .collect(),
        Err(e) => {
            eprintln!("experts({query:?}) failed: {e:#}");
            Vec::new()
        }
    }
}

/// BM25's ranking for `query`, cut as `experts` is.
pub fn bm25_ranked(index: &bm25::People, query: &str) -> Vec<String> {
    let mut ranked = index.rank(query);
    ranked.truncate(LIMIT);
    ranked
}

/// P@1 and MRR of `ranks`.
pub fn scores(ranks: &[Option<usize>]) -> (f64, f64) {
    if ranks.is_empty() {
        return (0.0, 0.0);
    }
    let n = ranks.len() as f64;
    let p1 = ranks.iter().filter(|r| **r == Some(1)).count() as f64 / n;
    let mrr = ranks
        .iter()
        .map(|r| r.map_or(0.0, |r| 1.0 / r as f64))
        .sum::<f64>()
        / n;
    (p1, mrr)
}

/// Every question's ranks under one system.
#[derive(Debug, Clone)]
pub struct Answers {
    pub system: String,
    pub ranks: Vec<Ranks>,
    /// Whom the system put first in the organisation, per question.
    pub firsts: Vec<Option<String>>,
}

impl Answers {
    /// Asks every question of `questions` through `ranked`.
    pub fn ask(
        system: &str,
        questions: &[Question],
        people: &People,
        ranked: &mut dyn FnMut(&str) -> Vec<String>,
    ) -> Self {
        let (ranks, firsts) = questions
            .iter()
            .map(|q| {
                let answer = ranked(&q.text);
                let first = answer.first().cloned();
                (ranks(&answer, &q.expected, q.kind, people), first)
            })
            .unzip();
        Self {
            system: system.to_owned(),
            ranks,
            firsts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::people::Person;

    #[test]
    fn the_rank_among_a_sources_people_skips_the_others() {
        let mut people = People::new();
        for (email, kind) in [("a", Kind::Git), ("b", Kind::Mail), ("c", Kind::Git)] {
            let mut person = Person::default();
            person.sources.insert(kind);
            people.insert(email.to_owned(), person);
        }
        let ranked = ["b".to_owned(), "c".to_owned()];
        let found = ranks(&ranked, "c", Kind::Git, &people);
        assert_eq!(
            found,
            Ranks {
                organisation: Some(2),
                source: Some(1)
            }
        );
        assert_eq!(ranks(&ranked, "a", Kind::Git, &people), Ranks::default());
    }

    #[test]
    fn p_at_1_and_mrr() {
        let (p1, mrr) = scores(&[Some(1), Some(2), None, Some(4)]);
        assert!((p1 - 0.25).abs() < 1e-9);
        assert!((mrr - (1.0 + 0.5 + 0.25) / 4.0).abs() < 1e-9);
    }
}
