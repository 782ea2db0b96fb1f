//! Evaluation 6: knowing when nobody knows.
//!
//! The held-out category routing of SemEval 2017 (Evaluation 2), with the
//! people of [`REMOVED`] of its journals gone from the organisation, their
//! uploads with them: the queries of those journals have no right answer
//! any more (a few of their documents stay with people of other journals
//! who touched them, as in a real organisation). Besides them,
//! dictionary words that no upload holds (WordNet's nouns people use),
//! alone and in pairs ("quantum chromodynamics" for an organisation of
//! chemists). A score must tell the two apart: the first person of an
//! answerable query scores 50 or more when right, and nobody scores 50 or
//! more for a query nobody can answer.

use std::collections::HashSet;
use std::sync::Arc;

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::TopicExtractor;

use crate::mismatch::WordNet;
use crate::rng::SplitMix64;
use crate::routing::field_of;
use crate::run::{Embedders, KENNINGS};
use crate::systems::{Kenning, NAMES};
use crate::world::{Evaluation, World};

/// How many journals lose their people in each split.
pub const REMOVED: usize = 2;
/// How many dictionary words are asked alone in each split, and as many
/// pairs.
pub const DICTIONARY_QUERIES: usize = 20;
/// The score a reader takes for "this is the person".
pub const CONFIDENT: f64 = 50.0;

/// The first score of one query (0 when nobody is listed), whether the
/// query has a right answer, and whether the first person is right.
#[derive(Debug, Clone, Copy)]
struct Answer {
    score: f64,
    answerable: bool,
    right: bool,
}

/// What one system did.
#[derive(Debug, Default)]
struct Tally {
    answers: Vec<Answer>,
}

impl Tally {
    /// The share of the queries nobody can answer that nobody answered
    /// with [`CONFIDENT`] or more.
    fn nobody_share(&self) -> f64 {
        share(self.answers.iter().filter(|a| !a.answerable), |a| {
            a.score < CONFIDENT
        })
    }

    /// The share of the answerable queries whose right first person
    /// scores [`CONFIDENT`] or more, of those with a right first person.
    fn confident_share(&self) -> f64 {
        share(
            self.answers.iter().filter(|a| a.answerable && a.right),
            |a| a.score >= CONFIDENT,
        )
    }

    /// What any line would do that a rescaling of the scores could move
    /// 50 to: the lowest score that keeps the first score of 90 % of the
    /// unanswerable queries under it, and the share of right first people
    /// at or above it. Were the share under 0.80, no rescaling meets both
    /// goals; the order of the scores has to change.
    fn best_line(&self) -> (f64, f64) {
        let mut negative: Vec<f64> = self
            .answers
            .iter()
            .filter(|a| !a.answerable)
            .map(|a| a.score)
            .collect();
        negative.sort_by(f64::total_cmp);
        let Some(line) = negative
            .get((negative.len() * 9).div_ceil(10).saturating_sub(1))
            .map(|s| s.next_up())
        else {
            return (f64::NAN, f64::NAN);
        };
        let above = share(
            self.answers.iter().filter(|a| a.answerable && a.right),
            |a| a.score >= line,
        );
        (line, above)
    }

    /// The share of answerable queries with a right first person.
    fn right_first(&self) -> f64 {
        share(self.answers.iter().filter(|a| a.answerable), |a| a.right)
    }

    /// The area under the ROC curve of the first score as a test of
    /// "answerable": the chance that an answerable query's first score is
    /// above an unanswerable one's (ties count half).
    fn auc(&self) -> f64 {
        let positive: Vec<f64> = self
            .answers
            .iter()
            .filter(|a| a.answerable)
            .map(|a| a.score)
            .collect();
        let negative: Vec<f64> = self
            .answers
            .iter()
            .filter(|a| !a.answerable)
            .map(|a| a.score)
            .collect();
        if positive.is_empty() || negative.is_empty() {
            return f64::NAN;
        }
        let mut wins = 0.0;
        for p in &positive {
            for n in &negative {
                wins += if p > n {
                    1.0
                } else if p == n {
                    0.5
                } else {
                    0.0
                };
            }
        }
        wins / (positive.len() * negative.len()) as f64
    }
}

