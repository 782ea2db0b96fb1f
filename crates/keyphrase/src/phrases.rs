//! Candidate phrases, their score and the choice of the best.
//!
//! A candidate is a run of one to [`MAX_WORDS`] words inside a chunk that
//! neither starts nor ends with a stop word or a number, nor ends on a word
//! its language does not end a noun phrase with (see
//! [`Rules::can_end_phrase`](crate::language::Rules::can_end_phrase)).
//! Candidates are merged by their term sequence, so every variant of a
//! phrase ("Neural networks", "neural network") counts towards its
//! frequency, and so do the uses of an acronym the text introduces for it
//! ("digital elevation model (DEM)"). The score starts from YAKE's (the product of the term scores
//! over the phrase frequency times one plus their sum; lower is better) and
//! departs from it where YAKE's choices proved weak:
//!
//! - the product is taken to the power 1/√n over the n content words, so a
//!   phrase is not better merely for being longer;
//! - the frequency counts with the power [`FREQUENCY_WEIGHT`]: a phrase
//!   written again and again is a topic even when its words are common;
//! - a stop word inside a phrase costs [`INNER_STOP_PENALTY`]: joined by
//!   "and" or "of", two good terms rarely make one topic ("Dretske and
//!   Jerry"), yet "philosophy of mind" can still win on strong terms;
//! - a common single word costs [`SINGLE_WORD_PENALTY`], since a word
//!   alone is usually less specific than the phrase it heads; a name or
//!   acronym ("NASA") is specific on its own and pays nothing;
//! - an earlier first mention ranks higher (the score grows with the log
//!   of its first sentence): titles and leads state what a text is about;
//! - the score is divided by the mean centrality of the phrase's words to
//!   the power [`CENTRALITY_WEIGHT`]: a phrase whose words the text
//!   gathers around is more likely its subject.

use foldhash::{HashMap, HashMapExt};

use crate::select;
use crate::terms::{is_acronym, Terms};
use crate::text::Word;

/// The longest key phrase, in words.
pub const MAX_WORDS: usize = 3;

/// How much worse a common single word scores than a phrase of equal
/// statistics.
const SINGLE_WORD_PENALTY: f64 = 3.0;

/// The power of a phrase's frequency in its score (YAKE: 1). A phrase
/// written again and again is a topic even when its words are common.
const FREQUENCY_WEIGHT: f64 = 1.5;

/// The power of the mean centrality of a phrase's words in its score.
const CENTRALITY_WEIGHT: f64 = 0.5;

/// How much worse a phrase scores for each stop word inside it.
const INNER_STOP_PENALTY: f64 = 10.0;

/// A candidate phrase, all its occurrences merged.
#[derive(Debug)]
struct Candidate<'t> {
    /// Its terms, a slice of the text's.
    terms: &'t [u32],
    /// Where it occurs, in order: (terms padded with `u32::MAX`, first word).
    occurrences: &'t [Occurrence],
    tf: f64,
    /// The sentence of its first occurrence.
    first_sentence: usize,
}

impl Candidate<'_> {
    fn first_word(&self) -> usize {
        self.occurrences.first().map_or(0, |o| o.1)
    }
}

/// One occurrence of a candidate: its terms padded with `u32::MAX`, so
/// that sorting groups the occurrences of each, and its first word.
type Occurrence = ([u32; MAX_WORDS], usize);

/// A scored key phrase.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub key: String,
    pub label: String,
    /// Lower is better, always > 0.
    pub score: f64,
}

/// Whether the words `start..=end` of one run form a candidate.
fn is_candidate(terms: &Terms<'_>, start: usize, end: usize) -> bool {
    let roles = &terms.roles;
    roles[start].starts && roles[end].ends && !roles[start..end].iter().any(|r| r.number)
}

/// The phrase as written: words joined by a space, except after an
/// elided article ("l'avion").
fn written(words: &[Word<'_>]) -> String {
    let mut form = String::new();
    for word in words {
        if !form.is_empty() && !form.ends_with(['\'', '’']) {
            form.push(' ');
        }
        form.push_str(word.surface);
    }
    form
}

/// Every occurrence of a candidate in the text, sorted so that those of
/// one candidate are together, first occurrence first.
fn occurrences(terms: &Terms<'_>) -> Vec<Occurrence> {
    let mut found = Vec::with_capacity(terms.words.len() * 2);
    for run in &terms.runs {
        for start in run.clone() {
            for end in start..run.end.min(start + MAX_WORDS) {
                if is_candidate(terms, start, end) {
                    let mut key = [u32::MAX; MAX_WORDS];
                    key[..=end - start].copy_from_slice(&terms.ids[start..=end]);
                    found.push((key, start));
                }
            }
        }
    }
    found.sort_unstable();
    found
}

/// The acronyms a text introduces right after their expansion, as in
/// "digital elevation model (DEM)": the acronym's term and the expansion's,
/// once for each introduction.
fn acronyms<'t>(terms: &'t Terms<'_>) -> Vec<(u32, &'t [u32])> {
    let mut found = Vec::new();
    for pair in terms.runs.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        if after.len() != 1 {
            continue;
        }
        let acronym = terms.words[after.start];
        if !is_acronym(acronym.surface) {
            continue;
        }
        let letters: Vec<char> = acronym
            .surface
            .chars()
            .filter(|c| c.is_alphabetic())
            .collect();
        let n = letters.len();
        if !(2..=MAX_WORDS).contains(&n) || before.len() < n {
            continue;
        }
        let start = before.end - n;
        let words = &terms.words[start..before.end];
        let initials = words.iter().zip(&letters).all(|(w, l)| {
            w.surface
                .chars()
                .next()
                .is_some_and(|c| c.to_uppercase().eq(l.to_uppercase()))
        });
        if initials
            && words[n - 1].sentence == acronym.sentence
            && is_candidate(terms, start, before.end - 1)
        {
            found.push((terms.ids[after.start], &terms.ids[start..before.end]));
        }
    }
    found
}

