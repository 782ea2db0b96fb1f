//! The terms of a text and YAKE's term score (Campos et al., 2020).
//!
//! A term is a word folded to its stem, so "network" and "Networks" are
//! one term and every variant counts towards its statistics. Each term is
//! scored from five statistics of the text alone: casing, position,
//! frequency, how many different words surround it (relatedness) and how
//! many sentences it spreads over. Lower is better.

use std::ops::Range;

use foldhash::{HashMap, HashMapExt};
use kenning_domain::MAX_WORD_CHARS;

use crate::centrality;
use crate::language::Rules;
use crate::text::{Chunks, Word};

/// One term's statistics and score.
#[derive(Debug, Default, Clone)]
pub struct Term {
    pub stop: bool,
    pub tf: f64,
    /// Occurrences written with a capital not at a sentence start.
    pub capitalized: f64,
    /// Occurrences written in capitals (acronyms).
    pub acronym: f64,
    /// YAKE's score: lower is better, always > 0 once scored.
    pub score: f64,
    /// How central the term is to the text (see [`centrality`]); about
    /// one on average over joined terms, higher is more central.
    pub centrality: f64,
}

impl Term {
    /// Whether the term is mostly written as a name or an acronym.
    pub fn is_name(&self) -> bool {
        (self.capitalized + self.acronym) * 2.0 > self.tf
    }

    /// Counts an occurrence of the term as `word`.
    fn count(&mut self, word: &Word<'_>) {
        self.tf += 1.0;
        if is_acronym(word.surface) {
            self.acronym += 1.0;
        } else if !word.opens_sentence
            && word.surface.chars().next().is_some_and(char::is_uppercase)
        {
            self.capitalized += 1.0;
        }
    }
}

/// The words of a text and the term each one is.
#[derive(Debug)]
pub struct Terms<'a> {
    pub terms: Vec<Term>,
    /// The stem of each term.
    pub stems: Vec<String>,
    /// The chunks' words in order, with elided articles split off ("d'un"
    /// is "d'" and "un").
    pub words: Vec<Word<'a>>,
    /// The term of each word.
    pub ids: Vec<u32>,
    /// Per word: where it may stand in a key phrase.
    pub roles: Vec<Role>,
    /// The runs a phrase may span, as ranges of `words`.
    pub runs: Vec<Range<usize>>,
}

/// Where a word may stand in a key phrase.
#[derive(Debug, Clone, Copy)]
pub struct Role {
    /// It may start one: not a stop word, not a number, two letters or
    /// more, or a name of letters and digits (`d3`, `x86`).
    pub starts: bool,
    /// It may end one: as for a start, and a word its language ends a noun
    /// phrase with.
    pub ends: bool,
    /// It is a number, or a word too long to be part of a topic
    /// ([`MAX_WORD_CHARS`]): a phrase never contains one.
    pub number: bool,
}

impl Role {
    fn of(surface: &str, lower: &str, stop: bool, rules: &Rules) -> Self {
        let number = is_number(surface) || surface.chars().count() > MAX_WORD_CHARS;
        let letters = surface.chars().filter(|c| c.is_alphabetic()).count();
        let starts = !stop && !number && (letters > 1 || is_letters_and_digits(surface));
        Self {
            starts,
            ends: starts && rules.can_end_phrase(surface, lower),
            number,
        }
    }
}

/// Whether a word is a number: digits with their separators, or a Roman
/// numeral of the kind that numbers chapters, kings and types ("III",
/// "XIV"; a word written in I, V and X only).
fn is_number(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_numeric() || matches!(c, '.' | ',' | '-' | '+' | '%'))
        || (word.len() > 1 && word.chars().all(|c| matches!(c, 'I' | 'V' | 'X')))
}

pub fn is_acronym(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    letters > 1 && word.chars().all(|c| !c.is_lowercase())
}

