//! `--ceiling`: how far a ranking over the uploads' own words can go on
//! held-out category routing, measured beside Kenning and BM25 profile in
//! one run.
//!
//! Held-out routing asks for the people of a query's field from a text
//! nobody uploaded. Each system below ranks with the words of the same
//! uploads (Kenning with what it stores of them), and two are told more
//! than any deployment knows: which people share a field. Their scores
//! bound what better weighting or smoothing of the same words can give.
//!
//! - **BM25 profile, neighbours' scores**: each person's score mixed half
//!   and half with the mean score of the three people whose profiles are
//!   most alike (tf-idf cosine), as smoothing with colleagues' expertise
//!   does (Karimzadehgan, White and Richardson 2009).
//! - **BM25 profile, document feedback**: the query expanded with the 100
//!   most telling words of its 20 best-matching uploads, weighted by those
//!   uploads' scores, at half the query's weight (RM3-like feedback from
//!   documents rather than people).
//! - **query likelihood**: each profile as a unigram language model with
//!   Dirichlet smoothing (μ = 5,000, the best of 100 to 5,000 here).
//! - **field BM25 (oracle)**: BM25 over each field's uploads joined, every
//!   person of the best field first: perfect smoothing with colleagues.
//! - **field naive Bayes (oracle)**: a multinomial naive Bayes classifier
//!   (additive smoothing 0.1) trained on the uploads labelled with their
//!   uploader's field, the people of the likeliest field first.

use std::collections::HashMap;
use std::sync::Arc;

use kenning_keyphrase::KeyphraseExtractor;
use kenning_tools_common::bm25::{Analyzer, Bm25, Parameters};

use crate::metrics::{judge, Tally};
use crate::rng::SplitMix64;
use crate::routing::field_of;
use crate::systems::{Kenning, ProfileBm25, Ranker};
use crate::world::{Evaluation, World};

/// The systems of the ceiling table, in the order of its columns.
const NAMES: [&str; 7] = [
    "Kenning",
    "BM25 profile",
    "BM25 profile, neighbours' scores",
    "BM25 profile, document feedback",
    "query likelihood",
    "field BM25 (oracle)",
    "field naive Bayes (oracle)",
];

/// How many most-alike people smooth a person's score.
const NEIGHBOURS: usize = 3;
/// The share of a person's score that comes from the neighbours.
const NEIGHBOUR_SHARE: f64 = 0.5;
/// How many best-matching uploads the feedback reads.
const FEEDBACK_DOCUMENTS: usize = 20;
/// How many words the feedback adds.
const FEEDBACK_TERMS: usize = 100;
/// The weight of the added words against the query's own.
const FEEDBACK_WEIGHT: f64 = 0.5;
/// The Dirichlet prior of the query likelihood model.
const DIRICHLET_MU: f64 = 5_000.0;
/// The naive Bayes classifier's additive smoothing.
const BAYES_ALPHA: f64 = 0.1;

/// The analysed words of each person's uploads, joined.
fn profiles(world: &World, analyzer: &Analyzer) -> Vec<Vec<String>> {
    let mut profiles = vec![Vec::new(); world.people.len()];
    for upload in &world.uploads {
        profiles[upload.person].extend(analyzer.terms(&upload.visible()));
    }
    profiles
}

/// How often each term occurs in `terms`.
fn counts(terms: &[String]) -> HashMap<String, f64> {
    let mut counts = HashMap::new();
    for term in terms {
        *counts.entry(term.clone()).or_default() += 1.0;
    }
    counts
}

/// People by score, best first, equal scores by index; only positive
/// scores.
fn ranked(scores: impl IntoIterator<Item = (usize, f64)>) -> Vec<usize> {
    let mut scored: Vec<(usize, f64)> = scores.into_iter().filter(|s| s.1 > 0.0).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(p, _)| p).collect()
}

