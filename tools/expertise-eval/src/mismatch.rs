//! Evaluation 4: vocabulary mismatch. Synthetic people each upload
//! [`DOCUMENTS_PER_PERSON`](crate::profiles::DOCUMENTS_PER_PERSON)
//! documents of a keyphrase dataset; each question names a subject of a
//! few people's documents (a gold key phrase of theirs, or a word they write
//! often) in words that no
//! upload uses at all:
//!
//! - **synonym**: another lemma of the phrase's most frequent WordNet noun
//!   sense ("automobile" for "car");
//! - **hypernym**: a lemma of a sense it is a kind or an instance of
//!   ("vehicle" for "car");
//! - **abbreviation**: the short form of a phrase, from a list written
//!   here ("SVM" for "support vector machine").
//!
//! The right people are those whose documents write the phrase (at most
//! [`MAX_RIGHT`], so that the question is specific). A question some
//! upload shares a word with (folded and stemmed) is not asked: BM25 and
//! Kenning without meaning can then only answer by chance.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use kenning_keyphrase_eval::Dataset;
use rust_stemmers::{Algorithm, Stemmer};

use crate::profiles::{deal, uploaded};
use crate::rng::SplitMix64;
use crate::world::{Evaluation, Query, World};

/// The most people a question may have as right answers.
pub const MAX_RIGHT: usize = 3;
/// How often a person writes a word for it to be one of their subjects.
const OFTEN: usize = 3;
/// The fewest letters of a gold phrase asked about in other words.
const MIN_LETTERS: usize = 4;
/// The most questions of one form per dataset.
pub const MAX_QUESTIONS: usize = 150;

/// The forms of a question, one row each.
pub const FORMS: [&str; 3] = ["synonym", "hypernym", "abbreviation"];

/// Abbreviations and what they stand for, as people write them.
const ABBREVIATIONS: [(&str, &str); 48] = [
    ("AI", "artificial intelligence"),
    ("ANN", "artificial neural network"),
    ("API", "application programming interface"),
    ("ASR", "speech recognition"),
    ("BER", "bit error rate"),
    ("CAD", "computer aided design"),
    ("CFD", "computational fluid dynamics"),
    ("CNN", "convolutional neural network"),
    ("CPU", "processor"),
    ("DB", "database"),
    ("DBMS", "database management system"),
    ("DFT", "discrete fourier transform"),
    ("DNA", "deoxyribonucleic acid"),
    ("DSP", "digital signal processing"),
    ("ERP", "enterprise resource planning"),
    ("FEM", "finite element method"),
    ("FFT", "fast fourier transform"),
    ("FPGA", "field programmable gate array"),
    ("GA", "genetic algorithm"),
    ("GIS", "geographic information system"),
    ("GPS", "global positioning system"),
    ("GPU", "graphics processing unit"),
    ("GUI", "graphical user interface"),
    ("HCI", "human computer interaction"),
    ("HMM", "hidden markov model"),
    ("IoT", "internet of things"),
    ("IR", "information retrieval"),
    ("k8s", "kubernetes"),
    ("LAN", "local area network"),
    ("LP", "linear programming"),
    ("ML", "machine learning"),
    ("MPC", "model predictive control"),
    ("MRI", "magnetic resonance imaging"),
    ("NLP", "natural language processing"),
    ("NN", "neural network"),
    ("ODE", "ordinary differential equation"),
    ("OOP", "object oriented programming"),
    ("OS", "operating system"),
    ("PCA", "principal component analysis"),
    ("PDE", "partial differential equation"),
    ("PID", "proportional integral derivative"),
    ("QoS", "quality of service"),
    ("RL", "reinforcement learning"),
    ("SNR", "signal to noise ratio"),
    ("SQL", "structured query language"),
    ("SVM", "support vector machine"),
    ("VM", "virtual machine"),
    ("WSN", "wireless sensor network"),
];

/// Where the files of a Debian data package are: the environment
/// variable `variable` when set, else `installed` unpacked under the
/// Makefile's `target/{unpacked}`, else `installed` itself (where Debian
/// installs it).
pub fn debian_data_dir(variable: &str, unpacked: &str, installed: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(variable) {
        return PathBuf::from(dir);
    }
    let inside = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target")
        .join(unpacked)
        .join(installed.trim_start_matches('/'));
    if inside.is_dir() {
        inside
    } else {
        PathBuf::from(installed)
    }
}

