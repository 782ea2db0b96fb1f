//! Topics: the key phrases Kenning learns from uploaded texts.

use std::fmt;

/// How an uploaded text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextFormat {
    /// Plain text, read as it is.
    #[default]
    Plain,
    /// HTML: only its visible text counts (no tags, scripts or styles).
    Html,
}

impl TextFormat {
    /// The format's public name: `plain` or `html`.
    pub fn as_str(&self) -> &'static str {
        match self {
            TextFormat::Plain => "plain",
            TextFormat::Html => "html",
        }
    }
}

impl fmt::Display for TextFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A key phrase found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    /// The folded form that identifies the topic: lower case, each word
    /// stemmed, words joined by single spaces ("neural network" and
    /// "Neural Networks" share the key `neural network`).
    pub key: String,
    /// A readable form, as the words most often appeared in the text.
    pub label: String,
    /// How central the topic is to the text, in (0, 1]; the best topic of a
    /// text scores highest.
    pub relevance: f64,
}

/// The most characters a word of a topic may have. A longer "word" is a
/// base64 block, a token or a run of letters without spaces, never a
/// subject anyone knows about; both storage backends index topic keys, and
/// this bound keeps every key far below their index row limits.
pub const MAX_WORD_CHARS: usize = 64;

/// The most words a topic has (a key phrase of one to three words).
pub const MAX_TOPIC_WORDS: usize = 3;

/// Whether `key` can be a topic key: one to [`MAX_TOPIC_WORDS`] words
/// joined by single spaces, none longer than [`MAX_WORD_CHARS`].
pub fn is_topic_key(key: &str) -> bool {
    let mut words = 0;
    for word in key.split(' ') {
        words += 1;
        if word.is_empty() || word.chars().count() > MAX_WORD_CHARS || words > MAX_TOPIC_WORDS {
            return false;
        }
    }
    true
}

/// A content word of a text (not a stop word, not a number) and how often
/// the text uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextWord {
    /// The folded form, as in a [`Topic`] key of one word: lower case,
    /// stemmed.
    pub key: String,
    /// A readable form: the one most often written, in lower case unless
    /// the word is mostly written as a name or an acronym.
    pub label: String,
    /// Its occurrences in the text.
    pub count: u32,
}