/// The people of the fields in `fields` order, each field's people in
/// index order.
fn people_of_fields(fields: &[usize], people: usize) -> Vec<usize> {
    fields
        .iter()
        .flat_map(|&f| (0..people).filter(move |&p| field_of(p) == f))
        .collect()
}

/// BM25 profile, each score mixed with the profile neighbours' mean.
struct Neighbours {
    analyzer: Arc<Analyzer>,
    index: Bm25,
    /// Per person, the most alike people with weights summing to one.
    neighbours: Vec<Vec<(usize, f64)>>,
}

impl Neighbours {
    fn new(world: &World, analyzer: Arc<Analyzer>) -> Self {
        let profiles = profiles(world, &analyzer);
        let people = profiles.len() as f64;
        let counts: Vec<HashMap<String, f64>> = profiles.iter().map(|p| counts(p)).collect();
        let mut holders: HashMap<&str, f64> = HashMap::new();
        for c in &counts {
            for term in c.keys() {
                *holders.entry(term).or_default() += 1.0;
            }
        }
        let vectors: Vec<HashMap<&str, f64>> = counts
            .iter()
            .map(|c| {
                let mut v: HashMap<&str, f64> = c
                    .iter()
                    .map(|(t, n)| {
                        let idf = 1.0 + (people / holders[t.as_str()]).ln();
                        (t.as_str(), (1.0 + n.ln()) * idf)
                    })
                    .collect();
                let norm = v.values().map(|x| x * x).sum::<f64>().sqrt();
                if norm > 0.0 {
                    v.values_mut().for_each(|x| *x /= norm);
                }
                v
            })
            .collect();
        let cosine = |a: &HashMap<&str, f64>, b: &HashMap<&str, f64>| -> f64 {
            a.iter().filter_map(|(t, x)| b.get(t).map(|y| x * y)).sum()
        };
        let neighbours = (0..vectors.len())
            .map(|p| {
                let mut alike: Vec<(usize, f64)> = (0..vectors.len())
                    .filter(|&q| q != p)
                    .map(|q| (q, cosine(&vectors[p], &vectors[q])))
                    .collect();
                alike.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                alike.truncate(NEIGHBOURS);
                let total: f64 = alike.iter().map(|a| a.1).sum();
                if total > 0.0 {
                    alike.iter_mut().for_each(|a| a.1 /= total);
                }
                alike
            })
            .collect();
        Self {
            index: Bm25::new(&profiles, Parameters::default()),
            analyzer,
            neighbours,
        }
    }
}

impl Ranker for Neighbours {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let hits: HashMap<usize, f64> = self
            .index
            .search(&self.analyzer.terms(query))
            .into_iter()
            .collect();
        let score = |p: &usize| hits.get(p).copied().unwrap_or_default();
        Ok(ranked(self.neighbours.iter().enumerate().map(
            |(p, near)| {
                let theirs: f64 = near.iter().map(|(q, w)| w * score(q)).sum();
                (
                    p,
                    (1.0 - NEIGHBOUR_SHARE) * score(&p) + NEIGHBOUR_SHARE * theirs,
                )
            },
        )))
    }
}

/// BM25 profile with the query expanded from its best-matching uploads.
struct Feedback {
    analyzer: Arc<Analyzer>,
    profiles: Bm25,
    documents: Bm25,
    document_counts: Vec<HashMap<String, f64>>,
    holders: HashMap<String, f64>,
}

impl Feedback {
    fn new(world: &World, analyzer: Arc<Analyzer>) -> Self {
        let documents: Vec<Vec<String>> = world
            .uploads
            .iter()
            .map(|u| analyzer.terms(&u.visible()))
            .collect();
        let document_counts: Vec<HashMap<String, f64>> =
            documents.iter().map(|d| counts(d)).collect();
        let mut holders: HashMap<String, f64> = HashMap::new();
        for c in &document_counts {
            for term in c.keys() {
                *holders.entry(term.clone()).or_default() += 1.0;
            }
        }
        Self {
            profiles: Bm25::new(profiles(world, &analyzer), Parameters::default()),
            documents: Bm25::new(&documents, Parameters::default()),
            analyzer,
            document_counts,
            holders,
        }
    }
}

