//! The languages the extractor reads: detection, stop words, stemming.

use std::collections::HashMap;

use foldhash::HashSet;

use rust_stemmers::{Algorithm, Stemmer};
use whatlang::{Detector, Lang};

use crate::asking::ASKING_WORDS;
use crate::function_words::EXTRA_STOP_WORDS;

/// What the extractor needs to read one language.
pub struct Rules {
    pub code: &'static str,
    stemmer: Stemmer,
    stop_words: HashSet<String>,
    asking_words: HashSet<String>,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("code", &self.code)
            .field("stop_words", &self.stop_words.len())
            .finish()
    }
}

impl Rules {
    fn new(code: &'static str, algorithm: Algorithm) -> Self {
        let mut stop_words: HashSet<String> = stop_words::get(code)
            .into_iter()
            .map(|w| w.trim().to_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        stop_words.extend(EXTRA_STOP_WORDS.of(code).iter().map(|w| (*w).to_owned()));
        Self {
            code,
            stemmer: Stemmer::create(algorithm),
            stop_words,
            asking_words: ASKING_WORDS
                .of(code)
                .iter()
                .map(|w| (*w).to_owned())
                .collect(),
        }
    }

    /// Whether a lower-case word is a stop word.
    pub fn is_stop_word(&self, lower: &str) -> bool {
        self.stop_words.contains(lower)
    }

    /// Whether a lower-case word asks for a person in a question.
    pub fn is_asking_word(&self, lower: &str) -> bool {
        self.asking_words.contains(lower)
    }

    /// Whether a word (as written, and in lower case) can end a key
    /// phrase, which in the languages below ends on a noun. In English a
    /// word ending in "-ed" (not "-eed": "speed") is a verb or participle
    /// there ("method proposed", "theory devoted"); in German nouns are
    /// written with a capital, so a lower-case word there is a verb or an
    /// adjective ("Klimawandel lässt"). Romance languages put adjectives and
    /// participles after the noun and get no rule.
    pub fn can_end_phrase(&self, surface: &str, lower: &str) -> bool {
        match self.code {
            "en" => {
                !(lower.ends_with("ed") && !lower.ends_with("eed") && lower.chars().count() > 4)
            }
            "de" => surface.chars().next().is_some_and(char::is_uppercase),
            _ => true,
        }
    }

    /// The Snowball stem of a lower-case word.
    pub fn stem(&self, lower: &str) -> String {
        self.stemmer.stem(lower).into_owned()
    }
}

/// The supported languages: ISO 639-1 code, whatlang's language, Snowball
/// algorithm. Each has both a stop word list and a stemmer.
const SUPPORTED: [(&str, Lang, Algorithm); 14] = [
    ("en", Lang::Eng, Algorithm::English),
    ("de", Lang::Deu, Algorithm::German),
    ("fr", Lang::Fra, Algorithm::French),
    ("es", Lang::Spa, Algorithm::Spanish),
    ("it", Lang::Ita, Algorithm::Italian),
    ("pt", Lang::Por, Algorithm::Portuguese),
    ("nl", Lang::Nld, Algorithm::Dutch),
    ("da", Lang::Dan, Algorithm::Danish),
    ("sv", Lang::Swe, Algorithm::Swedish),
    ("fi", Lang::Fin, Algorithm::Finnish),
    ("hu", Lang::Hun, Algorithm::Hungarian),
    ("ro", Lang::Ron, Algorithm::Romanian),
    ("ru", Lang::Rus, Algorithm::Russian),
    ("tr", Lang::Tur, Algorithm::Turkish),
];

/// Every supported language, loaded once.
pub struct Languages {
    rules: HashMap<&'static str, Rules>,
    by_lang: HashMap<Lang, &'static str>,
    detector: Detector,
}

impl std::fmt::Debug for Languages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Languages")
            .field("rules", &self.rules.len())
            .finish()
    }
}

impl Default for Languages {
    fn default() -> Self {
        Self::new()
    }
}

impl Languages {
    pub fn new() -> Self {
        Self {
            rules: SUPPORTED
                .iter()
                .map(|(code, _, algorithm)| (*code, Rules::new(code, *algorithm)))
                .collect(),
            by_lang: SUPPORTED
                .iter()
                .map(|(code, lang, _)| (*lang, *code))
                .collect(),
            detector: Detector::with_allowlist(SUPPORTED.iter().map(|(_, l, _)| *l).collect()),
        }
    }

    /// The codes of the supported languages.
    pub fn codes() -> impl Iterator<Item = &'static str> {
        SUPPORTED.iter().map(|(code, _, _)| *code)
    }

    /// The rules of every supported language, English first.
    pub fn all(&self) -> impl Iterator<Item = &Rules> {
        SUPPORTED.iter().map(|(code, _, _)| &self.rules[code])
    }

    pub fn english(&self) -> &Rules {
        // Built in `new` from SUPPORTED, whose first entry is English.
        &self.rules[&"en"]
    }

    /// The rules for `hint` when it is supported, else for the detected
    /// language, else English.
    pub fn pick(&self, text: &str, hint: Option<&str>) -> &Rules {
        if let Some(rules) = hint.and_then(|h| self.rules.get(h.to_ascii_lowercase().as_str())) {
            return rules;
        }
        self.detect(text)
            .and_then(|code| self.rules.get(code))
            .unwrap_or_else(|| self.english())
    }

    /// The language of `text`, from its function words first.
    ///
    /// Character statistics alone (whatlang) misread jargon-heavy text:
    /// "Kubernetes clusters schedule containers across nodes" looks French
    /// to them. Function words are a far surer sign, so the language whose
    /// stop words the text uses most wins; whatlang only breaks a near tie
    /// between languages that share many of them (Danish and Swedish) when
    /// it is sure (on a title of one shared word, "fix heap buffer
    /// overflow in read_pixmap", it guesses Dutch; English, first, is read
    /// then), or decides alone, when it is sure, for a text without
    /// function words.
    fn detect(&self, text: &str) -> Option<&'static str> {
        let sample: String = text.chars().take(2000).collect();
        let lower = sample.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let mut evidence: Vec<(&'static str, usize)> = SUPPORTED
            .iter()
            .map(|(code, _, _)| {
                let rules = &self.rules[code];
                let hits = words.iter().filter(|w| rules.is_stop_word(w)).count();
                (*code, hits)
            })
            .collect();
        let best = evidence.iter().map(|(_, hits)| *hits).max().unwrap_or(0);
        if best == 0 {
            if words.len() < 4 {
                return None;
            }
            return self
                .detector
                .detect(&sample)
                .filter(whatlang::Info::is_reliable)
                .and_then(|info| self.by_lang.get(&info.lang()).copied());
        }
        // Near ties: within a fifth of the best.
        evidence.retain(|(_, hits)| *hits * 5 >= best * 4);
        if evidence.len() > 1 {
            let allowed: Vec<Lang> = SUPPORTED
                .iter()
                .filter(|(code, _, _)| evidence.iter().any(|(c, _)| c == code))
                .map(|(_, lang, _)| *lang)
                .collect();
            let tie_breaker = Detector::with_allowlist(allowed);
            if let Some(code) = tie_breaker
                .detect(&sample)
                .filter(whatlang::Info::is_reliable)
                .and_then(|info| self.by_lang.get(&info.lang()).copied())
            {
                return Some(code);
            }
        }
        // SUPPORTED order (English first) settles what is left.
        evidence
            .iter()
            .find(|(_, hits)| *hits == best)
            .map(|(code, _)| *code)
    }
}