fn share<'a>(answers: impl Iterator<Item = &'a Answer>, counts: impl Fn(&Answer) -> bool) -> f64 {
    let (mut yes, mut all) = (0usize, 0usize);
    for a in answers {
        all += 1;
        yes += usize::from(counts(a));
    }
    if all == 0 {
        f64::NAN
    } else {
        yes as f64 / all as f64
    }
}

/// `world` without the people of `removed` journals' uploads; its
/// queries about those journals lose their right answers.
fn without(world: &World, removed: &HashSet<usize>) -> World {
    let mut world = world.clone();
    world
        .uploads
        .retain(|u| !removed.contains(&field_of(u.person)));
    for query in &mut world.queries {
        query.relevant.retain(|p| !removed.contains(&field_of(*p)));
    }
    world
}

/// The keys of every word the world's uploads hold, as Kenning reads them.
fn held_keys(world: &World, extractor: &KeyphraseExtractor) -> HashSet<String> {
    let mut keys = HashSet::new();
    for upload in &world.uploads {
        let text = upload.visible();
        for language in [None, Some("en")] {
            let read = extractor.extract(&text, TextFormat::Plain, language, 0);
            keys.extend(read.words.into_iter().map(|w| w.key));
        }
    }
    keys
}

/// Dictionary words none of whose keys the world's uploads hold: alone,
/// then in pairs.
fn dictionary_queries(
    world: &World,
    words: &[&str],
    extractor: &KeyphraseExtractor,
    rng: &mut SplitMix64,
) -> Vec<String> {
    let held = held_keys(world, extractor);
    let unheld = |word: &str| {
        let read = extractor.extract(word, TextFormat::Plain, Some("en"), 1);
        !read.words.is_empty() && read.words.iter().all(|w| !held.contains(&w.key))
    };
    let mut picked: Vec<&str> = Vec::new();
    let mut tries = 0;
    while picked.len() < 3 * DICTIONARY_QUERIES && tries < 100 * DICTIONARY_QUERIES {
        tries += 1;
        let word = words[rng.below(words.len())];
        if unheld(word) && !picked.contains(&word) {
            picked.push(word);
        }
    }
    let (alone, paired) = picked.split_at(DICTIONARY_QUERIES.min(picked.len()));
    alone
        .iter()
        .map(|w| (*w).to_owned())
        .chain(paired.chunks_exact(2).map(|p| format!("{} {}", p[0], p[1])))
        .collect()
}

