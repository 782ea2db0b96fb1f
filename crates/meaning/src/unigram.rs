//! A SentencePiece unigram tokenizer, as XLM-RoBERTa's models read text:
//! each character normalised through the model's own map, runs of spaces
//! made one, a word-start marker before the text and for every space, and
//! the split into pieces of the highest total score (Viterbi), a character
//! no piece holds becoming the unknown token.

use std::collections::HashMap;

use crate::directory::unspellable;

/// The marker SentencePiece writes for a space and before the first word.
const WORD_START: char = '\u{2581}';

/// The pieces of a vocabulary with their scores, the special tokens and
/// the normalisation map.
#[derive(Debug, Clone)]
pub(crate) struct Unigram {
    ids: HashMap<String, u32>,
    pieces: Vec<String>,
    scores: Vec<f32>,
    normal: HashMap<char, String>,
    unknown: u32,
    unknown_score: f32,
    longest: usize,
    /// The token a text starts with.
    pub(crate) first: u32,
    /// The token a text ends with.
    pub(crate) last: u32,
}

impl Unigram {
    /// The tokenizer of `pieces` (with their `scores`, in id order), the
    /// `unknown` token's id, the `first` and `last` tokens' and `normal`,
    /// the replacement of each character the model normalises (empty to
    /// drop it).
    pub(crate) fn new(
        pieces: Vec<String>,
        scores: Vec<f32>,
        normal: HashMap<char, String>,
        [first, last, unknown]: [u32; 3],
    ) -> Self {
        let lowest = scores.iter().copied().fold(f32::INFINITY, f32::min);
        let ids = pieces
            .iter()
            .enumerate()
            .filter(|(id, piece)| !piece.is_empty() && *id as u32 != unknown)
            .map(|(id, piece)| (piece.clone(), id as u32))
            .collect();
        Self {
            longest: pieces.iter().map(|p| p.chars().count()).max().unwrap_or(1),
            ids,
            pieces,
            scores,
            normal,
            unknown,
            // SentencePiece's: ten below the least likely piece.
            unknown_score: if lowest.is_finite() {
                lowest - 10.0
            } else {
                -10.0
            },
            first,
            last,
        }
    }

    /// The pieces of `text`, without the first and last tokens; none for
    /// a text that normalises to spaces or nothing. Spaces at either end
    /// are dropped, as SentencePiece drops them.
    pub(crate) fn encode(&self, text: &str) -> Vec<u32> {
        let mut normalised = String::with_capacity(text.len() + 3);
        for c in text.chars() {
            match self.normal.get(&c) {
                Some(replacement) => normalised.push_str(replacement),
                None => normalised.push(c),
            }
        }
        let normalised = normalised.trim_matches(' ');
        if normalised.is_empty() {
            return Vec::new();
        }
        let mut chars: Vec<char> = Vec::with_capacity(normalised.len() + 1);
        chars.push(WORD_START);
        let mut after_space = false;
        for c in normalised.chars() {
            if c == ' ' && after_space {
                continue;
            }
            after_space = c == ' ';
            chars.push(if after_space { WORD_START } else { c });
        }
        self.best_split(&chars)
    }

    /// The split of `chars` into pieces of the highest total score.
    fn best_split(&self, chars: &[char]) -> Vec<u32> {
        let n = chars.len();
        // For each end: the best score, the piece ending there and where it starts.
        let mut best = vec![(f32::NEG_INFINITY, self.unknown, 0usize); n + 1];
        best[0].0 = 0.0;
        let mut piece = String::new();
        for start in 0..n {
            let reached = best[start].0;
            if reached == f32::NEG_INFINITY {
                continue;
            }
            piece.clear();
            for end in start + 1..=n.min(start + self.longest) {
                piece.push(chars[end - 1]);
                if let Some(&id) = self.ids.get(piece.as_str()) {
                    let score = reached + self.scores[id as usize];
                    if score > best[end].0 {
                        best[end] = (score, id, start);
                    }
                }
            }
            let score = reached + self.unknown_score;
            if score > best[start + 1].0 {
                best[start + 1] = (score, self.unknown, start);
            }
        }
        let mut ids = Vec::new();
        let mut end = n;
        while end > 0 {
            let (_, id, start) = best[end];
            ids.push(id);
            end = start;
        }
        ids.reverse();
        ids
    }

