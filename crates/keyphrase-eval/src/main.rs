//! `make eval-topics`: macro F1@5 and F1@10 of Kenning's extractor and of
//! the yake-rust crate (and the Python `yake` package when installed) on
//! every dataset in the data folder, in one run.

use std::collections::HashSet;
use std::io::Write as _;
use std::process::{Command, Stdio};

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{data_dir, f1_at, load_all, Dataset, Normalizer, YakeRust};
use kenning_ports::TopicExtractor;

const K: usize = 10;

struct Scores {
    f1_5: f64,
    f1_10: f64,
}

fn evaluate(
    dataset: &Dataset,
    normalize: &Normalizer,
    predict: &mut dyn FnMut(&str) -> Vec<String>,
) -> Scores {
    let (mut f5, mut f10) = (0.0, 0.0);
    for doc in &dataset.documents {
        let gold: HashSet<String> = doc.gold.iter().map(|g| normalize.phrase(g)).collect();
        let predicted: Vec<String> = predict(&doc.text)
            .iter()
            .map(|p| normalize.phrase(p))
            .collect();
        f5 += f1_at(&predicted, &gold, 5);
        f10 += f1_at(&predicted, &gold, 10);
    }
    let n = dataset.documents.len().max(1) as f64;
    Scores {
        f1_5: f5 / n,
        f1_10: f10 / n,
    }
}

/// Predictions of the Python `yake` package (same settings as yake-rust:
/// up to three words, its own stop words for the language), or `None` when
/// it is not installed.
fn python_yake(dataset: &Dataset) -> Option<Vec<Vec<String>>> {
    let script = r#"
import json, sys, yake
lang = sys.argv[1]
docs = json.load(sys.stdin)
ex = yake.KeywordExtractor(lan=lang, n=3, top=10)
print(json.dumps([[k for k, _ in ex.extract_keywords(d)] for d in docs]))
"#;
    let mut child = Command::new("python3")
        .args(["-c", script, &dataset.language])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let docs: Vec<&str> = dataset.documents.iter().map(|d| d.text.as_str()).collect();
    let input = serde_json::to_vec(&docs).ok()?;
    child.stdin.take()?.write_all(&input).ok()?;
    let output = child.wait_with_output().ok()?;
    if !output.status.success() {
        return None;
    }
    serde_json::from_slice(&output.stdout).ok()
}

/// The cells of one system: F1@5 and F1@10, or n/a.
fn cells(scores: Option<&Scores>) -> String {
    scores.map_or_else(
        || "n/a | n/a".to_owned(),
        |s| format!("{:.3} | {:.3}", s.f1_5, s.f1_10),
    )
}

/// `--kenning-only` skips the peers (a quicker run while working on the
/// extractor); any other argument names the datasets to run.
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kenning_only = args.iter().any(|a| a == "--kenning-only");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = data_dir();
    let datasets: Vec<Dataset> = load_all(&dir)?
        .into_iter()
        .filter(|d| names.is_empty() || names.contains(&&d.name))
        .collect();
    let ours = KeyphraseExtractor::new();
    println!("Keyphrase extraction: macro F1@5 and F1@10, stemmed exact match");
    println!();
    println!(
        "| dataset | lang | docs | kenning F1@5 | kenning F1@10 | yake-rust F1@5 | yake-rust F1@10 | python yake F1@5 | python yake F1@10 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut python_missing = false;
    for dataset in &datasets {
        let normalize = Normalizer::new(&dataset.language)?;
        let kenning = evaluate(dataset, &normalize, &mut |text| {
            ours.extract(text, TextFormat::Plain, Some(&dataset.language), K)
                .topics
                .into_iter()
                .map(|t| t.label)
                .collect()
        });
        let (yake, python) = if kenning_only {
            (None, None)
        } else {
            // n/a where yake-rust has no stop words for the language.
            let yake = YakeRust::new(&dataset.language).map(|yake| {
                evaluate(dataset, &normalize, &mut |text| {
                    yake.keywords(&YakeRust::prepare(text), K)
                })
            });
            let python = python_yake(dataset).map(|predictions| {
                let mut next = predictions.into_iter();
                evaluate(dataset, &normalize, &mut |_| {
                    next.next().unwrap_or_default()
                })
            });
            python_missing |= python.is_none();
            (yake, python)
        };
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            dataset.name,
            dataset.language,
            dataset.documents.len(),
            cells(Some(&kenning)),
            cells(yake.as_ref()),
            cells(python.as_ref()),
        );
    }
    if python_missing {
        println!();
        println!("python yake: not installed here (pip install yake to add its columns)");
    }
    Ok(())
}
