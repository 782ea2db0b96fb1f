//! `make eval-topics`: macro F1@5 and F1@10, and extraction time per
//! document, of Kenning's extractor and its peers (the yake-rust crate, the
//! Python `yake` package, pke's MultipartiteRank and PositionRank) on every
//! dataset in the data folder, in one run.

mod python;
mod run;

use std::collections::HashSet;

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{data_dir, f1_at, load_all, Dataset, Normalizer, YakeRust};
use kenning_ports::TopicExtractor;

use crate::python::Python;
use crate::run::Run;

const K: usize = 10;

/// The systems compared, in the order of the tables' columns.
const SYSTEMS: [&str; 5] = [
    "kenning",
    "yake-rust",
    "python yake",
    "MultipartiteRank",
    "PositionRank",
];

struct Scores {
    f1_5: f64,
    f1_10: f64,
}

fn score(dataset: &Dataset, normalize: &Normalizer, run: &Run) -> Scores {
    let (mut f5, mut f10) = (0.0, 0.0);
    for (doc, keyphrases) in dataset.documents.iter().zip(&run.keyphrases) {
        let gold: HashSet<String> = doc.gold.iter().map(|g| normalize.phrase(g)).collect();
        let predicted: Vec<String> = keyphrases.iter().map(|p| normalize.phrase(p)).collect();
        f5 += f1_at(&predicted, &gold, 5);
        f10 += f1_at(&predicted, &gold, 10);
    }
    let n = dataset.documents.len().max(1) as f64;
    Scores {
        f1_5: f5 / n,
        f1_10: f10 / n,
    }
}

/// Every system's run on one dataset, in the order of [`SYSTEMS`], or why a
/// system has none.
fn run_all(
    dataset: &Dataset,
    ours: &KeyphraseExtractor,
    python: Option<&Python>,
) -> Vec<Result<Run, String>> {
    let kenning = Run::timed(dataset.documents.iter().map(|d| d.text.as_str()), |text| {
        ours.extract(text, TextFormat::Plain, Some(&dataset.language), K)
            .topics
            .into_iter()
            .map(|t| t.label)
            .collect()
    });
    let mut runs = vec![Ok(kenning)];
    let Some(python) = python else {
        runs.extend((1..SYSTEMS.len()).map(|_| Err("skipped (--kenning-only)".to_owned())));
        return runs;
    };
    let yake = match YakeRust::new(&dataset.language) {
        // Preparing the text is not part of yake-rust's time, as in the bench.
        Some(yake) => {
            let prepared: Vec<String> = dataset
                .documents
                .iter()
                .map(|d| YakeRust::prepare(&d.text))
                .collect();
            Ok(Run::timed(prepared.iter().map(String::as_str), |text| {
                yake.keywords(text, K)
            }))
        }
        None => Err(format!("no stop words for {:?}", dataset.language)),
    };
    runs.push(yake);
    runs.extend(python.run("python_yake.py", &SYSTEMS[2..3], dataset));
    runs.extend(python.run("pke_peers.py", &SYSTEMS[3..5], dataset));
    runs
}

