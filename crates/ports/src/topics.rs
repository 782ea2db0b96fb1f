//! The topic extraction port.

use kenning_domain::{TextFormat, TextWord, Topic};

/// What an extractor found in one text.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// The ISO 639-1 code of the language the text was read as.
    pub language: String,
    /// At most the requested number of topics, best first, each key once.
    pub topics: Vec<Topic>,
    /// The text's content words with their counts, most frequent first,
    /// each key once.
    pub words: Vec<TextWord>,
}

/// A query read as a question: the words that ask for a person
/// ("who can help with", "wer kennt sich mit ... aus") apart from the
/// subject asked about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Question {
    /// The words read as the question, as written, in the query's order.
    pub asking: Vec<String>,
    /// The rest of the query: what it asks about. The whole query when no
    /// question is read in it.
    pub subject: String,
    /// The language (ISO 639-1) the question's words were read in, when
    /// any were read: the query's language when its subject is too short
    /// to tell ("Wer kennt sich mit Datenschutz aus?").
    pub language: Option<String>,
}

/// Finds the key phrases (1 to 3 words) and the content words of a text.
///
/// Implementations are pure computations: no IO, deterministic for the same
/// input, safe to call from many threads at once. Every key they report
/// passes [`kenning_domain::is_topic_key`].
pub trait TopicExtractor: Send + Sync {
    /// The topics of `text` (at most `limit`) and its content words, read
    /// as `format`. `language` (ISO 639-1) overrides detection;
    /// unsupported or undetectable languages fall back to English rules.
    fn extract(
        &self,
        text: &str,
        format: TextFormat,
        language: Option<&str>,
        limit: usize,
    ) -> Extraction;

    /// The language (ISO 639-1) of `texts` read together, as one writing:
    /// an upload's title is often too short to tell a language by ("fix
    /// heap buffer overflow in read_pixmap" reads as Dutch alone), its
    /// body beside it rarely is. None unless an implementation can tell;
    /// then each text is read on its own.
    fn language_of(&self, texts: &[(&str, TextFormat)]) -> Option<String> {
        let _ = texts;
        None
    }

    /// `query` read as a question: the words that ask for a person (never
    /// topics) and the subject asked about. Reads no question unless an
    /// implementation knows how.
    fn question(&self, query: &str) -> Question {
        Question {
            asking: Vec::new(),
            subject: query.to_owned(),
            language: None,
        }
    }

    /// Whether a topic's label reads as a subject a person knows about: a
    /// key phrase or a noun or name, never a verb, adverb, function word
    /// or number, nor a fragment that starts or ends with one. What people
    /// read (a user's topics, related topics, an expert's topics) shows
    /// only these; ranking uses every topic. Every label is readable
    /// unless an implementation knows better.
    fn readable(&self, label: &str) -> bool {
        let _ = label;
        true
    }

    /// Whether [`readable`](Self::readable) can tell the content words of
    /// a text in `language` (ISO 639-1) apart: a noun from a verb. Where
    /// it cannot, people read only a text's key phrases of two or more
    /// words and the words it writes as names. True unless an
    /// implementation knows better.
    fn judges_words(&self, language: &str) -> bool {
        let _ = language;
        true
    }
}
