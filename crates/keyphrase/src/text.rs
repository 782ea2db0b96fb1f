//! Plain text cut into sentences, phrase chunks and words.

/// A word as written, with where it stands.
#[derive(Debug, Clone, Copy)]
pub struct Word<'a> {
    pub surface: &'a str,
    pub sentence: usize,
    /// The first word of its sentence (its capital says nothing).
    pub opens_sentence: bool,
}

/// The words of a text in runs that a key phrase may span: punctuation
/// other than a hyphen or apostrophe inside a word ends a run, and so
/// does the end of a sentence.
#[derive(Debug, Default)]
pub struct Chunks<'a> {
    pub runs: Vec<Vec<Word<'a>>>,
    pub sentences: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn joins_word(c: char) -> bool {
    matches!(c, '-' | '\'' | '’' | '_' | '.' | '&' | '+' | '#')
}

/// Whether a line break ends a sentence, given the last visible character
/// before it, whether a blank line follows, and the next visible character:
/// a blank line always does; a single break does when the next line starts
/// with a capital or a digit and the previous one does not continue (title
/// lines, list items, HTML blocks).
fn breaks_sentence(before: Option<char>, blank: bool, after: Option<char>) -> bool {
    if blank {
        return true;
    }
    let continues = before.is_none_or(|c| matches!(c, ',' | ';' | ':' | '-' | '(' | '/' | '&'));
    let capital = after.is_some_and(|c| c.is_uppercase() || c.is_numeric());
    capital && !continues
}

fn end_sentence<'a>(
    run: &mut Vec<Word<'a>>,
    out: &mut Chunks<'a>,
    sentence: &mut usize,
    has_words: &mut bool,
) {
    if !run.is_empty() {
        out.runs.push(std::mem::take(run));
    }
    if *has_words {
        *sentence += 1;
        *has_words = false;
    }
}

/// Whether `text` begins with a link or an address: a URL with its
/// scheme (`https://`, `git://`, `ssh://`, `mailto:`), one starting
/// `www.`, or an e-mail address (`ada@example.com`).
fn is_url(text: &str) -> bool {
    let token = text
        .split(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '(' | ')' | '"' | ','))
        .next()
        .unwrap_or_default();
    let scheme = token.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
    });
    let address = token
        .split_once('@')
        .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'));
    // Compared in place: this runs at every word's start.
    let starts = |prefix: &str| {
        token
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
    };
    scheme || address || starts("www.") || starts("mailto:")
}

/// Where the word that starts at `bytes[i]` ends in `text` (a byte
/// offset), and the index of the character after it: letters and digits,
/// joined by inner hyphens, apostrophes, dots, underscores, `&`, `+` and
/// `#` ("state-of-the-art", "don't", "e.g", "AT&T"), with trailing `+`
/// and `#` ("C++", "C#").
fn word_end(text: &str, bytes: &[(usize, char)], i: usize) -> (usize, usize) {
    let mut j = i + 1;
    while j < bytes.len() {
        let (_, d) = bytes[j];
        if is_word_char(d) {
            j += 1;
        } else if joins_word(d) && j + 1 < bytes.len() && is_word_char(bytes[j + 1].1) {
            j += 2;
        } else {
            break;
        }
    }
    let mut end = bytes.get(j).map_or(text.len(), |(at, _)| *at);
    let mut k = j;
    while k < bytes.len() && matches!(bytes[k].1, '+' | '#') {
        end = bytes.get(k + 1).map_or(text.len(), |(at, _)| *at);
        k += 1;
    }
    (end, k.max(j))
}

/// Where the link that starts at `bytes[i]` ends: at the next white space.
fn past_link(bytes: &[(usize, char)], mut i: usize) -> usize {
    while i < bytes.len() && !bytes[i].1.is_whitespace() {
        i += 1;
    }
    i
}

