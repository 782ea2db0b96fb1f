//! German compound words read in their parts: "Zollanmeldungen" is also
//! "Zoll" and "Anmeldungen", "Datenschutz-Folgenabschätzung" also
//! "Datenschutz", "Daten", "Schutz" and "Folgenabschätzung".
//!
//! The split is CharSplit's (Tuggener, *Incremental Coreference Resolution
//! for German*, 2016, appendix): n-gram probabilities learned from a
//! million German nouns of Wikipedia tell how likely a string starts,
//! ends or lies inside a word, and a compound is cut where a word ends and
//! another starts. Its score picks the cut; a cut is only made where
//! both sides read as words of their own ([`Compounds::parts`]), which
//! keeps derived words whole ("Verantwortung", "Wirtschaft",
//! "Mitarbeiter"). The probabilities are data, fetched by `make compounds`
//! (the `split-words` package's `ngram_probs.json`) into a directory the
//! server is given; the algorithm is this module.

use std::path::{Path, PathBuf};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use crate::language::Rules;

/// The file of n-gram probabilities in a compounds directory.
pub const DATA_FILE: &str = "ngram_probs.json";

/// The fewest letters of a part: shorter pieces are prefixes, linking
/// elements or inflections ("mit", "ver", "ung"), not words.
pub const MIN_PART_CHARS: usize = 4;

/// How likely a side must be a word's start (the head) or end (the body)
/// to be read as a word of its own. Derived words fail it: "schaft" starts
/// under 1 % of the words it is in, "verantw" ends under 10 %.
const WORD_EDGE: f32 = 0.15;

/// How deep a compound is cut: "Bundes|verfassungs|gericht" is two cuts.
const MAX_DEPTH: usize = 4;

/// Why the compound data could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CompoundsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} holds no CharSplit n-gram probabilities: {source}")]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// CharSplit's n-gram probabilities, loaded once.
#[derive(Deserialize)]
pub struct Compounds {
    prefix: Table,
    infix: Table,
    suffix: Table,
}

impl std::fmt::Debug for Compounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grams = [&self.prefix, &self.infix, &self.suffix].map(|t| t.keys.len());
        write!(f, "Compounds({grams:?} n-grams)")
    }
}

/// One table of probabilities, kept compact: up to a million n-grams,
/// each as a 64-bit hash of its UTF-8 bytes (sorted) and a probability.
#[derive(Default)]
struct Table {
    keys: Vec<u64>,
    values: Vec<f32>,
}

impl Table {
    fn get(&self, gram: &[char]) -> Option<f32> {
        self.keys
            .binary_search(&hash(gram))
            .ok()
            .map(|at| self.values[at])
    }
}

/// FNV-1a over the UTF-8 bytes of `chars`.
fn hash(chars: &[char]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buffer = [0_u8; 4];
    for c in chars {
        for byte in c.encode_utf8(&mut buffer).bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

impl<'de> Deserialize<'de> for Table {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Grams;
        impl<'de> Visitor<'de> for Grams {
            type Value = Table;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of n-grams to probabilities")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Table, A::Error> {
                let mut pairs: Vec<(u64, f32)> = Vec::with_capacity(map.size_hint().unwrap_or(0));
                let mut chars = Vec::new();
                while let Some((gram, probability)) = map.next_entry::<String, f64>()? {
                    chars.clear();
                    chars.extend(gram.chars());
                    pairs.push((hash(&chars), probability as f32));
                }
                pairs.sort_unstable_by_key(|(key, _)| *key);
                pairs.dedup_by_key(|(key, _)| *key);
                Ok(Table {
                    keys: pairs.iter().map(|(key, _)| *key).collect(),
                    values: pairs.iter().map(|(_, value)| *value).collect(),
                })
            }
        }
        deserializer.deserialize_map(Grams)
    }
}

/// `word` less a linking `s` CharSplit reads after its ending ("ts",
/// "gs", "ks", "hls", "ns"), when what is left is longer than two letters.
fn without_linking_s(word: &[char]) -> &[char] {
    match word {
        [.., before, last, 's'] if word.len() > 3 => {
            if matches!(last, 't' | 'g' | 'k' | 'n') || (*before == 'h' && *last == 'l') {
                &word[..word.len() - 1]
            } else {
                word
            }
        }
        _ => word,
    }
}

