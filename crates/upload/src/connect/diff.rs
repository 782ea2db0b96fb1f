//! What a new version of a text added to the old one: its lines compared
//! first (a longest common subsequence, Myers' O(ND) algorithm), then,
//! where lines changed, their words, so that a line whose typo was fixed
//! adds one word, not the whole line.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// The most edits the exact comparison looks for; texts further apart
/// (a page rewritten) are compared greedily, which costs no more than
/// their length. Its memory is about `MAX_EDITS²` positions.
const MAX_EDITS: usize = 1_000;

/// What a new version added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Added {
    /// The added text: each new line whole, and of each changed line
    /// either the line (when most of its words are new) or its new
    /// runs of words; one a line.
    pub text: String,
    /// How many words are new.
    pub words: usize,
}

/// What `new` (lines) added to `old` (lines).
pub fn added(old: &[&str], new: &[&str]) -> Added {
    let mut added = Added::default();
    let mut lines = Vec::new();
    let (mut i, mut j) = (0, 0);
    let end = (old.len(), new.len());
    for (at_old, at_new) in common(old, new).into_iter().chain(std::iter::once(end)) {
        changed(
            &old[i..at_old],
            &new[j..at_new],
            &mut lines,
            &mut added.words,
        );
        (i, j) = (at_old + 1, at_new + 1);
    }
    added.text = lines.join("\n");
    added
}

/// Where `removed` lines became `inserted` ones: the new words, and the
/// lines or runs of words that carry them.
fn changed(removed: &[&str], inserted: &[&str], lines: &mut Vec<String>, words: &mut usize) {
    if inserted.is_empty() {
        return;
    }
    let old_words: Vec<&str> = removed.iter().flat_map(|l| l.split_whitespace()).collect();
    let new_words: Vec<(usize, &str)> = inserted
        .iter()
        .enumerate()
        .flat_map(|(n, l)| l.split_whitespace().map(move |w| (n, w)))
        .collect();
    let plain: Vec<&str> = new_words.iter().map(|(_, w)| *w).collect();
    let mut kept = vec![false; plain.len()];
    if !old_words.is_empty() {
        for (_, j) in common(&old_words, &plain) {
            kept[j] = true;
        }
    }
    let mut at = 0;
    for (n, line) in inserted.iter().enumerate() {
        let start = at;
        while at < new_words.len() && new_words[at].0 == n {
            at += 1;
        }
        let fresh = kept[start..at].iter().filter(|k| !**k).count();
        *words += fresh;
        if fresh == 0 {
            continue;
        }
        if fresh * 2 >= at - start {
            lines.push(line.trim().to_owned());
            continue;
        }
        let mut run: Vec<&str> = Vec::new();
        for k in start..at {
            if kept[k] {
                if !run.is_empty() {
                    lines.push(run.join(" "));
                    run.clear();
                }
            } else {
                run.push(plain[k]);
            }
        }
        if !run.is_empty() {
            lines.push(run.join(" "));
        }
    }
}

/// Pairs `(i, j)` of equal elements `old[i] == new[j]`, both increasing:
/// a longest common subsequence, or when the two are more than
/// [`MAX_EDITS`] apart, a long one found greedily.
pub fn common<T: Eq + Hash>(old: &[T], new: &[T]) -> Vec<(usize, usize)> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let a = &old[prefix..old.len() - suffix];
    let b = &new[prefix..new.len() - suffix];
    let mut pairs: Vec<(usize, usize)> = (0..prefix).map(|i| (i, i)).collect();
    if !a.is_empty() && !b.is_empty() {
        let middle = myers(a, b).unwrap_or_else(|| greedy(a, b));
        pairs.extend(middle.into_iter().map(|(i, j)| (i + prefix, j + prefix)));
    }
    pairs.extend((0..suffix).map(|k| (old.len() - suffix + k, new.len() - suffix + k)));
    pairs
}

