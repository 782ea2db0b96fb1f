//! The trigrams of a text: the three-character pieces that the trigram
//! index of either backend looks a search text up by, and that the
//! estimates of how common each is count.

/// The fewest characters the trigram index can look up.
pub(crate) const TRIGRAM: usize = 3;

/// The trigrams of `needle`, each once, in order.
pub(crate) fn trigrams(needle: &str) -> Vec<String> {
    trigrams_at(needle).into_iter().map(|(_, t)| t).collect()
}

/// The trigrams of `needle`, each once, in order, with the place (in
/// characters) where each first starts.
pub(crate) fn trigrams_at(needle: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = needle.chars().collect();
    let mut seen: Vec<(usize, String)> = Vec::new();
    for (at, window) in chars.windows(TRIGRAM).enumerate() {
        let trigram: String = window.iter().collect();
        if !seen.iter().any(|(_, t)| *t == trigram) {
            seen.push((at, trigram));
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::trigrams;

    #[test]
    fn a_text_has_each_trigram_once() {
        assert_eq!(trigrams("ab"), Vec::<String>::new());
        assert_eq!(trigrams("zoë"), vec!["zoë"]);
        assert_eq!(trigrams("aaaa"), vec!["aaa"]);
        assert_eq!(trigrams("abcab"), vec!["abc", "bca", "cab"]);
    }
}