/// Cuts `text` into runs of words.
pub fn chunks(text: &str) -> Chunks<'_> {
    let mut out = Chunks::default();
    let mut run: Vec<Word<'_>> = Vec::new();
    let mut sentence = 0;
    let mut sentence_has_words = false;
    let bytes = text.char_indices().collect::<Vec<_>>();
    let mut last_visible = None;
    let mut i = 0;
    while i < bytes.len() {
        let (start, c) = bytes[i];
        if is_word_char(c) && is_url(&text[start..]) {
            // A link is where something is, not what it says, and an
            // address whom to write to: its host and path are no words,
            // and it ends the phrase it stands in.
            i = past_link(&bytes, i);
            if !run.is_empty() {
                out.runs.push(std::mem::take(&mut run));
            }
            continue;
        }
        if is_word_char(c) {
            let (end, next) = word_end(text, &bytes, i);
            let surface = &text[start..end];
            last_visible = surface.chars().next_back();
            run.push(Word {
                surface,
                sentence,
                opens_sentence: !sentence_has_words,
            });
            sentence_has_words = true;
            i = next;
            continue;
        }
        match c {
            '.' | '!' | '?' | '…' => {
                last_visible = Some(c);
                let next = bytes.get(i + 1).map(|(_, d)| *d);
                if next
                    .is_none_or(|d| d.is_whitespace() || matches!(d, '"' | '\'' | ')' | '”' | '»'))
                {
                    end_sentence(&mut run, &mut out, &mut sentence, &mut sentence_has_words);
                } else if !run.is_empty() {
                    out.runs.push(std::mem::take(&mut run));
                }
            }
            '\n' => {
                // The whole run of white space at once: read again at every
                // break, a long one would cost quadratic time.
                let mut j = i + 1;
                let mut blank = false;
                while j < bytes.len() && bytes[j].1.is_whitespace() {
                    blank |= bytes[j].1 == '\n';
                    j += 1;
                }
                let next = bytes.get(j).map(|(_, d)| *d);
                if breaks_sentence(last_visible, blank, next) {
                    end_sentence(&mut run, &mut out, &mut sentence, &mut sentence_has_words);
                }
                i = j;
                continue;
            }
            c if c.is_whitespace() => {}
            _ => {
                last_visible = Some(c);
                if !run.is_empty() {
                    out.runs.push(std::mem::take(&mut run));
                }
            }
        }
        i += 1;
    }
    end_sentence(&mut run, &mut out, &mut sentence, &mut sentence_has_words);
    out.sentences = sentence;
    out
}

#[cfg(test)]
mod tests {
    use super::chunks;

    fn runs(text: &str) -> Vec<Vec<&str>> {
        chunks(text)
            .runs
            .iter()
            .map(|r| r.iter().map(|w| w.surface).collect())
            .collect()
    }

    #[test]
    fn punctuation_ends_runs_and_sentences() {
        let c = chunks("Deep learning, in short, works. It scales!");
        assert_eq!(c.sentences, 2);
        assert_eq!(
            runs("Deep learning, in short, works. It scales!"),
            vec![
                vec!["Deep", "learning"],
                vec!["in", "short"],
                vec!["works"],
                vec!["It", "scales"]
            ]
        );
        assert!(c.runs[0][0].opens_sentence && !c.runs[1][0].opens_sentence);
        assert_eq!(c.runs[3][0].sentence, 1);
    }

    #[test]
    fn words_keep_inner_joiners() {
        assert_eq!(
            runs("state-of-the-art C++ and C# don't use 3.5 GHz (e.g. here)"),
            vec![
                vec![
                    "state-of-the-art",
                    "C++",
                    "and",
                    "C#",
                    "don't",
                    "use",
                    "3.5",
                    "GHz"
                ],
                vec!["e.g"],
                vec!["here"],
            ]
        );
    }

    #[test]
    fn a_title_line_is_its_own_sentence() {
        let c = chunks("Neural ranking models\r\nWe study ranking.\nIt is done,\nand continues");
        assert_eq!(c.sentences, 3);
        let last: Vec<&str> = c.runs.last().unwrap().iter().map(|w| w.surface).collect();
        assert_eq!(last, ["and", "continues"]);
        assert_eq!(c.runs.last().unwrap()[0].sentence, 2);
    }

    #[test]
    fn empty_and_symbol_only_texts_have_no_runs() {
        assert!(chunks("").runs.is_empty());
        assert!(chunks("  ... !!! 🙂🙂 ").runs.is_empty());
    }
}
