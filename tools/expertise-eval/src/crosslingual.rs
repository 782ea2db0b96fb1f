//! Evaluation 7: questions in another language than the uploads.
//!
//! People write in English; a colleague asks in German or French. The
//! gold key phrases of the people's documents (as in Evaluation 4) are
//! translated with FreeDict's English-German and English-French
//! dictionaries (Debian's `dict-freedict-eng-deu` and
//! `dict-freedict-eng-fra`, which `make eval-experts` fetches), a phrase
//! being asked only when the dictionary has it as a headword and its
//! translation is written differently. The right people are those whose
//! documents write the English phrase, at most [`MAX_RIGHT`].

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use kenning_keyphrase_eval::Dataset;
use rust_stemmers::{Algorithm, Stemmer};

use crate::mismatch::{
    a_word_phrase, debian_data_dir, sampled, stemmed_texts, words, writes, MAX_QUESTIONS, MAX_RIGHT,
};
use crate::profiles::{deal, uploaded};
use crate::rng::SplitMix64;
use crate::world::{Evaluation, World};

/// The languages asked in, with their FreeDict dictionary's name.
pub const LANGUAGES: [(&str, &str); 2] = [("German", "eng-deu"), ("French", "eng-fra")];

/// Where FreeDict's dictd files are: `KENNING_FREEDICT_DIR`, else where
/// the Makefile unpacks Debian's packages, else where Debian installs them.
pub fn freedict_dir() -> PathBuf {
    debian_data_dir("KENNING_FREEDICT_DIR", "freedict", "/usr/share/dictd")
}

/// A bilingual dictionary: each English headword (lower case) with its
/// first translation.
#[derive(Debug, Default)]
pub struct Dictionary {
    translations: HashMap<String, String>,
}

/// A number of a dictd index: base 64, most significant digit first.
fn base64_number(digits: &str) -> Option<usize> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    digits.bytes().try_fold(0usize, |n, d| {
        let value = ALPHABET.iter().position(|a| *a == d)?;
        n.checked_mul(64)?.checked_add(value)
    })
}

