//! Plain text for the baselines and the queries.

/// The text of an HTML fragment: every tag becomes a space (so that
/// `</p><p>` does not glue two words), then entities are decoded. Enough
/// for the Stack Exchange bodies, which hold no scripts or styles.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match (in_tag, c) {
            (false, '<') => in_tag = true,
            (true, '>') => {
                in_tag = false;
                out.push(' ');
            }
            (false, c) => out.push(c),
            (true, _) => {}
        }
    }
    html_escape::decode_html_entities(&out).into_owned()
}

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
    fn html_becomes_its_text() {
        assert_eq!(
            one_line(&html_to_text(
                "<p>Beans &amp; <b>grinders</b></p><p>R&eacute;sum&eacute; &lt;tag&gt;</p>"
            )),
            "Beans & grinders Résumé <tag>"
        );
    }

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