/// Myers' greedy longest common subsequence, `None` past [`MAX_EDITS`].
fn myers<T: Eq>(a: &[T], b: &[T]) -> Option<Vec<(usize, usize)>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let limit = a.len().saturating_add(b.len()).min(MAX_EDITS) as isize;
    let offset = limit + 1;
    // v[k + offset]: the furthest x reached on diagonal k = x - y.
    let mut v = vec![0isize; (2 * limit + 3) as usize];
    // trace[d]: v on diagonals -d..=d before step d.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        trace.push(v[(offset - d) as usize..=(offset + d) as usize].to_vec());
        let mut k = -d;
        while k <= d {
            let at = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[at - 1] < v[at + 1]) {
                v[at + 1]
            } else {
                v[at - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at] = x;
            if x >= n && y >= m {
                return Some(backtrack(&trace, x, y));
            }
            k += 2;
        }
    }
    None
}

/// The matches on the way back from `(x, y)` through `trace`.
fn backtrack(trace: &[Vec<isize>], mut x: isize, mut y: isize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let (prev_x, prev_y) = if d == 0 {
            (0, 0)
        } else {
            let k = x - y;
            let at = |k: isize| v[(k + d) as usize];
            let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
                k + 1
            } else {
                k - 1
            };
            (at(prev_k), at(prev_k) - prev_k)
        };
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            pairs.push((x as usize, y as usize));
        }
        (x, y) = (prev_x, prev_y);
    }
    pairs.reverse();
    pairs
}

/// A common subsequence found in one pass: each element of `b` matched
/// with the first equal element of `a` after the last match.
fn greedy<T: Eq + Hash>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let mut places: HashMap<&T, VecDeque<usize>> = HashMap::new();
    for (i, t) in a.iter().enumerate() {
        places.entry(t).or_default().push_back(i);
    }
    let mut pairs = Vec::new();
    let mut next = 0;
    for (j, t) in b.iter().enumerate() {
        let Some(queue) = places.get_mut(t) else {
            continue;
        };
        while queue.front().is_some_and(|&i| i < next) {
            queue.pop_front();
        }
        if let Some(i) = queue.pop_front() {
            pairs.push((i, j));
            next = i + 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcs_length(a: &[char], b: &[char]) -> usize {
        let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                table[i + 1][j + 1] = if a[i] == b[j] {
                    table[i][j] + 1
                } else {
                    table[i][j + 1].max(table[i + 1][j])
                };
            }
        }
        table[a.len()][b.len()]
    }

    #[test]
    fn the_common_subsequence_is_a_longest_one_of_equal_elements_in_order() {
        for (a, b) in [
            ("abcabba", "cbabac"),
            ("", "abc"),
            ("abc", ""),
            ("abc", "abc"),
            ("xabcx", "yabcy"),
            ("kitten", "sitting"),
            ("aaaa", "aa"),
        ] {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let pairs = common(&a, &b);
            assert_eq!(pairs.len(), lcs_length(&a, &b), "{a:?} {b:?}");
            assert!(pairs.iter().all(|&(i, j)| a[i] == b[j]));
            assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        }
    }

    #[test]
    fn texts_far_apart_are_compared_greedily() {
        let a: Vec<u32> = (0..3_000).collect();
        let b: Vec<u32> = (0..3_000).rev().collect();
        let pairs = common(&a, &b);
        assert!(!pairs.is_empty());
        assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    }

    #[test]
    fn a_new_section_is_added_whole_and_a_typo_fix_is_one_word() {
        let old = [
            "Coffee beans keep best in an airtight jar away from light.",
            "Grind them just before brewing.",
        ];
        let fixed = [
            "Coffee beans keep best in an airtight jar away from light.",
            "Grind them just before brewing the coffee.",
        ];
        let typo = added(
            &old,
            &[
                "Coffee beans keep best in an airtight jar away form light.",
                old[1],
            ],
        );
        assert_eq!(typo.words, 1);
        assert_eq!(typo.text, "form");
        let longer = added(&old, &fixed);
        // `brewing.` became `brewing`: three new words, in one run.
        assert_eq!(
            (longer.words, longer.text.as_str()),
            (3, "brewing the coffee.")
        );
        let section = added(
            &fixed,
            &[
                fixed[0],
                fixed[1],
                "Roasting",
                "A light roast keeps the acidity of the origin.",
            ],
        );
        assert_eq!(section.words, 10);
        assert_eq!(
            section.text,
            "Roasting\nA light roast keeps the acidity of the origin."
        );
        assert_eq!(added(&old, &old), Added::default());
        assert_eq!(added(&old, &[old[0]]), Added::default());
    }
}