/// The candidates of the text, from its sorted occurrences. An acronym
/// introduced for a phrase also counts as an occurrence of that phrase:
/// "DEM" written five times is "digital elevation model" written five
/// times. The acronym stays a candidate of its own.
fn candidates<'t>(terms: &'t Terms<'_>, occurrences: &'t [Occurrence]) -> Vec<Candidate<'t>> {
    // Each expansion's acronyms, with how often each was introduced.
    let mut acronyms_of: HashMap<&[u32], Vec<(u32, f64)>> = HashMap::new();
    for (acronym, expansion) in acronyms(terms) {
        let uses = acronyms_of.entry(expansion).or_default();
        match uses.iter_mut().find(|(a, _)| *a == acronym) {
            Some((_, introductions)) => *introductions += 1.0,
            None => uses.push((acronym, 1.0)),
        }
    }
    occurrences
        .chunk_by(|a, b| a.0 == b.0)
        .map(|group| {
            let (key, start) = group[0];
            let len = key.iter().take_while(|id| **id != u32::MAX).count();
            let ids = &terms.ids[start..start + len];
            // The acronyms' other uses; an introduction is the same mention
            // as the expansion before it.
            let by_acronym = acronyms_of.get(ids).map_or(0.0, |uses| {
                uses.iter()
                    .map(|(acronym, introductions)| terms.get(*acronym).tf - introductions)
                    .sum()
            });
            Candidate {
                terms: ids,
                occurrences: group,
                tf: group.len() as f64 + by_acronym,
                first_sentence: terms.words[start].sentence,
            }
        })
        .collect()
}

/// The candidate's score; lower is better.
fn score(candidate: &Candidate<'_>, terms: &Terms<'_>) -> f64 {
    let mut product = 1.0;
    let mut sum = 0.0;
    let mut centrality = 0.0;
    let mut content = 0_u32;
    let mut stops = 0_i32;
    for id in candidate.terms {
        let term = terms.get(*id);
        if term.stop {
            stops += 1;
        } else {
            content += 1;
            product *= term.score.max(f64::MIN_POSITIVE);
            sum += term.score;
            centrality += term.centrality;
        }
    }
    // The root keeps a phrase from winning merely by being longer: with
    // term scores below one, YAKE's bare product favours any extra word.
    let length = f64::from(content).sqrt().max(1.0);
    let mut score = product.powf(1.0 / length) * INNER_STOP_PENALTY.powi(stops)
        / (candidate.tf.powf(FREQUENCY_WEIGHT) * (1.0 + sum));
    if let [only] = candidate.terms {
        if !terms.get(*only).is_name() {
            score *= SINGLE_WORD_PENALTY;
        }
    }
    score *= (2.0 + candidate.first_sentence as f64).ln();
    // The mean centrality of its words, damped by the root so that it
    // corrects YAKE's statistics rather than overrides them.
    let centrality = centrality / f64::from(content.max(1));
    score /= centrality.max(f64::MIN_POSITIVE).powf(CENTRALITY_WEIGHT);
    score.max(f64::MIN_POSITIVE)
}

/// The most frequent way the phrase was written; on a tie, the one with
/// most lower-case letters, then the first in byte order. Found when
/// needed: only the few phrases that are chosen need a label.
fn label(candidate: &Candidate<'_>, terms: &Terms<'_>) -> String {
    let n = candidate.terms.len();
    let mut forms: HashMap<String, u32> = HashMap::new();
    for (_, start) in candidate.occurrences {
        *forms
            .entry(written(&terms.words[*start..start + n]))
            .or_default() += 1;
    }
    forms
        .into_iter()
        .max_by(|a, b| {
            a.1.cmp(&b.1)
                .then_with(|| {
                    let lower = |s: &str| s.chars().filter(|c| c.is_lowercase()).count();
                    lower(&a.0).cmp(&lower(&b.0))
                })
                .then_with(|| b.0.cmp(&a.0))
        })
        .map(|(form, _)| form)
        .unwrap_or_default()
}

/// The key phrases of the text, best first, at most `limit`.
pub fn key_phrases(terms: &Terms<'_>, limit: usize) -> Vec<Scored> {
    if limit == 0 {
        return Vec::new();
    }
    let occurrences = occurrences(terms);
    let mut scored: Vec<(f64, Candidate<'_>)> = candidates(terms, &occurrences)
        .into_iter()
        .map(|c| (score(&c, terms), c))
        .collect();
    scored.sort_unstable_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.first_word().cmp(&b.1.first_word()))
            .then(a.1.terms.len().cmp(&b.1.terms.len()))
    });
    let mut chosen = select::Chosen::default();
    let mut out = Vec::with_capacity(limit.min(scored.len()));
    for (score, candidate) in scored {
        if chosen.overlaps(candidate.terms, candidate.tf) {
            continue;
        }
        let label = label(&candidate, terms);
        let key = candidate
            .terms
            .iter()
            .map(|id| terms.stems[*id as usize].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        chosen.add(candidate.terms, candidate.tf);
        out.push(Scored { key, label, score });
        if out.len() == limit {
            break;
        }
    }
    out
}
