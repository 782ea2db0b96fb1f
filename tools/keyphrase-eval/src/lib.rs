//! The keyphrase datasets and the scoring protocol shared by the
//! evaluation (`make eval-topics`) and the benchmark (`make bench`).
//!
//! Protocol: predicted and gold phrases are lower-cased, split on white
//! space and Snowball-stemmed word by word; a prediction counts when it
//! equals a gold phrase. Precision@k divides the matches among the first k
//! predictions by their number (at most k), recall by the number of gold
//! phrases; F1 is averaged over documents (macro).

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use rust_stemmers::{Algorithm, Stemmer};

/// One annotated document.
#[derive(Debug, Clone)]
pub struct Document {
    pub id: String,
    pub text: String,
    pub gold: Vec<String>,
}

/// A dataset as distributed (`<root>/docsutf8`, `<root>/keys`, `<root>/lan.txt`).
#[derive(Debug, Clone)]
pub struct Dataset {
    pub name: String,
    /// ISO 639-1.
    pub language: String,
    pub documents: Vec<Document>,
}

/// Where the datasets are: `KENNING_KEYPHRASE_DATA`, else
/// `../shared/data/keyphrase` from the workspace root.
pub fn data_dir() -> PathBuf {
    std::env::var_os("KENNING_KEYPHRASE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/keyphrase")
        })
}

fn read_entry(
    archive: &mut zip::ZipArchive<std::fs::File>,
    index: usize,
) -> anyhow::Result<(String, String)> {
    let mut file = archive.by_index(index)?;
    let name = file.name().to_owned();
    let mut text = String::new();
    file.read_to_string(&mut text)
        .with_context(|| format!("reading {name}"))?;
    Ok((name, text))
}

/// Reads a dataset zip.
pub fn load(path: &Path) -> anyhow::Result<Dataset> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut archive = zip::ZipArchive::new(file)?;
    let mut texts = std::collections::BTreeMap::new();
    let mut keys = std::collections::HashMap::new();
    let mut language = None;
    for index in 0..archive.len() {
        if archive.by_index(index)?.is_dir() {
            continue;
        }
        let (name, content) = read_entry(&mut archive, index)?;
        let parts: Vec<&str> = name.split('/').collect();
        match parts.as_slice() {
            [_, "docsutf8", file] if file.ends_with(".txt") => {
                texts.insert(file.trim_end_matches(".txt").to_owned(), content);
            }
            [_, "keys", file] if file.ends_with(".key") => {
                let gold = content
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>();
                keys.insert(file.trim_end_matches(".key").to_owned(), gold);
            }
            // The code may carry a region ("en-US"); the systems want ISO 639-1.
            [_, "lan.txt"] => {
                language = content
                    .trim()
                    .split(['-', '_'])
                    .next()
                    .map(str::to_lowercase)
            }
            _ => {}
        }
    }
    let Some(language) = language else {
        bail!("{} has no lan.txt", path.display());
    };
    let documents = texts
        .into_iter()
        .filter_map(|(id, text)| keys.remove(&id).map(|gold| Document { id, text, gold }))
        .collect();
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Dataset {
        name,
        language,
        documents,
    })
}

/// Every dataset zip in `dir`, by name.
///
/// The datasets are not part of the repository, so a missing folder, or
/// one without a zip, is an error that says where they come from.
pub fn load_all(dir: &Path) -> anyhow::Result<Vec<Dataset>> {
    let none_found = || {
        format!(
            "no keyphrase datasets in {}: put the LIAAD KeywordExtractor-Datasets zips \
             (Inspec.zip, SemEval2017.zip, WikiNews.zip) there, or set KENNING_KEYPHRASE_DATA \
             to the folder that holds them",
            dir.display()
        )
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(none_found)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "zip"))
        .collect();
    if paths.is_empty() {
        anyhow::bail!(none_found());
    }
    paths.sort();
    paths.iter().map(|p| load(p)).collect()
}