/// Where WordNet's database files are: `KENNING_WORDNET_DIR`, else where
/// the Makefile unpacks Debian's `wordnet-base`, else where Debian installs
/// it.
pub fn wordnet_dir() -> PathBuf {
    debian_data_dir("KENNING_WORDNET_DIR", "wordnet", "/usr/share/wordnet")
}

/// WordNet's nouns: each lemma's most frequent sense, and each sense's
/// lemmas and the senses it is a kind or an instance of.
#[derive(Debug, Default)]
pub struct WordNet {
    first_sense: HashMap<String, u64>,
    /// The lemmas tagged in WordNet's sense-tagged corpus: words people
    /// write, rather than only name.
    used: HashSet<String>,
    senses: HashMap<u64, (Vec<String>, Vec<u64>)>,
}

impl WordNet {
    /// Reads `index.noun` and `data.noun` in `dir`.
    pub fn load(dir: &Path) -> anyhow::Result<Self> {
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name)).with_context(|| {
                format!(
                    "reading WordNet's {name} in {} (`make eval-experts` fetches it)",
                    dir.display()
                )
            })
        };
        let mut wordnet = Self::default();
        for line in read("index.noun")?.lines().filter(|l| !l.starts_with(' ')) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
            let Some(pointers) = fields.get(3).and_then(|n| n.parse::<usize>().ok()) else {
                continue;
            };
            if let Some(offset) = fields.get(6 + pointers).and_then(|o| o.parse().ok()) {
                wordnet.first_sense.insert(fields[0].to_owned(), offset);
            }
            let tagged = fields.get(5 + pointers).and_then(|n| n.parse::<u32>().ok());
            if tagged.is_some_and(|n| n > 0) {
                wordnet.used.insert(fields[0].to_owned());
            }
        }
        for line in read("data.noun")?.lines().filter(|l| !l.starts_with(' ')) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // offset lex_filenum ss_type w_cnt (word lex_id)* p_cnt (ptr offset pos st)*
            let (Some(offset), Some(words)) = (
                fields.first().and_then(|o| o.parse::<u64>().ok()),
                fields
                    .get(3)
                    .and_then(|n| usize::from_str_radix(n, 16).ok()),
            ) else {
                continue;
            };
            let lemmas: Vec<String> = (0..words)
                .filter_map(|w| fields.get(4 + 2 * w))
                .map(|w| w.to_lowercase())
                .collect();
            let at = 4 + 2 * words;
            let pointers: usize = fields.get(at).and_then(|n| n.parse().ok()).unwrap_or(0);
            let kinds: Vec<u64> = (0..pointers)
                .filter_map(|p| {
                    let symbol = fields.get(at + 1 + 4 * p)?;
                    let target = fields.get(at + 2 + 4 * p)?.parse().ok()?;
                    matches!(*symbol, "@" | "@i").then_some(target)
                })
                .collect();
            wordnet.senses.insert(offset, (lemmas, kinds));
        }
        anyhow::ensure!(
            !wordnet.senses.is_empty(),
            "no noun sense in {}",
            dir.display()
        );
        Ok(wordnet)
    }

    /// The single-word nouns people use (those of the sense-tagged
    /// corpus), letters only, at least [`MIN_LETTERS`] of them, sorted.
    pub fn used_words(&self) -> Vec<&str> {
        let mut words: Vec<&str> = self
            .used
            .iter()
            .map(String::as_str)
            .filter(|w| w.len() >= MIN_LETTERS && w.chars().all(|c| c.is_ascii_lowercase()))
            .collect();
        words.sort_unstable();
        words
    }

    /// The other lemmas of `phrase`'s most frequent noun sense, and the
    /// lemmas of the senses that sense is a kind or an instance of; each
    /// as people write it (words apart), and only lemmas people use (that
    /// the sense-tagged corpus has) and use mostly in that sense (it is
    /// their most frequent), so that "coach" is not asked for "bus".
    fn synonyms_and_hypernyms(&self, phrase: &str) -> (Vec<String>, Vec<String>) {
        let lemma = phrase.replace(' ', "_");
        let Some((sense, (lemmas, kinds))) = self
            .first_sense
            .get(&lemma)
            .and_then(|sense| Some((*sense, self.senses.get(sense)?)))
        else {
            return (Vec::new(), Vec::new());
        };
        let written = |l: &String| strip_marker(l).replace('_', " ");
        // A lemma people use, and use mostly in this sense.
        let meaning = |sense: u64| {
            move |l: &&String| {
                let l = strip_marker(l);
                self.used.contains(l) && self.first_sense.get(l) == Some(&sense)
            }
        };
        let synonyms = lemmas
            .iter()
            .filter(|l| strip_marker(l) != lemma)
            .filter(meaning(sense))
            .map(written)
            .collect();
        let hypernyms = kinds
            .iter()
            .filter_map(|k| Some((*k, self.senses.get(k)?)))
            .flat_map(|(k, (lemmas, _))| lemmas.iter().filter(meaning(k)).map(written))
            .collect();
        (synonyms, hypernyms)
    }
}

