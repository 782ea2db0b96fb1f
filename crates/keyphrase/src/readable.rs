//! Which topic labels read as subjects: the display rule behind
//! [`TopicExtractor::readable`](kenning_ports::TopicExtractor::readable).
//!
//! A label is tagged word by word with english-pos-tagger (a Brill-style
//! tagger over a lexicon of English words with WordNet's morphology); a
//! word written with a capital (a name, an acronym, a German noun) counts
//! as a noun whatever the lexicon says. A label reads as a subject when:
//!
//! - no word is a number, in digits or in words (`forty`, `seventy-two`,
//!   `twenty-fifth`, as text2num reads English numbers);
//! - it ends on a noun (a name, a word the lexicon does not know, or, in a
//!   phrase of two or more words, a gerund: `machine learning`,
//!   `sourdough baking`);
//! - a phrase starts on a noun, an adjective or a participle, never on a
//!   verb, an adverb or a function word, and has no finite verb inside
//!   (`canteen serves rye`).
//!
//! So `running`, `paid`, `previous` and `Kubernetes deployment keeps` are
//! kept for ranking but not shown, while `Helm`, `payments`, `VAT`,
//! `bulk fermentation` and `Helm charts` are.

use std::collections::HashMap;
use std::sync::{LazyLock, PoisonError, RwLock};

use english_pos_tagger::Tagger;

static TAGGER: LazyLock<Tagger> = LazyLock::new(Tagger::new);

/// The languages whose words the rule can judge: those of the lexicon.
/// In others only key phrases of two or more words and names are shown.
pub const JUDGED_LANGUAGES: [&str; 1] = ["en"];

/// What a word can be, as far as the rule cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A noun, a name or a word the lexicon does not know.
    Noun,
    /// A gerund (`baking`).
    Gerund,
    /// An adjective or a participle (`digital`, `deployed`).
    Modifier,
    /// A finite verb (`keeps`, `paid`, `serve`).
    Verb,
    /// An adverb, a function word, a number or anything else.
    Other,
}

fn kind(word: &str, tag: Option<&str>) -> Kind {
    if word.chars().any(char::is_uppercase) {
        return Kind::Noun;
    }
    match tag.unwrap_or("NN") {
        "NN" | "NNS" | "NNP" | "NNPS" | "FW" => Kind::Noun,
        "VBG" => Kind::Gerund,
        "JJ" | "JJR" | "JJS" | "VBN" => Kind::Modifier,
        "VB" | "VBD" | "VBP" | "VBZ" | "MD" => Kind::Verb,
        _ => Kind::Other,
    }
}

/// Whether `word` is a number: in digits (`15th` too, and sizes such as
/// `1920x1080` or `4x`, which begin with a digit; not `x86`, a name), or
/// a cardinal in words; an ordinal in words only `alone` (`twenty-fifth`,
/// but `first aid` is a subject).
fn is_number(word: &str, alone: bool) -> bool {
    let digits = word.chars().any(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| !c.is_alphabetic() || (c == 'x' && !word.starts_with('x')));
    let lower = word.to_lowercase();
    let ordinal = ["st", "nd", "rd", "th"].iter().any(|suffix| {
        lower
            .strip_suffix(suffix)
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    });
    digits
        || ordinal
        || text2num::text2digits(&lower, &*NUMBERS)
            .is_ok_and(|read| alone || read.chars().all(|c| c.is_ascii_digit()))
}

/// English numbers written in words.
static NUMBERS: LazyLock<text2num::lang::English> = LazyLock::new(text2num::lang::English::new);

/// How many labels [`readable`] remembers before it starts afresh: the
/// words and phrases of a deployment repeat, so most labels are judged
/// once (what tagging one costs: docs/performance.md, "Measured choices
/// in the code").
const REMEMBERED: usize = 200_000;

static JUDGED: LazyLock<RwLock<HashMap<String, bool>>> = LazyLock::new(Default::default);

/// Whether `label` reads as a subject a person knows about, remembered.
pub fn readable(label: &str) -> bool {
    // A poisoned lock only means another thread panicked mid-insert; the
    // map is still a valid cache.
    if let Some(known) = JUDGED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(label)
    {
        return *known;
    }
    let verdict = judge(label);
    let mut judged = JUDGED.write().unwrap_or_else(PoisonError::into_inner);
    if judged.len() >= REMEMBERED {
        judged.clear();
    }
    judged.insert(label.to_owned(), verdict);
    verdict
}

/// [`readable`], judged anew.
fn judge(label: &str) -> bool {
    let words: Vec<&str> = label.split_whitespace().collect();
    if words.is_empty() || words.iter().any(|w| is_number(w, words.len() == 1)) {
        return false;
    }
    let tagged = TAGGER.tag_raw_tokens(&words);
    let mut kinds: Vec<Kind> = words
        .iter()
        .enumerate()
        .map(|(i, w)| kind(w, tagged.get(i).and_then(|t| t.pos.as_deref())))
        .collect();
    // A phrase's first word written with a capital alone may be a
    // subject line's or a sentence's first word, not a name: "Add damage
    // tracking", "Allow swaynag", "Apparently wayland". Read in lower case,
    // a verb or an adverb starts no subject.
    if let (Some(first), true) = (words.first(), words.len() > 1) {
        let rest: String = first.chars().skip(1).collect();
        if first.starts_with(char::is_uppercase) && !rest.chars().any(char::is_uppercase) {
            let lower: Vec<String> = std::iter::once(first.to_lowercase())
                .chain(words[1..].iter().map(|w| (*w).to_owned()))
                .collect();
            let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
            let retagged = TAGGER.tag_raw_tokens(&lower);
            let tag = retagged.first().and_then(|t| t.pos.as_deref());
            if matches!(kind(lower[0], tag), Kind::Verb | Kind::Other) {
                kinds[0] = Kind::Other;
            }
        }
    }
    let (Some(first), Some(last)) = (kinds.first(), kinds.last()) else {
        return false;
    };
    if kinds.len() == 1 {
        return *first == Kind::Noun;
    }
    let ends_on_noun = matches!(last, Kind::Noun | Kind::Gerund);
    let starts_well = matches!(first, Kind::Noun | Kind::Modifier | Kind::Gerund);
    let inside = &kinds[1..kinds.len() - 1];
    ends_on_noun && starts_well && !inside.iter().any(|k| *k == Kind::Verb || *k == Kind::Other)
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn nouns_names_and_phrases_read_as_subjects() {
        for label in [
            "Helm",
            "Kubernetes",
            "VAT",
            "payments",
            "Helm charts",
            "bulk fermentation",
            "sourdough baking",
            "machine learning",
            "neural network",
            "Kubernetes deployment",
            "digital elevation model",
            "Klimawandel",
            "Bernoulli numbers",
            "number theory",
            "first aid",
        ] {
            assert!(readable(label), "{label}");
        }
    }

    #[test]
    fn verbs_adverbs_numbers_and_fragments_do_not() {
        for label in [
            "running",
            "paid",
            "fails",
            "previous",
            "quickly",
            "the",
            "2024",
            "forty",
            "seventy-two",
            "twenty-fifth",
            "15th",
            "2nd",
            "forty days",
            "Kubernetes deployment keeps",
            "canteen serves rye",
            "keeps running",
            "Add damage tracking",
            "Allow swaynag",
            "Apparently wayland",
            "",
        ] {
            assert!(!readable(label), "{label}");
        }
    }
}
