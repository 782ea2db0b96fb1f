//! The words of a question's subject that became no topic: stop words,
//! numbers, a letter alone. A reading shows them, so that a word Kenning
//! dropped is seen dropped rather than silently missing.

/// The words of `subject` that none of `labels` (the labels of the topics
/// the subject was read as) holds as a word, in their order, each once,
/// as written. A word is a run of letters and digits, with the marks
/// names of tools keep inside them (`node.js`, `c++`, `c#`, `ci/cd`).
pub fn dropped_words<'a>(subject: &str, labels: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let read: Vec<String> = labels
        .into_iter()
        .flat_map(words)
        .map(|w| w.to_lowercase())
        .collect();
    let mut dropped: Vec<String> = Vec::new();
    for word in words(subject) {
        let lower = word.to_lowercase();
        if !read.contains(&lower) && !dropped.iter().any(|d| d.to_lowercase() == lower) {
            dropped.push(word.to_owned());
        }
    }
    dropped
}

/// The words of `text`: runs of letters, digits and the marks a name
/// keeps inside it, less the marks at either end.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        !(c.is_alphanumeric() || matches!(c, '+' | '#' | '.' | '-' | '_' | '/' | '\''))
    })
    .map(|w| w.trim_matches(|c: char| matches!(c, '.' | '-' | '_' | '/' | '\'')))
    .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_no_topic_holds_are_dropped_each_once_as_written() {
        assert_eq!(
            dropped_words(
                "the R language and the C++ compiler",
                ["language", "C++", "compiler"]
            ),
            ["the", "R", "and"]
        );
        assert_eq!(
            dropped_words(
                "Kubernetes clusters in 2019?",
                ["Kubernetes clusters", "kubernetes"]
            ),
            ["in", "2019"]
        );
        assert!(dropped_words("node.js", ["node.js"]).is_empty());
        assert!(dropped_words("", ["x"]).is_empty());
    }
}