/// The yake-rust crate as every comparison runs it: phrases of up to three
/// words, its own stop words for the language, its other defaults.
pub struct YakeRust {
    stop_words: yake_rust::StopWords,
    config: yake_rust::Config,
}

impl std::fmt::Debug for YakeRust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("YakeRust")
    }
}

impl YakeRust {
    /// `None` when yake-rust has no stop words for `language`.
    pub fn new(language: &str) -> Option<Self> {
        Some(Self {
            stop_words: yake_rust::StopWords::predefined(language)?,
            config: yake_rust::Config {
                ngrams: 3,
                ..yake_rust::Config::default()
            },
        })
    }

    /// The text as given to yake-rust: white space runs collapsed to one
    /// space. Its sentence splitter mis-reads line breaks (whole paragraphs
    /// come out as a few long, lower-quality phrases), while Python yake
    /// joins the lines of a text itself before splitting; this gives
    /// yake-rust the same footing.
    pub fn prepare(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The best `k` key phrases of a text made by [`YakeRust::prepare`].
    pub fn keywords(&self, prepared: &str, k: usize) -> Vec<String> {
        yake_rust::get_n_best(k, prepared, &self.stop_words, &self.config)
            .into_iter()
            .map(|r| r.keyword)
            .collect()
    }
}

/// Folds phrases the way the protocol compares them.
pub struct Normalizer(Stemmer);

impl std::fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Normalizer")
    }
}

impl Normalizer {
    /// The protocol for a dataset in `language` (ISO 639-1); a language
    /// without a Snowball stemmer cannot be scored by it.
    pub fn new(language: &str) -> anyhow::Result<Self> {
        let algorithm = match language {
            "ar" => Algorithm::Arabic,
            "da" => Algorithm::Danish,
            "de" => Algorithm::German,
            "el" => Algorithm::Greek,
            "en" => Algorithm::English,
            "es" => Algorithm::Spanish,
            "fi" => Algorithm::Finnish,
            "fr" => Algorithm::French,
            "hu" => Algorithm::Hungarian,
            "it" => Algorithm::Italian,
            "nl" => Algorithm::Dutch,
            "no" | "nb" => Algorithm::Norwegian,
            "pt" => Algorithm::Portuguese,
            "ro" => Algorithm::Romanian,
            "ru" => Algorithm::Russian,
            "sv" => Algorithm::Swedish,
            "ta" => Algorithm::Tamil,
            "tr" => Algorithm::Turkish,
            _ => bail!("no Snowball stemmer for the language {language:?}"),
        };
        Ok(Self(Stemmer::create(algorithm)))
    }

    pub fn phrase(&self, phrase: &str) -> String {
        phrase
            .to_lowercase()
            .split_whitespace()
            .map(|w| self.0.stem(w).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// F1 of the first `k` predictions against the gold set (both normalized).
pub fn f1_at(predicted: &[String], gold: &HashSet<String>, k: usize) -> f64 {
    let mut seen = HashSet::new();
    let top: Vec<&String> = predicted
        .iter()
        .filter(|p| seen.insert(p.as_str()))
        .take(k)
        .collect();
    if top.is_empty() || gold.is_empty() {
        return 0.0;
    }
    let hits = top.iter().filter(|p| gold.contains(p.as_str())).count() as f64;
    let precision = hits / top.len() as f64;
    let recall = hits / gold.len() as f64;
    if hits == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f1_counts_stemmed_exact_matches() {
        let n = Normalizer::new("en").unwrap();
        assert!(Normalizer::new("xx").is_err());
        let gold: HashSet<String> = ["Neural Networks", "gradient descent"]
            .iter()
            .map(|g| n.phrase(g))
            .collect();
        let predicted: Vec<String> = ["neural network", "neural network", "training", "data"]
            .iter()
            .map(|p| n.phrase(p))
            .collect();
        let f1 = f1_at(&predicted, &gold, 2);
        // 1 hit among 2 distinct predictions, 2 gold phrases.
        assert!((f1 - 0.5).abs() < 1e-12);
        assert_eq!(f1_at(&[], &gold, 5), 0.0);
    }
}