/// The first translation of a dictd entry: the line after the headword
/// (`Datenschutz <masc>`, `1. impôt, taxe`), its first item, without
/// grammatical notes in angle, square or round brackets.
fn first_translation(entry: &str) -> Option<String> {
    let line = entry.lines().nth(1)?.trim();
    let line = line
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches('.')
        .trim();
    let item = line.split([',', ';']).next()?;
    let mut out = String::new();
    let mut depth = 0usize;
    for c in item.chars() {
        match c {
            '<' | '[' | '(' | '{' => depth += 1,
            '>' | ']' | ')' | '}' => depth = depth.saturating_sub(1),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    (!out.is_empty()).then_some(out)
}

impl Dictionary {
    /// Reads `freedict-{name}.index` and `.dict.dz` in `dir`.
    pub fn load(dir: &Path, name: &str) -> anyhow::Result<Self> {
        let hint = || {
            format!(
                "reading FreeDict's {name} in {} (`make eval-experts` fetches it)",
                dir.display()
            )
        };
        let index = std::fs::read_to_string(dir.join(format!("freedict-{name}.index")))
            .with_context(hint)?;
        let packed =
            std::fs::read(dir.join(format!("freedict-{name}.dict.dz"))).with_context(hint)?;
        let mut data = Vec::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_end(&mut data)
            .with_context(hint)?;
        let mut translations = HashMap::new();
        for line in index.lines() {
            let mut fields = line.split('\t');
            let (Some(headword), Some(offset), Some(length)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let headword = headword.trim().to_lowercase();
            if headword.is_empty()
                || headword.starts_with("00-")
                || translations.contains_key(&headword)
            {
                continue;
            }
            let (Some(offset), Some(length)) = (base64_number(offset), base64_number(length))
            else {
                continue;
            };
            let Some(entry) = data.get(offset..offset.saturating_add(length)) else {
                continue;
            };
            if let Some(translation) = first_translation(&String::from_utf8_lossy(entry)) {
                translations.insert(headword, translation);
            }
        }
        anyhow::ensure!(!translations.is_empty(), "no entry in FreeDict's {name}");
        Ok(Self { translations })
    }

    /// The translation of an English phrase, when it is a headword and
    /// the translation is written differently.
    fn translate(&self, phrase: &str) -> Option<&str> {
        self.translations
            .get(phrase)
            .map(String::as_str)
            .filter(|t| t.to_lowercase() != phrase)
    }
}

/// The cross-language evaluation of `dataset` (English uploads), one form
/// per language of `dictionaries` (in the order of [`LANGUAGES`]).
pub fn evaluation(
    dataset: &Dataset,
    dictionaries: &[Dictionary],
    seed: u64,
) -> anyhow::Result<Evaluation> {
    let stemmer = Stemmer::create(Algorithm::English);
    let hands = deal(dataset, seed);
    anyhow::ensure!(hands.len() >= 2, "{} has too few documents", dataset.name);
    let texts = stemmed_texts(dataset, &hands, &stemmer);
    let right = |phrase: &str| -> Vec<usize> {
        let phrase = words(phrase, &stemmer);
        (0..texts.len())
            .filter(|&p| writes(&texts[p], &phrase))
            .collect()
    };
    let mut phrases: Vec<String> = hands
        .iter()
        .flatten()
        .flat_map(|&d| dataset.documents[d].gold.iter())
        .map(|g| g.trim().to_lowercase())
        .filter(|p| a_word_phrase(p))
        .collect();
    phrases.sort_unstable();
    phrases.dedup();
    let mut rng = SplitMix64::new(seed);
    let mut queries = Vec::new();
    for (form, dictionary) in dictionaries.iter().enumerate() {
        let mut found: Vec<(String, Vec<usize>)> = Vec::new();
        let mut asked: HashSet<String> = HashSet::new();
        for phrase in &phrases {
            let Some(translation) = dictionary.translate(phrase) else {
                continue;
            };
            let relevant = right(phrase);
            if !relevant.is_empty()
                && relevant.len() <= MAX_RIGHT
                && asked.insert(translation.to_lowercase())
            {
                found.push((translation.to_owned(), relevant));
            }
        }
        queries.extend(sampled(&mut rng, form, found));
    }
    let world = World {
        queries,
        ..uploaded(dataset, &hands)
    };
    Ok(Evaluation {
        name: format!("other language {}", dataset.name),
        forms: LANGUAGES[..dictionaries.len()]
            .iter()
            .map(|(language, _)| *language)
            .collect(),
        worlds: vec![world],
        note: format!(
            "the people's gold key phrases translated with FreeDict (headwords only, \
             translations written differently), at most {MAX_RIGHT} right people, at most \
             {MAX_QUESTIONS} per language"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictd_numbers_are_base_64() {
        assert_eq!(base64_number("A"), Some(0));
        assert_eq!(base64_number("B7"), Some(64 + 59));
        assert_eq!(base64_number("?"), None);
    }

    #[test]
    fn the_first_translation_leaves_out_grammar_and_examples() {
        let entry = "data protection /dˈeɪtə/\nDatenschutz <masc>\n   Synonyms: {privacy}\n";
        assert_eq!(first_translation(entry).as_deref(), Some("Datenschutz"));
        let entry = "machine learning /x/\nmaschinelles Lernen, algorithmisches Lernen\n";
        assert_eq!(
            first_translation(entry).as_deref(),
            Some("maschinelles Lernen")
        );
        let entry = "tax /tæks/\n1. imposer\n2. impôt, taxe\n";
        assert_eq!(first_translation(entry).as_deref(), Some("imposer"));
        let entry = "tax /x/\n [physical] Zugang <masc> [leichter] , Zufahrt\n";
        assert_eq!(first_translation(entry).as_deref(), Some("Zugang"));
        assert_eq!(first_translation("headword only\n"), None);
    }

    #[test]
    fn a_translation_written_alike_is_not_asked() {
        let dictionary = Dictionary {
            translations: HashMap::from([
                ("internet".to_owned(), "Internet".to_owned()),
                ("data protection".to_owned(), "Datenschutz".to_owned()),
            ]),
        };
        assert_eq!(dictionary.translate("internet"), None);
        assert_eq!(dictionary.translate("data protection"), Some("Datenschutz"));
        assert_eq!(dictionary.translate("unknown"), None);
    }
}
