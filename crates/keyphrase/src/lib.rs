//! Kenning's topic extraction: a YAKE-class statistical key-phrase
//! extractor behind the [`TopicExtractor`] port.
//!
//! A text is read as plain text or as HTML (only its visible text counts),
//! its language is detected (or given), and key phrases of one to three
//! words are scored from statistics of the text alone: no training, no
//! corpus. Each phrase gets a key (lower case, each word Snowball-stemmed)
//! under which inflected and differently cased variants meet, and a
//! readable label (the form most often written).

mod asking;
mod centrality;
mod compounds;
mod function_words;
mod html;
mod language;
mod phrases;
mod question;
mod readable;
mod select;
mod terms;
mod text;
mod word_lists;
mod words;

use std::sync::Arc;

pub use compounds::{Compounds, CompoundsError, DATA_FILE as COMPOUNDS_FILE, MIN_PART_CHARS};
use kenning_domain::{TextFormat, Topic};
use kenning_ports::{Extraction, Question, TopicExtractor};
use language::Languages;

/// The longest text read, in bytes; the rest of a longer text is ignored so
/// that one upload cannot hold a worker for long.
pub const MAX_TEXT_BYTES: usize = 512 * 1024;

/// The extractor. Build it once: it loads the stop words and stemmers of
/// every supported language.
#[derive(Debug, Default)]
pub struct KeyphraseExtractor {
    languages: Languages,
    /// What German compounds are split with; without it they are read
    /// whole.
    compounds: Option<Arc<Compounds>>,
}

impl KeyphraseExtractor {
    pub fn new() -> Self {
        Self::default()
    }

    /// The extractor that also reads the German compounds of a text in
    /// their parts with `compounds`: a text read as German gets the parts
    /// of its compounds among its content words
    /// ([`Extraction::words`]), its topics unchanged.
    pub fn with_compounds(compounds: Arc<Compounds>) -> Self {
        Self {
            compounds: Some(compounds),
            ..Self::default()
        }
    }

    /// The ISO 639-1 codes of the languages read with their own rules.
    pub fn languages() -> impl Iterator<Item = &'static str> {
        Languages::codes()
    }
}

/// The most bytes of each text a language is told from
/// ([`TopicExtractor::language_of`]): the detector reads the first 2,000
/// characters of what it is given.
const LANGUAGE_SAMPLE_BYTES: usize = 8 * 1024;

fn truncated(text: &str) -> &str {
    truncated_to(text, MAX_TEXT_BYTES)
}

/// The first `max` bytes of `text`, cut at a character's boundary.
fn truncated_to(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl TopicExtractor for KeyphraseExtractor {
    fn extract(
        &self,
        text: &str,
        format: TextFormat,
        language: Option<&str>,
        limit: usize,
    ) -> Extraction {
        let visible;
        let text = match format {
            TextFormat::Plain => truncated(text),
            TextFormat::Html => {
                visible = html::visible_text(truncated(text));
                visible.as_str()
            }
        };
        let rules = self.languages.pick(text, language);
        let chunks = text::chunks(text);
        let terms = terms::Terms::of(&chunks, rules);
        let phrases = phrases::key_phrases(&terms, limit);
        let mut words = words::content_words(&terms);
        if let (Some(compounds), "de") = (&self.compounds, rules.code) {
            words::with_parts(&mut words, compounds, rules);
        }
        let best = phrases.first().map_or(1.0, |p| p.score);
        Extraction {
            language: rules.code.to_owned(),
            topics: phrases
                .into_iter()
                .map(|p| Topic {
                    key: p.key,
                    label: p.label,
                    relevance: (best / p.score).clamp(f64::MIN_POSITIVE, 1.0),
                })
                .collect(),
            words,
        }
    }

    /// The language the texts' function words tell, read together (the
    /// first part of each, in order), else English.
    fn language_of(&self, texts: &[(&str, TextFormat)]) -> Option<String> {
        let mut sample = String::new();
        for (text, format) in texts {
            if sample.len() >= LANGUAGE_SAMPLE_BYTES {
                break;
            }
            let part = truncated_to(text, LANGUAGE_SAMPLE_BYTES);
            match format {
                TextFormat::Plain => sample.push_str(part),
                TextFormat::Html => sample.push_str(&html::visible_text(part)),
            }
            sample.push('\n');
        }
        Some(self.languages.pick(&sample, None).code.to_owned())
    }

    /// Read in the language that has the most of its own asking and
    /// function words among those opening the query as a question (a
    /// question is too short for the detector: "Wer kennt sich mit
    /// Datenschutz aus" holds one German stop word), then whose words the
    /// whole query uses most, the detected one first among equals; and in
    /// English.
    fn question(&self, query: &str) -> Question {
        let detected = self.languages.pick(query, None);
        let english = self.languages.english();
        let lower = query.to_lowercase().replace('’', "'");
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
            .filter(|w| !w.is_empty())
            .collect();
        // The words opening a question tell its language first: "Qui
        // est notre expert en data mining" frames an English subject in
        // French, and so does "Quelqu'un peut m'aider avec what do I
        // need to start cold-brewing?", whose English subject holds more
        // English words than its frame holds French ones. Only then the
        // whole query's words count, asking words first.
        let vote = |rules: &language::Rules| {
            let opening = question::opening_own_words(query, rules, english);
            let asking = words.iter().filter(|w| rules.is_asking_word(w)).count();
            let function = words.iter().filter(|w| rules.is_stop_word(w)).count();
            (opening, asking, function)
        };
        let mut own = detected;
        let mut own_vote = vote(detected);
        for rules in self.languages.all() {
            let candidate = vote(rules);
            if candidate > own_vote {
                (own, own_vote) = (rules, candidate);
            }
        }
        let (asking, subject) = question::read(query, &[own, english]);
        // The frame's language is the one its words were read in.
        let language = (!asking.is_empty()).then(|| own.code.to_owned());
        Question {
            asking,
            subject,
            language,
        }
    }

    fn readable(&self, label: &str) -> bool {
        readable::readable(label)
    }

    fn judges_words(&self, language: &str) -> bool {
        readable::JUDGED_LANGUAGES.contains(&language)
    }
}

#[cfg(test)]
mod tests;
