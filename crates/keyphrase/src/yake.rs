//! The scoring: YAKE (Campos et al., 2020) computed over stemmed terms.
//!
//! Each term (a word folded to its stem) gets a score from five statistics
//! of the text alone: casing, position, frequency, how many different
//! words surround it (relatedness), and how many sentences it spreads over.
//! A candidate phrase of one to three words, not starting or ending with a
//! stop word or a number, scores the product of its terms' scores divided
//! by its own frequency. Lower is better.
//!
//! Two departures from the original serve recall under inflection:
//! statistics are gathered per stem, so "network" and "networks" are one
//! term, and candidates are merged by their stem sequence, so every
//! variant of a phrase counts towards its frequency.

use std::collections::HashMap;

use crate::language::Rules;
use crate::text::Chunks;

/// How much worse a single word scores than a phrase of equal statistics.
const SINGLE_WORD_PENALTY: f64 = 3.0;

/// The longest key phrase, in words.
pub const MAX_WORDS: usize = 3;

#[derive(Debug, Default, Clone)]
struct Term {
    stem: String,
    stop: bool,
    tf: f64,
    /// Occurrences written with a capital not at a sentence start.
    capitalized: f64,
    /// Occurrences written in capitals (acronyms).
    acronym: f64,
    sentences: Vec<usize>,
    left: Vec<u32>,
    right: Vec<u32>,
    score: f64,
}

#[derive(Debug, Default)]
struct Candidate {
    terms: Vec<u32>,
    tf: f64,
    /// Surface forms with how often each was seen.
    forms: HashMap<String, u32>,
    first_seen: usize,
}

/// A scored key phrase.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub key: String,
    pub label: String,
    /// YAKE's score: lower is better, always > 0.
    pub score: f64,
}

fn is_number(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_numeric() || matches!(c, '.' | ',' | '-' | '+' | '%'))
}

fn is_acronym(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    letters > 1 && word.chars().all(|c| !c.is_lowercase())
}

fn median(values: &mut [usize]) -> f64 {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2] as f64,
        _ => (values[n / 2 - 1] + values[n / 2]) as f64 / 2.0,
    }
}

/// Whether a word can stand at either end of a key phrase.
fn can_bound(term: &Term, surface: &str) -> bool {
    !term.stop && !is_number(surface) && surface.chars().filter(|c| c.is_alphabetic()).count() > 1
}