/// `word` in lower case, into `out`.
fn lowercase(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
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
/// article ("d'"), or shorter than three letters and neither an acronym
/// nor a name of letters and digits, as YAKE reads them.
fn reads_as_stop(lower: &str, surface: &str, rules: &Rules) -> bool {
    let bare = lower.trim_end_matches(is_apostrophe);
    (bare.chars().count() < 3 && !is_acronym(surface) && !is_letters_and_digits(surface))
        || rules.is_stop_word(bare)
}

/// Whether a word is a letter followed by letters and digits, some of
/// them digits, as communities write the short names of their tools
/// (`d3`, `S3`, `i3`, `x86`, `k8s`): a name, however short, never a stop
/// word. One that begins with a digit is a size, a count or an ordinal
/// (`1920x1080`, `4x`, `15th`).
pub fn is_letters_and_digits(word: &str) -> bool {
    word.starts_with(char::is_alphabetic)
        && word.chars().all(char::is_alphanumeric)
        && word.chars().any(|c| c.is_ascii_digit())
}

/// The terms met so far, each found by its stem.
#[derive(Debug)]
struct Vocabulary {
    terms: Vec<Term>,
    by_stem: HashMap<String, u32>,
    /// Most words recur; their lower-case form finds their term without
    /// stemming again.
    by_form: HashMap<String, u32>,
}

impl Vocabulary {
    fn with_capacity(words: usize) -> Self {
        Self {
            terms: Vec::new(),
            by_stem: HashMap::with_capacity(words),
            by_form: HashMap::with_capacity(words),
        }
    }

    /// The term of a word written `surface`, `lower` in lower case; a new
    /// term when its stem is new.
    fn id(&mut self, lower: &str, surface: &str, rules: &Rules) -> u32 {
        // Short words are stop words or acronyms by their case.
        let cached = lower.len() > 3;
        if let Some(id) = cached.then(|| self.by_form.get(lower)).flatten() {
            return *id;
        }
        let stop = reads_as_stop(lower, surface, rules);
        let stem = if stop || is_number(lower) {
            lower.to_owned()
        } else {
            rules.stem(lower)
        };
        let next = u32::try_from(self.terms.len()).unwrap_or(u32::MAX);
        let terms = &mut self.terms;
        let id = *self.by_stem.entry(stem).or_insert_with(|| {
            terms.push(Term {
                stop,
                ..Term::default()
            });
            next
        });
        if cached {
            self.by_form.insert(lower.to_owned(), id);
        }
        id
    }

    /// The terms, and the stem of each.
    fn into_terms(self) -> (Vec<Term>, Vec<String>) {
        let mut stems = vec![String::new(); self.terms.len()];
        for (stem, id) in self.by_stem {
            stems[id as usize] = stem;
        }
        (self.terms, stems)
    }
}

impl<'a> Terms<'a> {
    /// Gathers the terms of `chunks` and scores them.
    pub fn of(chunks: &Chunks<'a>, rules: &Rules) -> Self {
        let capacity = chunks.runs.iter().map(Vec::len).sum::<usize>() + 16;
        let mut vocabulary = Vocabulary::with_capacity(capacity);
        let mut words = Vec::with_capacity(capacity);
        let mut ids = Vec::with_capacity(capacity);
        let mut roles = Vec::with_capacity(capacity);
        let mut runs = Vec::with_capacity(chunks.runs.len());
        let mut stats = Stats::with_capacity(capacity);
        let mut lower = String::new();
        for chunk_run in &chunks.runs {
            let start = words.len();
            for word in chunk_run {
                split_elision(*word, rules, &mut words);
            }
            for word in &words[start..] {
                lowercase(word.surface, &mut lower);
                let id = vocabulary.id(&lower, word.surface, rules);
                let term = &mut vocabulary.terms[id as usize];
                term.count(word);
                stats.sentences.push((id, word.sentence));
                ids.push(id);
                roles.push(Role::of(word.surface, &lower, term.stop, rules));
            }
            for pair in ids[start..].windows(2) {
                stats.pairs.push((pair[0], pair[1]));
            }
            runs.push(start..words.len());
        }
        let (mut terms, stems) = vocabulary.into_terms();
        score(&mut terms, stats, chunks.sentences.max(1));
        let stop: Vec<bool> = terms.iter().map(|t| t.stop).collect();
        for (term, centrality) in terms.iter_mut().zip(centrality::of(&stop, &ids, &runs)) {
            term.centrality = centrality;
        }
        Self {
            terms,
            stems,
            words,
            ids,
            roles,
            runs,
        }
    }

    pub fn get(&self, id: u32) -> &Term {
        &self.terms[id as usize]
    }
}

/// Where the terms occur, gathered flat: one allocation for all terms.
#[derive(Debug)]
struct Stats {
    /// (term, sentence) of every occurrence.
    sentences: Vec<(u32, usize)>,
    /// (left, right) of every two neighbouring words.
    pairs: Vec<(u32, u32)>,
}

impl Stats {
    fn with_capacity(words: usize) -> Self {
        Self {
            sentences: Vec::with_capacity(words),
            pairs: Vec::with_capacity(words),
        }
    }
}

/// Per term, the share of distinct words among its neighbours on the
/// side `pairs` are keyed by (the first of each pair).
fn distinct_shares(pairs: &mut [(u32, u32)], terms: usize) -> Vec<f64> {
    let mut all = vec![0_u32; terms];
    let mut distinct = vec![0_u32; terms];
    pairs.sort_unstable();
    let mut previous = None;
    for pair in pairs.iter() {
        all[pair.0 as usize] += 1;
        if previous != Some(*pair) {
            distinct[pair.0 as usize] += 1;
        }
        previous = Some(*pair);
    }
    all.iter()
        .zip(&distinct)
        .map(|(a, d)| {
            if *a == 0 {
                0.0
            } else {
                f64::from(*d) / f64::from(*a)
            }
        })
        .collect()
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
fn score(terms: &mut [Term], mut stats: Stats, sentences: usize) {
    let content: Vec<f64> = terms.iter().filter(|t| !t.stop).map(|t| t.tf).collect();
    let n = content.len().max(1) as f64;
    let mean = content.iter().sum::<f64>() / n;
    let std = (content.iter().map(|tf| (tf - mean).powi(2)).sum::<f64>() / n).sqrt();
    let max_tf = content.iter().copied().fold(1.0_f64, f64::max);
    let right = distinct_shares(&mut stats.pairs, terms.len());
    for pair in &mut stats.pairs {
        *pair = (pair.1, pair.0);
    }
    let left = distinct_shares(&mut stats.pairs, terms.len());
    // Each term's distinct sentences, in order: every term occurs, so
    // there is one group per term.
    stats.sentences.sort_unstable();
    stats.sentences.dedup();
    let mut seen: Vec<usize> = Vec::new();
    for group in stats.sentences.chunk_by(|a, b| a.0 == b.0) {
        let id = group[0].0 as usize;
        let term = &mut terms[id];
        seen.clear();
        seen.extend(group.iter().map(|(_, sentence)| *sentence));
        let tf = term.tf;
        let casing = term.capitalized.max(term.acronym) / (1.0 + tf.ln());
        let position = (3.0 + median(&seen)).ln().ln();
        let frequency = tf / (mean + std).max(f64::EPSILON);
        let relatedness = 1.0 + (left[id] + right[id]) * tf / max_tf;
        let spread = seen.len() as f64 / sentences as f64;
        term.score =
            position * relatedness / (casing + frequency / relatedness + spread / relatedness);
    }
}
