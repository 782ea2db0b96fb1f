//! Topics that go together: the graph whose edges join topics taught by
//! the same uploads (a "skill wheel"), read one topic at a time.

use std::collections::HashMap;

use super::evidence::Population;
use super::ranking::{idf, people_counted};

/// A topic learned together with another.
#[derive(Debug, Clone, PartialEq)]
pub struct RelatedTopic {
    /// The related topic's key.
    pub key: String,
    /// The related topic as people read it.
    pub label: String,
    /// How strongly it goes with the other topic: the share of the other
    /// topic's uploads that taught it, times its specificity (inverse
    /// document frequency over people), so that words every upload has
    /// ("year") rank low.
    pub score: f64,
    /// In how many of the uploads read it appeared.
    pub together: u64,
}

/// The topics related to `key`, best first, at most `limit`: from
/// `cooccurring` (key, label, uploads it shared with `key`) among the
/// `actions` uploads read, with `knowing` (people who have a standing on
/// each key) and the `population` of learners. The topic itself and the
/// topics made only of its own words ("kubernetes" for "kubernetes
/// clusters") are left out: they say nothing new.
pub fn related_topics(
    key: &str,
    cooccurring: &[(String, String, u64)],
    actions: u64,
    knowing: &HashMap<String, u64>,
    population: Population,
    limit: usize,
) -> Vec<RelatedTopic> {
    if actions == 0 {
        return Vec::new();
    }
    let own: Vec<&str> = key.split(' ').collect();
    let people = people_counted(population, knowing);
    let mut related: Vec<RelatedTopic> = cooccurring
        .iter()
        .filter(|(other, _, _)| !other.split(' ').all(|w| own.contains(&w)))
        .map(|(other, label, together)| {
            let knowing = knowing.get(other).copied().unwrap_or(1) as f64;
            RelatedTopic {
                key: other.clone(),
                label: label.clone(),
                score: *together as f64 / actions as f64 * idf(people, knowing),
                together: *together,
            }
        })
        .collect();
    related.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
    related.truncate(limit);
    related
}

/// Per topic key, the label written in most of the uploads read, and in
/// how many uploads the key appeared: from `(key, label, uploads)` counts
/// of each form. On a tie the label that sorts first wins, so the answer
/// does not depend on the order of the rows.
pub fn commonest_labels(
    forms: impl IntoIterator<Item = (String, String, u64)>,
) -> Vec<(String, String, u64)> {
    let mut by_key: HashMap<String, (String, u64, u64)> = HashMap::new();
    for (key, label, n) in forms {
        let entry = by_key.entry(key).or_insert_with(|| (label.clone(), 0, 0));
        entry.2 += n;
        if n > entry.1 || (n == entry.1 && label < entry.0) {
            entry.0 = label;
            entry.1 = n;
        }
    }
    by_key
        .into_iter()
        .map(|(key, (label, _, total))| (key, label, total))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn related_topics_leave_out_the_topic_and_its_own_words() {
        let found = vec![
            ("kubernet".to_owned(), "Kubernetes".to_owned(), 9),
            (
                "contain orchestr".to_owned(),
                "container orchestration".to_owned(),
                6,
            ),
            ("year".to_owned(), "year".to_owned(), 8),
            ("helm".to_owned(), "Helm".to_owned(), 3),
        ];
        let knowing = HashMap::from([
            ("kubernet".to_owned(), 20),
            ("contain orchestr".to_owned(), 5),
            ("year".to_owned(), 95),
            ("helm".to_owned(), 3),
        ]);
        let population = Population {
            people: 100,
            actions: 1000,
        };
        let related = related_topics("kubernet cluster", &found, 10, &knowing, population, 10);
        let keys: Vec<&str> = related.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["contain orchestr", "helm", "year"]);
        assert_eq!(related[0].together, 6);
        assert!(related_topics("kubernet", &[], 0, &knowing, population, 10).is_empty());
    }

    #[test]
    fn a_related_topic_shows_the_label_written_most() {
        let mut found = commonest_labels([
            ("bake".to_owned(), "bakes".to_owned(), 1),
            ("bake".to_owned(), "baking".to_owned(), 3),
            ("helm".to_owned(), "helm".to_owned(), 2),
            ("helm".to_owned(), "Helm".to_owned(), 2),
        ]);
        found.sort();
        assert_eq!(
            found,
            [
                ("bake".to_owned(), "baking".to_owned(), 4),
                ("helm".to_owned(), "Helm".to_owned(), 4),
            ]
        );
    }
}
