//! The terms of a text and YAKE's term score (Campos et al., 2020).
//!
//! A term is a word folded to its stem, so "network" and "Networks" are
//! one term and every variant counts towards its statistics. Each term is
//! scored from five statistics of the text alone: casing, position,
//! frequency, how many different words surround it (relatedness) and how
//! many sentences it spreads over. Lower is better.

use std::collections::HashMap;

use crate::language::Rules;
use crate::text::{Chunks, Word};

/// One term's statistics and score.
#[derive(Debug, Default, Clone)]
pub struct Term {
    pub stem: String,
    pub stop: bool,
    pub tf: f64,
    /// Occurrences written with a capital not at a sentence start.
    pub capitalized: f64,
    /// Occurrences written in capitals (acronyms).
    pub acronym: f64,
    sentences: Vec<usize>,
    left: Vec<u32>,
    right: Vec<u32>,
    /// YAKE's score: lower is better, always > 0 once scored.
    pub score: f64,
}

impl Term {
    /// Whether the term is mostly written as a name or an acronym.
    pub fn is_name(&self) -> bool {
        (self.capitalized + self.acronym) * 2.0 > self.tf
    }
}

/// The words of a text and the term each one is.
#[derive(Debug)]
pub struct Terms<'a> {
    pub terms: Vec<Term>,
    /// The chunks' runs, with elided articles split off ("d'un" is "d'"
    /// and "un").
    pub runs: Vec<Vec<Word<'a>>>,
    /// The term of each word of `runs`, in the same shape.
    pub ids: Vec<Vec<u32>>,
    /// Whether each word of `runs` can end a key phrase.
    pub finals: Vec<Vec<bool>>,
}

pub fn is_number(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_numeric() || matches!(c, '.' | ',' | '-' | '+' | '%'))
}

pub fn is_acronym(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    letters > 1 && word.chars().all(|c| !c.is_lowercase())
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’')
}

/// `word` with an elided stop word split off ("l'avion", "dell'arte",
/// "s'est"): the part up to the first apostrophe, when it is a stop word
/// of the language, is a word of its own. Possessives ("Lob's") and
/// contractions listed as stop words ("don't") stay whole.
fn split_elision<'a>(word: Word<'a>, rules: &Rules, out: &mut Vec<Word<'a>>) {
    let surface = word.surface;
    let Some((at, apostrophe)) = surface.char_indices().find(|(_, c)| is_apostrophe(*c)) else {
        out.push(word);
        return;
    };
    let split = at + apostrophe.len_utf8();
    let prefix = surface[..at].to_lowercase();
    let whole = surface.to_lowercase();
    if split >= surface.len() || !rules.is_stop_word(&prefix) || rules.is_stop_word(&whole) {
        out.push(word);
        return;
    }
    out.push(Word {
        surface: &surface[..split],
        ..word
    });
    out.push(Word {
        surface: &surface[split..],
        opens_sentence: false,
        ..word
    });
}

/// Whether a lower-case word reads as a stop word: listed, an elided
/// article ("d'"), or shorter than three letters and not an acronym, as
/// YAKE reads them.
fn reads_as_stop(lower: &str, surface: &str, rules: &Rules) -> bool {
    let bare = lower.trim_end_matches(is_apostrophe);
    (bare.chars().count() < 3 && !is_acronym(surface)) || rules.is_stop_word(bare)
}

impl<'a> Terms<'a> {
    /// Gathers the terms of `chunks` and scores them.
    pub fn of(chunks: &Chunks<'a>, rules: &Rules) -> Self {
        let mut terms: Vec<Term> = Vec::new();
        let mut by_stem: HashMap<String, u32> = HashMap::new();
        let mut runs = Vec::with_capacity(chunks.runs.len());
        let mut ids = Vec::with_capacity(chunks.runs.len());
        let mut finals = Vec::with_capacity(chunks.runs.len());
        let mut lower = String::new();
        for chunk_run in &chunks.runs {
            let mut run = Vec::with_capacity(chunk_run.len());
            for word in chunk_run {
                split_elision(*word, rules, &mut run);
            }
            let mut ids_of_run = Vec::with_capacity(run.len());
            let mut finals_of_run = Vec::with_capacity(run.len());
            for word in &run {
                lower.clear();
                lower.extend(word.surface.chars().flat_map(char::to_lowercase));
                let stop = reads_as_stop(&lower, word.surface, rules);
                finals_of_run.push(rules.can_end_phrase(word.surface, &lower));
                let stem = if stop || is_number(&lower) {
                    lower.clone()
                } else {
                    rules.stem(&lower)
                };
                let next = u32::try_from(terms.len()).unwrap_or(u32::MAX);
                let id = *by_stem.entry(stem).or_insert_with_key(|stem| {
                    terms.push(Term {
                        stem: stem.clone(),
                        stop,
                        ..Term::default()
                    });
                    next
                });
                let term = &mut terms[id as usize];
                term.tf += 1.0;
                if is_acronym(word.surface) {
                    term.acronym += 1.0;
                } else if !word.opens_sentence
                    && word.surface.chars().next().is_some_and(char::is_uppercase)
                {
                    term.capitalized += 1.0;
                }
                term.sentences.push(word.sentence);
                ids_of_run.push(id);
            }
            for pair in ids_of_run.windows(2) {
                terms[pair[0] as usize].right.push(pair[1]);
                terms[pair[1] as usize].left.push(pair[0]);
            }
            runs.push(run);
            ids.push(ids_of_run);
            finals.push(finals_of_run);
        }
        score(&mut terms, chunks.sentences.max(1));
        Self {
            terms,
            runs,
            ids,
            finals,
        }
    }

    pub fn get(&self, id: u32) -> &Term {
        &self.terms[id as usize]
    }
}

fn median(values: &[usize]) -> f64 {
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2] as f64,
        _ => (values[n / 2 - 1] + values[n / 2]) as f64 / 2.0,
    }
}

/// YAKE's term score from the five statistics.
fn score(terms: &mut [Term], sentences: usize) {
    let content: Vec<f64> = terms.iter().filter(|t| !t.stop).map(|t| t.tf).collect();
    let n = content.len().max(1) as f64;
    let mean = content.iter().sum::<f64>() / n;
    let std = (content.iter().map(|tf| (tf - mean).powi(2)).sum::<f64>() / n).sqrt();
    let max_tf = content.iter().copied().fold(1.0_f64, f64::max);
    for term in terms.iter_mut() {
        let tf = term.tf;
        let casing = term.capitalized.max(term.acronym) / (1.0 + tf.ln());
        term.sentences.sort_unstable();
        term.sentences.dedup();
        let position = (3.0 + median(&term.sentences)).ln().ln();
        let frequency = tf / (mean + std).max(f64::EPSILON);
        let spread_left = distinct_share(&mut term.left);
        let spread_right = distinct_share(&mut term.right);
        let relatedness = 1.0 + (spread_left + spread_right) * tf / max_tf;
        let spread = term.sentences.len() as f64 / sentences as f64;
        term.score =
            position * relatedness / (casing + frequency / relatedness + spread / relatedness);
    }
}

/// The share of distinct words among a term's neighbours on one side.
fn distinct_share(neighbours: &mut Vec<u32>) -> f64 {
    if neighbours.is_empty() {
        return 0.0;
    }
    let all = neighbours.len() as f64;
    neighbours.sort_unstable();
    neighbours.dedup();
    neighbours.len() as f64 / all
}