impl Ranker for Feedback {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let terms = self.analyzer.terms(query);
        let documents = self.document_counts.len() as f64;
        let best: Vec<(usize, f64)> = self
            .documents
            .search(&terms)
            .into_iter()
            .take(FEEDBACK_DOCUMENTS)
            .collect();
        let total: f64 = best.iter().map(|b| b.1).sum();
        let mut added: HashMap<&str, f64> = HashMap::new();
        for (document, score) in &best {
            let counts = &self.document_counts[*document];
            let length: f64 = counts.values().sum();
            for (term, n) in counts {
                let idf = (documents / self.holders[term]).ln();
                *added.entry(term).or_default() += score / total * n / length * idf;
            }
        }
        let mut added: Vec<(&str, f64)> = added.into_iter().collect();
        added.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        added.truncate(FEEDBACK_TERMS);
        let mass: f64 = added.iter().map(|a| a.1).sum();
        let mut scores: HashMap<usize, f64> = self.profiles.search(&terms).into_iter().collect();
        for (term, weight) in added {
            let share = FEEDBACK_WEIGHT * terms.len() as f64 * weight / mass;
            for (p, s) in self.profiles.search(&[term.to_owned()]) {
                *scores.entry(p).or_default() += share * s;
            }
        }
        Ok(ranked(scores))
    }
}

/// Each class's word counts and total, and the vocabulary, for the query
/// likelihood and naive Bayes models.
struct Unigrams {
    analyzer: Arc<Analyzer>,
    classes: Vec<(HashMap<String, f64>, f64)>,
    collection: HashMap<String, f64>,
    total: f64,
}

impl Unigrams {
    fn new(texts: Vec<Vec<String>>, analyzer: Arc<Analyzer>) -> Self {
        let mut collection: HashMap<String, f64> = HashMap::new();
        let classes = texts
            .iter()
            .map(|t| {
                for term in t {
                    *collection.entry(term.clone()).or_default() += 1.0;
                }
                (counts(t), t.len() as f64)
            })
            .collect();
        let total = collection.values().sum();
        Self {
            analyzer,
            classes,
            collection,
            total,
        }
    }

    /// Per class, the log-likelihood of the query's known words with the
    /// class's word probability `p(count, class total, collection share)`;
    /// `None` when no word of the query is known.
    fn log_likelihoods(&self, query: &str, p: impl Fn(f64, f64, f64) -> f64) -> Option<Vec<f64>> {
        let terms: Vec<String> = self
            .analyzer
            .terms(query)
            .into_iter()
            .filter(|t| self.collection.contains_key(t))
            .collect();
        if terms.is_empty() {
            return None;
        }
        Some(
            self.classes
                .iter()
                .map(|(counts, length)| {
                    terms
                        .iter()
                        .map(|t| {
                            let n = counts.get(t).copied().unwrap_or_default();
                            p(n, *length, self.collection[t] / self.total).ln()
                        })
                        .sum()
                })
                .collect(),
        )
    }
}

/// Classes by log-likelihood, best first.
fn by_likelihood(likelihoods: Vec<f64>) -> Vec<usize> {
    let mut order: Vec<(usize, f64)> = likelihoods.into_iter().enumerate().collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    order.into_iter().map(|(c, _)| c).collect()
}

/// Each person's profile as a Dirichlet-smoothed unigram model.
struct QueryLikelihood(Unigrams);

impl Ranker for QueryLikelihood {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let dirichlet =
            |n: f64, length: f64, share: f64| (n + DIRICHLET_MU * share) / (length + DIRICHLET_MU);
        Ok(self
            .0
            .log_likelihoods(query, dirichlet)
            .map(by_likelihood)
            .unwrap_or_default())
    }
}

