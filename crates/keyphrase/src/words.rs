//! The content words of a text with their counts: the part of a text's
//! vocabulary that says what it is about, once per stem.

use foldhash::{HashMap, HashMapExt};
use kenning_domain::TextWord;

use crate::compounds::Compounds;
use crate::language::Rules;
use crate::terms::Terms;

/// The words that may start a key phrase (not stop words, not numbers, two
/// letters or more, not too long to be a topic), one per term, most
/// frequent first; on equal counts the better YAKE score first, then the
/// key. The label is the form most often written, in lower case unless
/// the term is mostly written as a name or an acronym.
pub fn content_words(terms: &Terms<'_>) -> Vec<TextWord> {
    let mut counts: HashMap<u32, u32> = HashMap::with_capacity(terms.terms.len());
    let mut forms: HashMap<(u32, &str), u32> = HashMap::with_capacity(terms.terms.len());
    for ((word, id), role) in terms.words.iter().zip(&terms.ids).zip(&terms.roles) {
        if !role.starts {
            continue;
        }
        *counts.entry(*id).or_default() += 1;
        *forms.entry((*id, word.surface)).or_default() += 1;
    }
    let mut labels: HashMap<u32, (&str, u32)> = HashMap::with_capacity(counts.len());
    for ((id, form), n) in forms {
        let best = labels.entry(id).or_insert((form, n));
        if n > best.1 || (n == best.1 && form < best.0) {
            *best = (form, n);
        }
    }
    let mut words: Vec<(u32, u32)> = counts.into_iter().collect();
    words.sort_unstable_by(|a, b| {
        b.1.cmp(&a.1)
            .then(terms.get(a.0).score.total_cmp(&terms.get(b.0).score))
            .then_with(|| terms.stems[a.0 as usize].cmp(&terms.stems[b.0 as usize]))
    });
    words
        .into_iter()
        .map(|(id, count)| {
            let form = labels.get(&id).map_or("", |(form, _)| form);
            let label = if terms.get(id).is_name() {
                form.to_owned()
            } else {
                form.to_lowercase()
            };
            TextWord {
                key: terms.stems[id as usize].clone(),
                label,
                count,
            }
        })
        .collect()
}

/// `words` with the parts of each German compound among them
/// ([`Compounds::parts`]) as content words too, each stemmed as its
/// language's words are and counted as often as the compounds it is part
/// of (added to its own count when the text also writes it), most
/// frequent first again; among equal counts the text's own words keep
/// their order, before the parts. A part's label is in lower case, so it
/// is shown as a topic only where the text also writes it as a name.
pub fn with_parts(words: &mut Vec<TextWord>, compounds: &Compounds, rules: &Rules) {
    let mut index: HashMap<String, usize> = words
        .iter()
        .enumerate()
        .map(|(at, w)| (w.key.clone(), at))
        .collect();
    let mut added: Vec<(usize, u32)> = Vec::new();
    for at in 0..words.len() {
        for part in compounds.parts(&words[at].label, rules) {
            let key = rules.stem(&part);
            if key == words[at].key {
                continue;
            }
            let count = words[at].count;
            let slot = *index.entry(key.clone()).or_insert_with(|| {
                words.push(TextWord {
                    key,
                    label: part,
                    count: 0,
                });
                words.len() - 1
            });
            added.push((slot, count));
        }
    }
    for (slot, count) in added {
        words[slot].count = words[slot].count.saturating_add(count);
    }
    words.sort_by_key(|w| std::cmp::Reverse(w.count));
}
