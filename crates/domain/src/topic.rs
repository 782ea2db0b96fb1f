//! Topics: the key phrases Kenning learns from uploaded texts.

use std::fmt;

/// How an uploaded text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextFormat {
    #[default]
    Plain,
    /// HTML: only its visible text counts (no tags, scripts or styles).
    Html,
}

impl TextFormat {
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
