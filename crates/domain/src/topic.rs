//! Topics: the key phrases Kenning learns from uploaded texts.

use std::fmt;

use crate::FieldViolation;

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

/// The most characters a query may have, on every door (the web's box,
/// GraphQL `experts` and `queryReading`): a question, not a document to
/// match people against.
pub const MAX_QUERY_CHARS: usize = 500;

/// `raw`, a query, trimmed; refused as the field `query` when it is blank
/// or longer than [`MAX_QUERY_CHARS`] characters.
pub fn query_text(raw: &str) -> Result<&str, FieldViolation> {
    let query = raw.trim();
    if query.is_empty() {
        return Err(FieldViolation::new("query", crate::Rule::Required));
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(FieldViolation::new(
            "query",
            crate::Rule::TooLong {
                limit: MAX_QUERY_CHARS,
            },
        ));
    }
    Ok(query)
}

/// A topic as a person or a script names it: a topic key, a label, or a
/// short text read as one (a topic to hide or show, a topic whose related
/// topics are asked for). Trimmed, not blank, with no control character
/// but tab and line break, and at most [`TopicText::MAX_CHARS`]
/// characters: as long as the longest key or label ([`MAX_TOPIC_WORDS`]
/// words of [`MAX_WORD_CHARS`] characters with a space between), so that
/// every topic can be named and what is kept of a text that reads as no
/// topic stays a topic's size.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TopicText(String);

impl TopicText {
    /// The field's public name.
    pub const FIELD: &'static str = "topic";
    /// The most characters a topic's text may have.
    pub const MAX_CHARS: usize = MAX_TOPIC_WORDS * (MAX_WORD_CHARS + 1) - 1;

    /// `raw` trimmed; refused when it is blank, holds a control character
    /// other than tab and line break, or is longer than
    /// [`TopicText::MAX_CHARS`] characters.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        crate::validation::bounded(Self::FIELD, raw, Self::MAX_CHARS, true).map(Self)
    }

    /// The text, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The most topics one person may hide from their profile: far more than
/// a profile lists (it shows at most [`crate::UserTopicsLimit::MAX`]), and few
/// enough that what a person hides stays a short list to read back and a
/// bounded number of rows and audit entries.
pub const MAX_HIDDEN_TOPICS: usize = 200;

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

/// Whether the topic `key` holds the subject `subject` (both topic keys):
/// the subject's words appear in it, whole and in order ("divorc" is held
/// by "divorc proceed" and "handl divorc proceed", not by "divorcee").
/// Hiding a subject hides every topic of the person that holds it.
pub fn holds_subject(key: &str, subject: &str) -> bool {
    let words: Vec<&str> = key.split(' ').collect();
    let subject: Vec<&str> = subject.split(' ').collect();
    !subject.is_empty()
        && subject.len() <= words.len()
        && words
            .windows(subject.len())
            .any(|window| window == subject.as_slice())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_holds_a_subject_by_its_whole_words_in_order() {
        assert!(holds_subject("divorc", "divorc"));
        assert!(holds_subject("handl divorc proceed", "divorc"));
        assert!(holds_subject("handl divorc proceed", "divorc proceed"));
        assert!(!holds_subject("divorce", "divorc"));
        assert!(!holds_subject("proceed divorc", "divorc proceed"));
        assert!(!holds_subject("custodi hear", "divorc"));
    }
    use crate::Rule;

    #[test]
    fn a_topic_text_is_as_long_as_the_longest_topic_at_most() {
        let longest = vec!["w".repeat(MAX_WORD_CHARS); MAX_TOPIC_WORDS].join(" ");
        assert_eq!(longest.chars().count(), TopicText::MAX_CHARS);
        assert_eq!(TopicText::parse(&longest).unwrap().as_str(), longest);
        assert_eq!(TopicText::parse("  Helm \n").unwrap().as_str(), "Helm");
        let refused = |raw: &str| TopicText::parse(raw).unwrap_err();
        let long = refused(&format!("{longest}x"));
        assert_eq!(long.field, "topic");
        assert_eq!(
            long.rule,
            Rule::TooLong {
                limit: TopicText::MAX_CHARS
            }
        );
        assert_eq!(refused("  ").rule, Rule::Required);
        assert_eq!(refused("a\u{0}b").rule, Rule::ControlCharacter);
    }

    #[test]
    fn a_query_is_a_question_of_at_most_five_hundred_characters() {
        let longest = "é".repeat(MAX_QUERY_CHARS);
        assert_eq!(query_text(&format!(" {longest}\n")).unwrap(), longest);
        let long = query_text(&format!("{longest}é")).unwrap_err();
        assert_eq!(long.field, "query");
        assert_eq!(
            long.rule,
            Rule::TooLong {
                limit: MAX_QUERY_CHARS
            }
        );
        assert_eq!(query_text(" \t").unwrap_err().rule, Rule::Required);
    }
}
