//! Plain text for the baselines and the queries.

/// White space runs as one space, trimmed.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The fewest words a first sentence has; shorter ones ("Introduction.") run on
/// into the next.
const MIN_SENTENCE_WORDS: usize = 5;

/// The first sentence of `text`, on one line: up to the first `.`, `!` or
/// `?` that is followed by white space and then a capital letter or the
/// end, once the sentence has [`MIN_SENTENCE_WORDS`] words; the whole text
/// when no such end exists. A digit does not start a sentence, so that
/// "(Fig. 9)" does not end one.
pub fn first_sentence(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        let ends = word.ends_with(['.', '!', '?']);
        let next_starts = words
            .get(i + 1)
            .and_then(|w| w.chars().next())
            .is_none_or(char::is_uppercase);
        if ends && next_starts && i + 1 >= MIN_SENTENCE_WORDS {
            return words[..=i].join(" ");
        }
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sentence_ends_at_a_real_sentence_end() {
        let text = "The flow rate rises (Fig. 2) and falls. Then it stops.\r\nMore text.";
        assert_eq!(
            first_sentence(text),
            "The flow rate rises (Fig. 2) and falls."
        );
        assert_eq!(
            first_sentence("Short. The model, e.g. this one, fits well. Next one."),
            "Short. The model, e.g. this one, fits well."
        );
        assert_eq!(first_sentence("no end here"), "no end here");
    }
}