/// The fields' joined uploads, one text per field.
fn field_texts(world: &World, analyzer: &Analyzer) -> Vec<Vec<String>> {
    let fields = (0..world.people.len())
        .map(field_of)
        .max()
        .map_or(0, |f| f + 1);
    let mut texts = vec![Vec::new(); fields];
    for upload in &world.uploads {
        texts[field_of(upload.person)].extend(analyzer.terms(&upload.visible()));
    }
    texts
}

/// BM25 over each field's joined uploads.
struct FieldBm25 {
    analyzer: Arc<Analyzer>,
    index: Bm25,
    people: usize,
}

impl Ranker for FieldBm25 {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let fields: Vec<usize> = self
            .index
            .search(&self.analyzer.terms(query))
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        Ok(people_of_fields(&fields, self.people))
    }
}

/// Multinomial naive Bayes over the uploads labelled by field.
struct FieldBayes {
    model: Unigrams,
    /// Per field, the log of its share of the uploads.
    priors: Vec<f64>,
    people: usize,
}

impl Ranker for FieldBayes {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let vocabulary = self.model.collection.len() as f64;
        let additive =
            |n: f64, length: f64, _: f64| (n + BAYES_ALPHA) / (length + BAYES_ALPHA * vocabulary);
        let Some(mut likelihoods) = self.model.log_likelihoods(query, additive) else {
            return Ok(Vec::new());
        };
        for (l, prior) in likelihoods.iter_mut().zip(&self.priors) {
            *l += prior;
        }
        Ok(people_of_fields(&by_likelihood(likelihoods), self.people))
    }
}

/// Every system of the table for one world, in the order of [`NAMES`].
fn systems(
    world: &World,
    extractor: &Arc<KeyphraseExtractor>,
    analyzer: &Arc<Analyzer>,
    rng: &mut SplitMix64,
) -> anyhow::Result<Vec<Box<dyn Ranker>>> {
    let fields = field_texts(world, analyzer);
    let mut uploads_per_field = vec![0.0; fields.len()];
    for upload in &world.uploads {
        uploads_per_field[field_of(upload.person)] += 1.0;
    }
    let uploads = world.uploads.len() as f64;
    Ok(vec![
        Box::new(Kenning::new(world, extractor.clone())?),
        Box::new(ProfileBm25::new(world, analyzer.clone(), rng)),
        Box::new(Neighbours::new(world, analyzer.clone())),
        Box::new(Feedback::new(world, analyzer.clone())),
        Box::new(QueryLikelihood(Unigrams::new(
            profiles(world, analyzer),
            analyzer.clone(),
        ))),
        Box::new(FieldBm25 {
            index: Bm25::new(&fields, Parameters::default()),
            analyzer: analyzer.clone(),
            people: world.people.len(),
        }),
        Box::new(FieldBayes {
            priors: uploads_per_field
                .iter()
                .map(|n| (n / uploads).max(f64::MIN_POSITIVE).ln())
                .collect(),
            model: Unigrams::new(fields, analyzer.clone()),
            people: world.people.len(),
        }),
    ])
}

