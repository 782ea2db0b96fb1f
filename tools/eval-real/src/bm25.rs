//! The lexical baseline: BM25 ([`kenning_tools_common::bm25`]) over one
//! document per person, the texts of all their uploads as the sources
//! give them; people in the order of their addresses, so equal scores
//! come by address.

use std::collections::{BTreeMap, BTreeSet};

use kenning_tools_common::bm25::{Analyzer, Bm25, Parameters};

use crate::sources::{Kind, Read};

/// An index of one document per person.
#[derive(Debug)]
pub struct People {
    analyzer: Analyzer,
    /// The e-mail address of each document.
    people: Vec<String>,
    index: Bm25,
}

impl People {
    /// The index of what `read` teaches, each person's texts of every
    /// source one document.
    pub fn new(read: &BTreeMap<Kind, Read>) -> Self {
        let analyzer = Analyzer::english();
        let people: Vec<String> = read
            .values()
            .flat_map(|source| source.people.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .cloned()
            .collect();
        let documents = people.iter().map(|email| {
            read.values()
                .filter_map(|source| source.people.get(email))
                .flat_map(|named| &named.texts)
                .flat_map(|text| analyzer.terms(text))
        });
        let index = Bm25::new(documents, Parameters::default());
        Self {
            analyzer,
            people,
            index,
        }
    }

    /// The people whose documents match `query`, best first (ties by
    /// address).
    pub fn rank(&self, query: &str) -> Vec<String> {
        self.index
            .search(&self.analyzer.terms(query))
            .into_iter()
            .map(|(d, _)| self.people[d].clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::Named;

    fn read(people: &[(&str, &[&str])]) -> Read {
        Read {
            people: people
                .iter()
                .map(|(email, texts)| {
                    let named = Named {
                        texts: texts.iter().map(|t| (*t).to_owned()).collect(),
                        ..Named::default()
                    };
                    ((*email).to_owned(), named)
                })
                .collect(),
            ..Read::default()
        }
    }

    #[test]
    fn people_are_ranked_by_their_texts_of_every_source() {
        let sources = BTreeMap::from([
            (
                Kind::Git,
                read(&[("b@x", &["hops and malt"]), ("c@x", &["barley"])]),
            ),
            (
                Kind::Mail,
                read(&[("a@x", &["hops and malt, hops"]), ("c@x", &["hops"])]),
            ),
        ]);
        let index = People::new(&sources);
        // Twice for a@x; once for b@x and c@x alike, in a document as
        // long, so by address.
        assert_eq!(index.rank("hops"), ["a@x", "b@x", "c@x"]);
        assert_eq!(index.rank("malt barley"), ["c@x", "b@x", "a@x"]);
        assert!(index.rank("nothing").is_empty());
    }

    #[test]
    fn equal_scores_come_by_address() {
        let sources = BTreeMap::from([(
            Kind::Slack,
            read(&[("z@x", &["hops"]), ("m@x", &["hops"]), ("a@x", &["malt"])]),
        )]);
        assert_eq!(People::new(&sources).rank("hops"), ["m@x", "z@x"]);
    }
}
