//! What every system of one evaluation sees alike: the people, what each
//! uploaded, and the questions asked afterwards with their right answers.

use chrono::{DateTime, Utc};
use kenning_domain::{Descriptor, MAX_QUERY_CHARS};
use kenning_tools_common::html_to_text;

/// One text of an upload, as a connector would send it.
#[derive(Debug, Clone)]
pub struct Text {
    pub descriptor: Descriptor,
    pub html: bool,
    pub body: String,
}

impl Text {
    pub fn plain(descriptor: Descriptor, body: impl Into<String>) -> Self {
        Self {
            descriptor,
            html: false,
            body: body.into(),
        }
    }

    pub fn html(descriptor: Descriptor, body: impl Into<String>) -> Self {
        Self {
            descriptor,
            html: true,
            body: body.into(),
        }
    }

    /// What a reader sees: HTML turned to text, plain text as it is.
    pub fn visible(&self) -> String {
        if self.html {
            html_to_text(&self.body)
        } else {
            self.body.clone()
        }
    }
}

/// One action of a person on an entity.
#[derive(Debug, Clone)]
pub struct Upload {
    /// Index into [`World::people`].
    pub person: usize,
    pub date: DateTime<Utc>,
    pub entity_type: &'static str,
    pub action_type: &'static str,
    pub texts: Vec<Text>,
}

impl Upload {
    /// Every text's visible text, one after the other.
    pub fn visible(&self) -> String {
        self.texts
            .iter()
            .map(Text::visible)
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// A question and who answers it right.
#[derive(Debug, Clone)]
pub struct Query {
    /// Index into [`Evaluation::forms`].
    pub form: usize,
    /// Plain text.
    pub text: String,
    /// The right people, each once; never empty.
    pub relevant: Vec<usize>,
    /// For a query asked as a question: the question's template and the
    /// query it wraps.
    pub asked: Option<Asked>,
}

/// `text` as every door of Kenning takes a query: its first
/// [`MAX_QUERY_CHARS`] characters, cut at the last space before the limit
/// when there is one (a Stack Exchange question's title and body is often
/// longer).
pub fn within_the_query_limit(text: &str) -> &str {
    let text = text.trim();
    match text.char_indices().nth(MAX_QUERY_CHARS) {
        None => text,
        Some((end, _)) => {
            let cut = &text[..end];
            cut.rfind(char::is_whitespace)
                .map_or(cut, |space| &cut[..space])
                .trim_end()
        }
    }
}

/// How a query was wrapped in a question.
#[derive(Debug, Clone)]
pub struct Asked {
    /// The template, `{}` standing for the bare query.
    pub template: &'static str,
    /// The bare query.
    pub bare: String,
}

/// One organisation: its people, their uploads, the questions put to it.
#[derive(Debug, Clone)]
pub struct World {
    /// A name per person, for failure reports.
    pub people: Vec<String>,
    pub uploads: Vec<Upload>,
    pub queries: Vec<Query>,
    /// When the questions are asked: at or after the last upload.
    pub now: DateTime<Utc>,
}

impl World {
    /// The world with every query [`within_the_query_limit`], as every
    /// system is asked it.
    pub fn within_the_query_limit(mut self) -> Self {
        for query in &mut self.queries {
            query.text = within_the_query_limit(&query.text).to_owned();
        }
        self
    }
}

/// One evaluation: the worlds whose queries are pooled into its rows.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub name: String,
    /// The query forms, one row each.
    pub forms: Vec<&'static str>,
    pub worlds: Vec<World>,
    /// What the count line adds about how the worlds were made.
    pub note: String,
}

impl Evaluation {
    /// The evaluation with every world's queries
    /// [`within_the_query_limit`].
    pub fn within_the_query_limit(mut self) -> Self {
        self.worlds = self
            .worlds
            .into_iter()
            .map(World::within_the_query_limit)
            .collect();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_query_is_cut_at_a_space_within_the_limit() {
        assert_eq!(
            within_the_query_limit("  short question "),
            "short question"
        );
        let long = "wörd ".repeat(MAX_QUERY_CHARS);
        let cut = within_the_query_limit(&long);
        assert!(cut.chars().count() <= MAX_QUERY_CHARS);
        assert!(cut.ends_with("wörd") && cut.chars().count() > MAX_QUERY_CHARS - 5);
        let one_word = "x".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(within_the_query_limit(&one_word).len(), MAX_QUERY_CHARS);
    }
}