/// Runs the evaluation on `routing` (the SemEval category routing) and
/// `known` (the Inspec known items) and prints one table: per Kenning
/// variant, the share of queries nobody can answer that no one answered
/// with 50 or more, the share of right first answers that score 50 or
/// more, of the routing and of the known items' titles (a paper's title
/// whose author is in the organisation: "this is the person"), and the
/// ROC AUC of the first score.
pub fn run(
    routing: &Evaluation,
    known: &Evaluation,
    wordnet: &WordNet,
    extractor: &Arc<KeyphraseExtractor>,
    embedders: &Embedders,
    seed: u64,
) -> anyhow::Result<String> {
    let words = wordnet.used_words();
    anyhow::ensure!(!words.is_empty(), "WordNet has no words people use");
    let mut tallies: [Tally; KENNINGS] = Default::default();
    let (mut answerable, mut about_removed, mut dictionary) = (0, 0, 0);
    for (w, world) in routing.worlds.iter().enumerate() {
        let mut rng = SplitMix64::new(seed.wrapping_add(1_000 + w as u64));
        let fields = world
            .people
            .len()
            .div_ceil(crate::routing::PEOPLE_PER_CATEGORY);
        let removed: HashSet<usize> = rng.permutation(fields).into_iter().take(REMOVED).collect();
        let world = without(world, &removed);
        let orphaned = world
            .queries
            .iter()
            .filter(|q| q.relevant.is_empty())
            .count();
        about_removed += orphaned;
        answerable += world.queries.len() - orphaned;
        let mut queries: Vec<(String, Vec<usize>)> = world
            .queries
            .iter()
            .map(|q| (q.text.clone(), q.relevant.clone()))
            .collect();
        for text in dictionary_queries(&world, &words, extractor, &mut rng) {
            queries.push((text, Vec::new()));
            dictionary += 1;
        }
        let kenning = Kenning::new(&world, extractor.clone())?;
        let mut systems = embedders.meanings(&kenning)?;
        systems.insert(0, kenning);
        for (text, relevant) in &queries {
            for (k, system) in systems.iter_mut().enumerate() {
                let experts = system.experts(text)?;
                let first = experts.first();
                tallies[k].answers.push(Answer {
                    score: first.map_or(0.0, |(_, e)| e.score),
                    answerable: !relevant.is_empty(),
                    right: first.is_some_and(|(p, _)| relevant.contains(p)),
                });
            }
        }
    }
    let mut titles: [Tally; KENNINGS] = Default::default();
    let mut known_titles = 0;
    for world in &known.worlds {
        let kenning = Kenning::new(world, extractor.clone())?;
        let mut systems = embedders.meanings(&kenning)?;
        systems.insert(0, kenning);
        for query in world.queries.iter().filter(|q| q.form == 0) {
            known_titles += 1;
            for (k, system) in systems.iter_mut().enumerate() {
                let experts = system.experts(&query.text)?;
                let first = experts.first();
                titles[k].answers.push(Answer {
                    score: first.map_or(0.0, |(_, e)| e.score),
                    answerable: true,
                    right: first.is_some_and(|(p, _)| query.relevant.contains(p)),
                });
            }
        }
    }
    let mut out = format!(
        "\nKnowing when nobody knows: {} splits of {}, the people of {REMOVED} journals removed in each; \
         {answerable} answerable queries, {} about the removed journals and {dictionary} of dictionary \
         words no upload holds (alone and in pairs); {known_titles} titles of {}\n\n\
         | system | nobody above {CONFIDENT:.0}, unanswerable (goal >= 0.90) | known item: right first scores >= {CONFIDENT:.0} (goal >= 0.80) | routing: right first scores >= {CONFIDENT:.0} | right first | ROC AUC of the first score | the line under which 90 % of the unanswerable stay | right first at or above it |\n\
         |---|---|---|---|---|---|---|---|\n",
        routing.worlds.len(),
        routing.name,
        about_removed,
        known.name,
    );
    for ((name, tally), titles) in NAMES[..KENNINGS].iter().zip(&tallies).zip(&titles) {
        let (line, above) = tally.best_line();
        out.push_str(&format!(
            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {line:.1} | {above:.3} |\n",
            tally.nobody_share(),
            titles.confident_share(),
            tally.confident_share(),
            tally.right_first(),
            tally.auc()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(score: f64, answerable: bool, right: bool) -> Answer {
        Answer {
            score,
            answerable,
            right,
        }
    }

    #[test]
    fn the_shares_and_the_auc_read_the_first_scores() {
        let tally = Tally {
            answers: vec![
                answer(90.0, true, true),
                answer(40.0, true, true),
                answer(70.0, true, false),
                answer(30.0, false, false),
                answer(60.0, false, false),
            ],
        };
        assert_eq!(tally.nobody_share(), 0.5);
        assert_eq!(tally.confident_share(), 0.5);
        assert!((tally.right_first() - 2.0 / 3.0).abs() < 1e-12);
        // Pairs (answerable above unanswerable): 90>30, 90>60, 40>30,
        // 70>30, 70>60: five of six.
        assert!((tally.auc() - 5.0 / 6.0).abs() < 1e-12);
        // 90 % of the two unanswerable: both, so the line is just above
        // 60, and one of the two right first people (90) is above it.
        let (line, above) = tally.best_line();
        assert!(line > 60.0 && line < 60.001, "{line}");
        assert_eq!(above, 0.5);
    }
}