/// Why systems show n/a: one line per reason, with the systems and the
/// datasets it holds for.
#[derive(Default)]
struct Notes(Vec<(String, Vec<&'static str>, Vec<String>)>);

impl Notes {
    fn add(&mut self, reason: &str, system: &'static str, dataset: &str) {
        let at = match self.0.iter().position(|(r, ..)| r == reason) {
            Some(at) => at,
            None => {
                self.0.push((reason.to_owned(), Vec::new(), Vec::new()));
                self.0.len() - 1
            }
        };
        let (_, systems, datasets) = &mut self.0[at];
        if !systems.contains(&system) {
            systems.push(system);
        }
        if !datasets.iter().any(|d| d == dataset) {
            datasets.push(dataset.to_owned());
        }
    }

    fn print(&self) {
        if !self.0.is_empty() {
            println!();
        }
        for (reason, systems, datasets) in &self.0 {
            println!(
                "{}: n/a on {}: {reason}",
                systems.join(", "),
                datasets.join(", ")
            );
        }
    }
}

/// Milliseconds, with about three significant digits.
fn milliseconds(ms: f64) -> String {
    match ms {
        ms if ms < 1.0 => format!("{ms:.3}"),
        ms if ms < 10.0 => format!("{ms:.2}"),
        ms => format!("{ms:.1}"),
    }
}

/// A table's header and separator: the `first` columns, then one column per
/// system and entry of `per_system`.
fn header(first: &[&str], per_system: &[&str]) -> String {
    let mut cells: Vec<String> = first.iter().map(|c| (*c).to_owned()).collect();
    for system in SYSTEMS {
        cells.extend(
            per_system
                .iter()
                .map(|c| format!("{system} {c}").trim().to_owned()),
        );
    }
    let columns = cells.len();
    format!("| {} |\n{}|", cells.join(" | "), "|---".repeat(columns))
}

fn explain_missing_data(dir: &std::path::Path) {
    println!("No keyphrase datasets in {}.", dir.display());
    println!(
        "The evaluation reads every dataset zip there: the LIAAD KeywordExtractor-Datasets \
         (Inspec, SemEval2017, WikiNews; <root>/docsutf8, <root>/keys, <root>/lan.txt), kept \
         in ../shared/data/keyphrase beside the workspace. Set KENNING_KEYPHRASE_DATA to \
         read another folder."
    );
}

/// `--kenning-only` skips the peers (a quicker run while working on the
/// extractor); any other argument names the datasets to run.
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kenning_only = args.iter().any(|a| a == "--kenning-only");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = data_dir();
    if !dir.is_dir() {
        explain_missing_data(&dir);
        return Ok(());
    }
    let datasets: Vec<Dataset> = load_all(&dir)?
        .into_iter()
        .filter(|d| names.is_empty() || names.contains(&&d.name))
        .collect();
    if datasets.is_empty() {
        explain_missing_data(&dir);
        return Ok(());
    }
    let ours = KeyphraseExtractor::new();
    let python = (!kenning_only).then(Python::locate);
    let mut notes = Notes::default();
    let mut speeds = Vec::new();
    println!("Keyphrase extraction: macro F1@5 and F1@10, stemmed exact match");
    println!();
    println!(
        "{}",
        header(&["dataset", "lang", "docs"], &["F1@5", "F1@10"])
    );
    for dataset in &datasets {
        let normalize = Normalizer::new(&dataset.language)?;
        let runs = run_all(dataset, &ours, python.as_ref());
        let mut quality = Vec::new();
        let mut speed = Vec::new();
        let kenning_ms = runs
            .first()
            .and_then(|r| r.as_ref().ok())
            .map(Run::ms_per_doc);
        for (system, run) in SYSTEMS.into_iter().zip(&runs) {
            match run {
                Ok(run) => {
                    let scores = score(dataset, &normalize, run);
                    quality.push(format!("{:.3} | {:.3}", scores.f1_5, scores.f1_10));
                    let ms = run.ms_per_doc();
                    speed.push(match kenning_ms {
                        Some(base) if system != SYSTEMS[0] && base > 0.0 => {
                            format!("{} ({:.0}x)", milliseconds(ms), ms / base)
                        }
                        _ => milliseconds(ms),
                    });
                }
                Err(reason) => {
                    notes.add(reason, system, &dataset.name);
                    quality.push("n/a | n/a".to_owned());
                    speed.push("n/a".to_owned());
                }
            }
        }
        let docs = dataset.documents.len();
        println!(
            "| {} | {} | {docs} | {} |",
            dataset.name,
            dataset.language,
            quality.join(" | ")
        );
        speeds.push(format!(
            "| {} | {docs} | {} |",
            dataset.name,
            speed.join(" | ")
        ));
    }
    println!();
    println!(
        "Extraction time per document: milliseconds of wall time in this run, and in \
         brackets how many times Kenning's"
    );
    println!();
    println!("{}", header(&["dataset", "docs"], &[""]));
    for row in speeds {
        println!("{row}");
    }
    notes.print();
    Ok(())
}