/// A lemma without its adjective marker ("(a)", "(p)").
fn strip_marker(lemma: &str) -> &str {
    lemma.split('(').next().unwrap_or(lemma)
}

/// The words of a text, folded and stemmed as the check of unused words
/// reads them.
pub fn words(text: &str, stemmer: &Stemmer) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| stemmer.stem(&w.to_lowercase()).into_owned())
        .collect()
}

/// At most [`MAX_QUESTIONS`] of the `found` queries (text and right
/// people) of `form`, drawn at random.
pub fn sampled(rng: &mut SplitMix64, form: usize, found: Vec<(String, Vec<usize>)>) -> Vec<Query> {
    let order = rng.permutation(found.len());
    let mut found: Vec<Option<(String, Vec<usize>)>> = found.into_iter().map(Some).collect();
    order
        .into_iter()
        .take(MAX_QUESTIONS)
        .filter_map(|at| found[at].take())
        .map(|(text, relevant)| Query {
            form,
            text,
            relevant,
            asked: None,
        })
        .collect()
}

/// Each person's documents of `hands` as stemmed words, one after the
/// other, an empty word between two documents so that no phrase runs
/// across them.
pub fn stemmed_texts(
    dataset: &Dataset,
    hands: &[Vec<usize>],
    stemmer: &Stemmer,
) -> Vec<Vec<String>> {
    hands
        .iter()
        .map(|hand| {
            hand.iter()
                .flat_map(|&d| {
                    let mut w = words(&dataset.documents[d].text, stemmer);
                    w.push(String::new());
                    w
                })
                .collect()
        })
        .collect()
}

/// Whether a gold phrase is made of words, not a symbol or an acronym
/// that WordNet would read as a word ("CAD" as a rude man, "Ca" as
/// California): letters and spaces, four or more.
pub fn a_word_phrase(phrase: &str) -> bool {
    phrase.chars().filter(char::is_ascii_alphabetic).count() >= MIN_LETTERS
        && phrase.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
}

/// Whether `phrase` (stemmed words) is written in `text` (stemmed words).
pub fn writes(text: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && text.windows(phrase.len()).any(|w| w == phrase)
}

