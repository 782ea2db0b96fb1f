//! `make eval-topics`: macro F1@5 and F1@10 of Kenning's extractor and of
//! the yake-rust crate (and the Python `yake` package when installed) on
//! every dataset in the data folder, in one run.

use std::collections::HashSet;
use std::io::Write as _;
use std::process::{Command, Stdio};

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{data_dir, f1_at, load_all, Dataset, Normalizer};
use kenning_ports::TopicExtractor;

const K: usize = 10;

struct Scores {
    f1_5: f64,
    f1_10: f64,
}

fn evaluate(dataset: &Dataset, predict: &mut dyn FnMut(&str) -> Vec<String>) -> Scores {
    let normalize = Normalizer::new(&dataset.language);
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

/// Predictions of the Python `yake` package, or `None` when it is not
/// installed.
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
    let input = json_strings(&docs);
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let output = child.wait_with_output().ok()?;
    if !output.status.success() {
        return None;
    }
    parse_lists(&String::from_utf8_lossy(&output.stdout))
}

fn json_strings(items: &[&str]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        })
        .collect();
    format!("[{}]", quoted.join(","))
}

/// Parses `[["a", "b"], ["c"]]` as printed by Python's json (ASCII-escaped).
fn parse_lists(text: &str) -> Option<Vec<Vec<String>>> {
    let mut lists = Vec::new();
    let mut chars = text.trim().chars().peekable();
    if chars.next()? != '[' {
        return None;
    }
    loop {
        match chars.next()? {
            '[' => {
                let mut list = Vec::new();
                loop {
                    match chars.next()? {
                        '"' => {
                            let mut s = String::new();
                            loop {
                                match chars.next()? {
                                    '"' => break,
                                    '\\' => match chars.next()? {
                                        'u' => {
                                            let hex: String =
                                                (0..4).filter_map(|_| chars.next()).collect();
                                            let code = u32::from_str_radix(&hex, 16).ok()?;
                                            s.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                                        }
                                        'n' => s.push('\n'),
                                        other => s.push(other),
                                    },
                                    c => s.push(c),
                                }
                            }
                            list.push(s);
                        }
                        ']' => break,
                        _ => {}
                    }
                }
                lists.push(list);
            }
            ']' => return Some(lists),
            _ => {}
        }
    }
}

fn main() -> anyhow::Result<()> {
    let dir = data_dir();
    let datasets = load_all(&dir)?;
    let ours = KeyphraseExtractor::new();
    println!(
        "Keyphrase extraction, macro F1 with stemmed exact match ({})",
        dir.display()
    );
    println!();
    println!(
        "| dataset | lang | docs | kenning F1@5 | kenning F1@10 | yake-rust F1@5 | yake-rust F1@10 | python yake F1@5 | python yake F1@10 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut python_missing = false;
    for dataset in &datasets {
        let language = dataset
            .language
            .split('-')
            .next()
            .unwrap_or("en")
            .to_lowercase();
        let dataset = &Dataset {
            language,
            ..dataset.clone()
        };
        let kenning = evaluate(dataset, &mut |text| {
            ours.extract(text, TextFormat::Plain, Some(&dataset.language), K)
                .topics
                .into_iter()
                .map(|t| t.label)
                .collect()
        });
        let stop_words = yake_rust::StopWords::predefined(&dataset.language)
            .or_else(|| yake_rust::StopWords::predefined("en"));
        let config = yake_rust::Config {
            ngrams: 3,
            ..yake_rust::Config::default()
        };
        let yake = evaluate(dataset, &mut |text| match &stop_words {
            Some(stop) => yake_rust::get_n_best(K, text, stop, &config)
                .into_iter()
                .map(|r| r.keyword)
                .collect(),
            None => Vec::new(),
        });
        let python = python_yake(dataset).map(|predictions| {
            let mut next = predictions.into_iter();
            evaluate(dataset, &mut |_| next.next().unwrap_or_default())
        });
        let python_cells = match &python {
            Some(p) => format!("{:.3} | {:.3}", p.f1_5, p.f1_10),
            None => {
                python_missing = true;
                "n/a | n/a".to_owned()
            }
        };
        println!(
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {} |",
            dataset.name,
            dataset.language,
            dataset.documents.len(),
            kenning.f1_5,
            kenning.f1_10,
            yake.f1_5,
            yake.f1_10,
            python_cells
        );
    }
    if python_missing {
        println!();
        println!("python yake: not installed here (pip install yake to add the column)");
    }
    Ok(())
}