/// Runs every system on every query of the category-routing `evaluation`
/// and returns the table: per query form, P@1 / MRR of each system.
pub fn ceiling(
    evaluation: &Evaluation,
    extractor: &Arc<KeyphraseExtractor>,
    analyzer: &Arc<Analyzer>,
    seed: u64,
) -> anyhow::Result<String> {
    let mut tallies = vec![[Tally::default(); NAMES.len()]; evaluation.forms.len()];
    for (w, world) in evaluation.worlds.iter().enumerate() {
        let mut rng = SplitMix64::new(seed.wrapping_add(w as u64));
        let mut systems = systems(world, extractor, analyzer, &mut rng)?;
        for query in &world.queries {
            for (tally, system) in tallies[query.form].iter_mut().zip(&mut systems) {
                tally.add(judge(&system.rank(&query.text)?, &query.relevant));
            }
        }
    }
    let mut out = format!(
        "{}: P@1 / MRR of rankings over the uploads' own words; the oracles know each person's field\n\n| query form | queries | {} |\n|{}\n",
        evaluation.name,
        NAMES.join(" | "),
        "---|".repeat(NAMES.len() + 2)
    );
    for (form, row) in evaluation.forms.iter().zip(&tallies) {
        let cells: Vec<String> = row
            .iter()
            .map(|t| {
                format!(
                    "{:.3} / {:.3}",
                    t.precision_at_1(),
                    t.mean_reciprocal_rank()
                )
            })
            .collect();
        out.push_str(&format!(
            "| {form} | {} | {} |\n",
            row[0].queries(),
            cells.join(" | ")
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Duration};
    use kenning_domain::Descriptor;

    use super::*;
    use crate::world::{Query, Text, Upload};

    /// Two fields of three people: coffee (0-2) and astronomy (3-5).
    fn world() -> World {
        let now = DateTime::from_timestamp(1_735_689_600, 0).unwrap();
        let texts = [
            (
                0,
                "Espresso extraction, grind size and crema of the coffee.",
            ),
            (1, "Roasting coffee beans to a dark roast for espresso."),
            (2, "Milk steaming for a coffee latte."),
            (3, "Telescopes observe distant galaxies and their redshift."),
            (4, "The redshift of a galaxy measures its distance."),
            (5, "Planets orbit stars observed by telescopes."),
        ];
        World {
            people: (0..6).map(|p| p.to_string()).collect(),
            uploads: texts
                .iter()
                .map(|(person, text)| Upload {
                    person: *person,
                    date: now - Duration::days(1),
                    entity_type: "document",
                    action_type: "edit",
                    texts: vec![Text::plain(Descriptor::Default, *text)],
                })
                .collect(),
            queries: Vec::new(),
            now,
        }
    }

    #[test]
    fn every_system_finds_the_field_of_a_query_in_its_words() {
        let world = world();
        let analyzer = Arc::new(Analyzer::english());
        let extractor = Arc::new(KeyphraseExtractor::new());
        let mut rng = SplitMix64::new(1);
        for (name, mut system) in NAMES
            .iter()
            .zip(systems(&world, &extractor, &analyzer, &mut rng).unwrap())
        {
            let first = system.rank("galaxy redshift seen by telescopes").unwrap()[0];
            assert_eq!(field_of(first), 1, "{name}");
            let first = system.rank("espresso roast").unwrap()[0];
            assert_eq!(field_of(first), 0, "{name}");
        }
    }

    #[test]
    fn the_oracles_list_a_whole_field_first() {
        let world = world();
        let analyzer = Arc::new(Analyzer::english());
        let mut bayes = FieldBayes {
            priors: vec![0.5f64.ln(); 2],
            model: Unigrams::new(field_texts(&world, &analyzer), analyzer.clone()),
            people: 6,
        };
        let ranking = bayes.rank("milk latte").unwrap();
        assert_eq!(ranking, [0, 1, 2, 3, 4, 5]);
        assert!(bayes.rank("saxophone").unwrap().is_empty());
    }

    #[test]
    fn the_table_has_a_row_per_form() {
        let mut world = world();
        world.queries = vec![Query {
            form: 0,
            text: "telescopes".into(),
            relevant: vec![3, 4, 5],
            asked: None,
        }];
        let evaluation = Evaluation {
            name: "Test".into(),
            forms: vec!["words"],
            worlds: vec![world],
            note: String::new(),
        };
        let table = ceiling(
            &evaluation,
            &Arc::new(KeyphraseExtractor::new()),
            &Arc::new(Analyzer::english()),
            1,
        )
        .unwrap();
        assert!(table.contains("| words | 1 | 1.000 / 1.000 |"), "{table}");
        assert_eq!(table.lines().count(), 5);
    }
}