/// The vocabulary-mismatch evaluation of `dataset` (English).
pub fn evaluation(dataset: &Dataset, wordnet: &WordNet, seed: u64) -> anyhow::Result<Evaluation> {
    let stemmer = Stemmer::create(Algorithm::English);
    let hands = deal(dataset, seed);
    anyhow::ensure!(hands.len() >= 2, "{} has too few documents", dataset.name);
    let texts = stemmed_texts(dataset, &hands, &stemmer);
    let used: HashSet<&str> = texts.iter().flatten().map(String::as_str).collect();
    let unused = |query: &str| {
        let w = words(query, &stemmer);
        !w.is_empty() && w.iter().all(|w| !used.contains(w.as_str()))
    };
    let right = |phrase: &str| -> Vec<usize> {
        let phrase = words(phrase, &stemmer);
        (0..texts.len())
            .filter(|&p| writes(&texts[p], &phrase))
            .collect()
    };
    let mut candidates: Vec<Vec<(String, Vec<usize>)>> = vec![Vec::new(); FORMS.len()];
    let mut asked: HashSet<(usize, String)> = HashSet::new();
    let mut ask = |form: usize, query: String, relevant: Vec<usize>| {
        if !relevant.is_empty()
            && relevant.len() <= MAX_RIGHT
            && unused(&query)
            && asked.insert((form, query.to_lowercase()))
        {
            candidates[form].push((query, relevant));
        }
    };
    let mut phrases: Vec<String> = hands
        .iter()
        .flatten()
        .flat_map(|&d| dataset.documents[d].gold.iter())
        .map(|g| g.trim().to_lowercase())
        .collect();
    // And the subjects a person writes of often, in lower case (so never
    // an acronym).
    for hand in &hands {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for &d in hand {
            for word in dataset.documents[d]
                .text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
            {
                *counts.entry(word).or_default() += 1;
            }
        }
        phrases.extend(
            counts
                .into_iter()
                .filter(|(_, n)| *n >= OFTEN)
                .map(|(w, _)| w.to_owned()),
        );
    }
    phrases.sort_unstable();
    phrases.dedup();
    for phrase in phrases.iter().filter(|p| a_word_phrase(p)) {
        let (synonyms, hypernyms) = wordnet.synonyms_and_hypernyms(phrase);
        if synonyms.is_empty() && hypernyms.is_empty() {
            continue;
        }
        let relevant = right(phrase);
        for synonym in synonyms {
            ask(0, synonym, relevant.clone());
        }
        for hypernym in hypernyms {
            ask(1, hypernym, relevant.clone());
        }
    }
    for (short, long) in ABBREVIATIONS {
        ask(2, short.to_owned(), right(long));
    }
    let mut rng = SplitMix64::new(seed);
    let mut queries = Vec::new();
    for (form, found) in candidates.into_iter().enumerate() {
        queries.extend(sampled(&mut rng, form, found));
    }
    let world = World {
        queries,
        ..uploaded(dataset, &hands)
    };
    Ok(Evaluation {
        name: format!("mismatch {}", dataset.name),
        forms: FORMS.to_vec(),
        worlds: vec![world],
        note: format!(
            "questions in words no upload uses (WordNet synonyms and hypernyms of the people's \
             subjects, abbreviations), at most {MAX_RIGHT} right people, at most \
             {MAX_QUESTIONS} per form"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wordnet() -> WordNet {
        let mut wordnet = WordNet::default();
        wordnet.first_sense.insert("car".into(), 1);
        for used in ["car", "automobile", "motorcar", "motor_vehicle"] {
            wordnet.used.insert(used.into());
        }
        wordnet.first_sense.insert("automobile".into(), 1);
        wordnet.first_sense.insert("motorcar".into(), 1);
        wordnet.first_sense.insert("motor_vehicle".into(), 2);
        wordnet.senses.insert(
            1,
            (
                vec!["car".into(), "automobile".into(), "motorcar".into()],
                vec![2],
            ),
        );
        wordnet
            .senses
            .insert(2, (vec!["motor_vehicle".into()], Vec::new()));
        wordnet
    }

    #[test]
    fn a_sense_gives_its_other_lemmas_and_its_kinds() {
        let (synonyms, hypernyms) = wordnet().synonyms_and_hypernyms("car");
        assert_eq!(synonyms, vec!["automobile", "motorcar"]);
        assert_eq!(hypernyms, vec!["motor vehicle"]);
        assert_eq!(
            wordnet().synonyms_and_hypernyms("boat"),
            (Vec::new(), Vec::new())
        );
    }

    #[test]
    fn a_phrase_is_written_only_as_a_run_of_its_words() {
        let stemmer = Stemmer::create(Algorithm::English);
        let text = words(
            "Support vector machines classify; vector support.",
            &stemmer,
        );
        assert!(writes(&text, &words("support vector machine", &stemmer)));
        assert!(!writes(&text, &words("vector machine support", &stemmer)));
        assert!(!writes(&text, &[]));
    }

    #[test]
    fn the_data_files_are_parsed_as_wordnet_writes_them() {
        let dir = std::env::temp_dir().join(format!("kenning-wordnet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("index.noun"),
            "  1 license\ncar n 5 4 @ ~ + ; 5 3 02958343 02959942\n\
             auto n 1 2 @ ~ 1 1 02958343\nautomobile n 1 2 @ ~ 1 1 02958343\n\
             machine n 1 2 @ ~ 1 0 02958343\nmotor_vehicle n 1 2 @ ~ 1 1 03791235\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("data.noun"),
            "  1 license\n02958343 06 n 05 car 0 auto 0 automobile 0 machine 6 motorcar 0 \
             002 @ 03791235 n 0000 ~ 02701002 n 0000 | a motor vehicle\n\
             03791235 06 n 01 motor_vehicle 0 000 | a self-propelled vehicle\n",
        )
        .unwrap();
        let wordnet = WordNet::load(&dir).unwrap();
        let (synonyms, hypernyms) = wordnet.synonyms_and_hypernyms("car");
        // "machine" is never tagged in this sense, "motorcar" not indexed.
        assert_eq!(synonyms, vec!["auto", "automobile"]);
        assert_eq!(hypernyms, vec!["motor vehicle"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