impl Compounds {
    /// Reads [`DATA_FILE`] in `dir`.
    pub fn load(dir: &Path) -> Result<Self, CompoundsError> {
        let path = dir.join(DATA_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|source| CompoundsError::Format { path, source }),
            Err(source) => Err(CompoundsError::Read { path, source }),
        }
    }

    /// Whether `dir` holds the data [`load`](Self::load) reads.
    pub fn present(dir: &Path) -> bool {
        dir.join(DATA_FILE).is_file()
    }

    /// The parts of a German `word`, in lower case, each once: the pieces
    /// between its hyphens, and every part each is cut into, the parts of
    /// parts too ("bundesverfassungsgericht": "bundes",
    /// "verfassungsgericht", "verfassungs", "gericht"). Each part has at
    /// least [`MIN_PART_CHARS`] letters and is no function word of
    /// `rules`. A word that is no compound has none.
    pub fn parts(&self, word: &str, rules: &Rules) -> Vec<String> {
        let lower = word.to_lowercase();
        let pieces: Vec<&str> = lower.split('-').filter(|p| !p.is_empty()).collect();
        let mut found: Vec<Vec<char>> = Vec::new();
        for piece in &pieces {
            let chars: Vec<char> = piece.chars().collect();
            if !chars.iter().all(|c| c.is_alphabetic()) {
                continue;
            }
            if pieces.len() > 1 {
                found.push(chars.clone());
            }
            self.cut(&chars, rules, 0, &mut found);
        }
        let mut parts: Vec<String> = Vec::with_capacity(found.len());
        for part in found {
            let part: String = part.into_iter().collect();
            if part.chars().count() >= MIN_PART_CHARS
                && !rules.is_stop_word(&part)
                && !parts.contains(&part)
            {
                parts.push(part);
            }
        }
        parts
    }

    /// Cuts `word` where CharSplit scores best among the cuts whose sides
    /// read as words, then cuts each side, `depth` cuts down.
    fn cut(&self, word: &[char], rules: &Rules, depth: usize, found: &mut Vec<Vec<char>>) {
        if depth >= MAX_DEPTH || word.len() < 2 * MIN_PART_CHARS {
            return;
        }
        let ends = self.word_ends(word, rules);
        let best = (MIN_PART_CHARS..=word.len() - MIN_PART_CHARS)
            .filter(|&at| self.joins(&word[..at], &word[at..], &ends, rules))
            .map(|at| (self.score(word, at), at))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((_, at)) = best else {
            return;
        };
        let (body, head) = word.split_at(at);
        found.push(body.to_vec());
        self.cut(body, rules, depth + 1, found);
        found.push(head.to_vec());
        self.cut(head, rules, depth + 1, found);
    }

    /// Per length `n` up to `word`'s, whether `word[..n]` ends as a word
    /// does: German words end with it often enough, or it is a compound
    /// whose last part does.
    fn word_ends(&self, word: &[char], rules: &Rules) -> Vec<bool> {
        let mut ends = vec![false; word.len() + 1];
        for n in MIN_PART_CHARS..=word.len() {
            let body = &word[..n];
            let as_word = |gram: &[char]| self.suffix.get(gram).is_some_and(|p| p >= WORD_EDGE);
            ends[n] = as_word(body)
                || as_word(without_linking_s(body))
                || (MIN_PART_CHARS..=n.saturating_sub(MIN_PART_CHARS))
                    .any(|at| self.joins(&body[..at], &body[at..], &ends, rules));
        }
        ends
    }

    /// Whether `body` and `head` read as two words of one compound: each
    /// long enough and no function word, German words start with `head`
    /// often enough, and `body` ends as a word (`ends`, by its length).
    fn joins(&self, body: &[char], head: &[char], ends: &[bool], rules: &Rules) -> bool {
        let bare = without_linking_s(body);
        if bare.len() < MIN_PART_CHARS
            || head.len() < MIN_PART_CHARS
            || !ends[body.len()]
            || self.prefix.get(head).is_none_or(|p| p < WORD_EDGE)
        {
            return false;
        }
        let function = |part: &[char]| rules.is_stop_word(&part.iter().collect::<String>());
        !(function(body) || function(bare) || function(head))
    }

    /// CharSplit's score of cutting `word` before `at`, as its published
    /// implementation reckons it: how likely the body ends a word (less a
    /// linking `s`), plus how likely the head starts one, less how likely
    /// the head's first n-grams lie inside words (the least of them).
    fn score(&self, word: &[char], at: usize) -> f32 {
        let body = without_linking_s(&word[..at]);
        let ends = self.suffix.get(body).unwrap_or(-1.0);
        let starts = self
            .prefix
            .get(without_linking_s(&word[at..]))
            .unwrap_or(-1.0);
        let inside = (at + 3..=word.len())
            .map(|end| self.infix.get(&word[at..end]).unwrap_or(1.0))
            .fold(1.0_f32, f32::min);
        starts - inside + ends
    }
}

#[cfg(test)]
#[path = "compounds/tests.rs"]
mod tests;
