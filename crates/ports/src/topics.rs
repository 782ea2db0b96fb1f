//! The topic extraction port.

use kenning_domain::{TextFormat, Topic};

/// What an extractor found in one text.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// The ISO 639-1 code of the language the text was read as.
    pub language: String,
    /// At most the requested number of topics, best first, each key once.
    pub topics: Vec<Topic>,
}

/// Finds the key phrases (1 to 3 words) of a text.
///
/// Implementations are pure computations: no IO, deterministic for the same
/// input, safe to call from many threads at once.
pub trait TopicExtractor: Send + Sync {
    /// The topics of `text`, read as `format`. `language` (ISO 639-1)
    /// overrides detection; unsupported or undetectable languages fall back
    /// to English rules.
    fn extract(
        &self,
        text: &str,
        format: TextFormat,
        language: Option<&str>,
        limit: usize,
    ) -> Extraction;
}