/// The key phrases of `chunks`, best first, at most `limit`.
pub fn key_phrases(chunks: &Chunks<'_>, rules: &Rules, limit: usize) -> Vec<Scored> {
    if limit == 0 || chunks.runs.is_empty() {
        return Vec::new();
    }
    let mut terms: Vec<Term> = Vec::new();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut run_ids: Vec<Vec<u32>> = Vec::with_capacity(chunks.runs.len());
    let mut lower = String::new();
    let mut pairs: HashMap<(u32, u32), f64> = HashMap::new();

    for run in &chunks.runs {
        let mut ids_of_run = Vec::with_capacity(run.len());
        for word in run {
            lower.clear();
            lower.extend(word.surface.chars().flat_map(char::to_lowercase));
            // Like YAKE, words shorter than three letters are read as stop
            // words, unless written as an acronym ("AI").
            let short = lower.chars().count() < 3 && !is_acronym(word.surface);
            let stop = short || rules.is_stop_word(&lower);
            let stem = if stop || is_number(&lower) {
                lower.clone()
            } else {
                rules.stem(&lower)
            };
            let next = u32::try_from(terms.len()).unwrap_or(u32::MAX);
            let id = *ids.entry(stem.clone()).or_insert_with(|| {
                terms.push(Term {
                    stem,
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
            *pairs.entry((pair[0], pair[1])).or_default() += 1.0;
        }
        run_ids.push(ids_of_run);
    }

    score_terms(&mut terms, chunks.sentences.max(1));

    // Candidates: every run of one to MAX_WORDS words inside a chunk whose
    // ends can bound a phrase.
    let mut candidates: HashMap<Vec<u32>, Candidate> = HashMap::new();
    let mut position = 0;
    for (run, ids_of_run) in chunks.runs.iter().zip(&run_ids) {
        for start in 0..run.len() {
            position += 1;
            let first = &terms[ids_of_run[start] as usize];
            if !can_bound(first, run[start].surface) {
                continue;
            }
            for len in 1..=MAX_WORDS.min(run.len() - start) {
                let end = start + len - 1;
                let last = &terms[ids_of_run[end] as usize];
                if !can_bound(last, run[end].surface) {
                    continue;
                }
                let key = ids_of_run[start..=end].to_vec();
                if run[start..=end].iter().any(|w| is_number(w.surface)) {
                    continue;
                }
                let form = run[start..=end]
                    .iter()
                    .map(|w| w.surface)
                    .collect::<Vec<_>>()
                    .join(" ");
                let candidate = candidates.entry(key.clone()).or_insert_with(|| Candidate {
                    terms: key,
                    first_seen: position,
                    ..Candidate::default()
                });
                candidate.tf += 1.0;
                *candidate.forms.entry(form).or_default() += 1;
            }
        }
    }

    let mut scored: Vec<(f64, usize, Candidate)> = candidates
        .into_values()
        .map(|c| {
            let mut score = candidate_score(&c, &terms, &pairs);
            if c.terms.len() == 1 {
                score *= SINGLE_WORD_PENALTY;
            }
            (score, c.first_seen, c)
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));

    let mut out: Vec<Scored> = Vec::with_capacity(limit);
    for (score, _, candidate) in scored {
        let key = candidate
            .terms
            .iter()
            .map(|id| terms[*id as usize].stem.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let label = best_form(&candidate);
        if out.iter().any(|o| similar(&o.label, &label)) {
            continue;
        }
        // A single word already said by a better phrase adds nothing.
        if candidate.terms.len() == 1
            && out.iter().any(|o| o.key.split(' ').any(|part| part == key))
        {
            continue;
        }
        out.push(Scored { key, label, score });
        if out.len() == limit {
            break;
        }
    }
    out
}

/// YAKE's term score from the five statistics.
fn score_terms(terms: &mut [Term], sentences: usize) {
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
        let position = (3.0 + median(&mut term.sentences)).ln().ln();
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

/// YAKE's phrase score: the product of its content terms' scores over its
/// frequency times one plus their sum. A stop word inside the phrase
/// counts against it unless its neighbours usually go with it
/// ("philosophy of mind" yes, "Dretske and Jerry" no).
fn candidate_score(candidate: &Candidate, terms: &[Term], pairs: &HashMap<(u32, u32), f64>) -> f64 {
    let mut product = 1.0;
    let mut sum = 0.0;
    for (i, id) in candidate.terms.iter().enumerate() {
        let term = &terms[*id as usize];
        if term.stop {
            let (Some(prev), Some(next)) = (
                i.checked_sub(1).map(|p| candidate.terms[p]),
                candidate.terms.get(i + 1).copied(),
            ) else {
                continue;
            };
            let together = |a: u32, b: u32, of: u32| {
                pairs.get(&(a, b)).copied().unwrap_or(0.0) / terms[of as usize].tf.max(1.0)
            };
            let likely = together(prev, *id, prev) * together(*id, next, next);
            product *= 1.0 + (1.0 - likely);
            sum -= 1.0 - likely;
            continue;
        }
        product *= term.score.max(f64::MIN_POSITIVE);
        sum += term.score;
    }
    (product / (candidate.tf * (1.0 + sum).max(f64::MIN_POSITIVE))).max(f64::MIN_POSITIVE)
}

/// The most frequent way the phrase was written; on a tie, the lower-case one.
fn best_form(candidate: &Candidate) -> String {
    candidate
        .forms
        .iter()
        .max_by(|a, b| {
            a.1.cmp(b.1)
                .then_with(|| {
                    let lower_a = a.0.chars().filter(|c| c.is_lowercase()).count();
                    let lower_b = b.0.chars().filter(|c| c.is_lowercase()).count();
                    lower_a.cmp(&lower_b)
                })
                .then_with(|| b.0.cmp(a.0))
        })
        .map(|(form, _)| form.clone())
        .unwrap_or_default()
}

/// Whether two labels say the same thing (differ only in case or in a
/// character or two), as YAKE's deduplication does.
fn similar(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return true;
    }
    if a.len().abs_diff(b.len()) * 10 > longest {
        return false;
    }
    let distance = levenshtein(&a, &b);
    (distance as f64) / (longest as f64) < 0.1
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}