    /// How many pieces spell `word` (after the lone word-start piece, if
    /// the split begins with it); one the vocabulary lacks a character of
    /// counts as its length and one more.
    pub(crate) fn pieces(&self, word: &str) -> usize {
        let mut start = [0; 4];
        let lone_start = self.ids.get(&*WORD_START.encode_utf8(&mut start)).copied();
        let pieces = self.encode(word);
        let pieces = match pieces.split_first() {
            Some((first, rest)) if Some(*first) == lone_start => rest,
            _ => &pieces[..],
        };
        if pieces.contains(&self.unknown) {
            unspellable(word)
        } else {
            pieces.len()
        }
    }

    /// The fewest [`pieces`](Self::pieces) of `word` as typed, in lower
    /// case and capitalised: the pieces are cased, and a query's word may
    /// be written in lower case ("datenschutz") where texts begin it with
    /// a capital.
    pub(crate) fn cased_pieces(&self, word: &str) -> usize {
        let mut chars = word.chars();
        let capitalised: String = chars
            .next()
            .into_iter()
            .flat_map(char::to_uppercase)
            .chain(chars)
            .collect();
        [word, &word.to_lowercase(), &capitalised]
            .iter()
            .map(|w| self.pieces(w))
            .min()
            .unwrap_or(0)
    }

    /// How many pieces the vocabulary holds: every id is below it.
    pub(crate) fn size(&self) -> usize {
        self.pieces.len()
    }

    /// The vocabulary's pieces that begin a word, with the word and id.
    pub(crate) fn words(&self) -> impl Iterator<Item = (String, u32)> + '_ {
        self.pieces.iter().enumerate().filter_map(|(id, piece)| {
            piece
                .strip_prefix(WORD_START)
                .map(|word| (word.to_owned(), id as u32))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer() -> Unigram {
        let pieces = [
            "<s>", "</s>", "<unk>", "▁", "▁data", "▁date", "schutz", "▁dat", "a", "s",
        ];
        let scores = [0.0, 0.0, 0.0, -3.0, -5.0, -5.0, -6.0, -4.0, -4.0, -4.0];
        let normal = HashMap::from([('\u{2003}', " ".to_owned()), ('\u{1}', String::new())]);
        Unigram::new(
            pieces.iter().map(|p| (*p).to_owned()).collect(),
            scores.to_vec(),
            normal,
            [0, 1, 2],
        )
    }

    #[test]
    fn a_text_splits_into_its_most_likely_pieces() {
        let t = tokenizer();
        // "▁data" (-5) beats "▁dat" + "a" (-8).
        assert_eq!(t.encode("data"), vec![4]);
        assert_eq!(t.encode("dataschutz"), vec![4, 6]);
    }

    #[test]
    fn spaces_mark_words_and_collapse() {
        let t = tokenizer();
        assert_eq!(t.encode("data  date"), vec![4, 5]);
        assert_eq!(t.encode("data\u{2003}date\u{1}"), vec![4, 5]);
    }

    #[test]
    fn spaces_at_the_ends_add_no_piece_and_spaces_alone_none() {
        let t = tokenizer();
        assert_eq!(t.encode("  data date \u{2003}"), vec![4, 5]);
        assert_eq!(t.encode(" \u{1}\u{2003}"), Vec::<u32>::new());
        assert_eq!(t.encode(""), Vec::<u32>::new());
    }

    #[test]
    fn a_character_no_piece_holds_is_unknown() {
        let t = tokenizer();
        assert_eq!(t.encode("data?"), vec![4, 2]);
    }

    #[test]
    fn the_words_are_the_pieces_that_begin_one() {
        let words: Vec<String> = tokenizer().words().map(|(w, _)| w).collect();
        assert_eq!(words, ["", "data", "date", "dat"]);
    }
}
