//! Word lists kept as data, one list a language.

/// Lists of words, each under the ISO 639-1 code of its language.
#[derive(Debug)]
pub struct WordLists(pub &'static [(&'static str, &'static [&'static str])]);

impl WordLists {
    /// The words listed for the language `code`; none for a language left
    /// out.
    pub fn of(&self, code: &str) -> &'static [&'static str] {
        self.0
            .iter()
            .find(|(language, _)| *language == code)
            .map_or(&[], |(_, words)| words)
    }
}
