//! `make eval-experts`: how well Kenning answers "who knows about X?",
//! side by side with BM25 (profile and document models), the most active
//! people and a random order, on the same texts in one run. See
//! `docs/expertise.md`.

mod asking;
mod ceiling;
mod coffee;
mod commits;
mod crosslingual;
mod metrics;
mod mismatch;
mod nobody;
mod posts;
mod profiles;
mod rng;
mod routing;
mod run;
mod scale;
mod systems;
mod text;
mod world;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_meaning::{load_model, StaticVectors, Transformer};
use kenning_tools_common::bm25::Analyzer;

use crate::run::{run, Embedders, Failure, Outcome, KENNINGS};
use crate::systems::NAMES;
use crate::world::Evaluation;

/// The seed of every split, assignment, sample and tie-break.
const SEED: u64 = 20_170_801;

const USAGE: &str = "\
usage: kenning-expertise-eval [--quick] [--failures N] [DATASET...]
       kenning-expertise-eval --ceiling [--quick]
       kenning-expertise-eval --scale

Prints one markdown table: P@1, MRR, nDCG@10 and the share of queries
answered with nobody, per evaluation and query form, for Kenning and its
peers. DATASET is coffee (every Q&A site in the expertise data folder,
and all of them pooled when there are several), SemEval2017, Inspec,
mismatch (questions in words no upload uses, on both), languages (the
people's key phrases asked in German and French, on both) or nobody
(queries nobody in the organisation can answer, on SemEval2017) or commits
(a repository's later commits routed to their authors, read as `kenning
connect git` reads them, from the repository KENNING_EVAL_GIT names;
default: all).
Every query of coffee, SemEval2017 and Inspec is also asked wrapped in a
question in English, German or French, as a form of its own. Then the
profile table (what userTopics shows synthetic people against the gold
key phrases of their documents; `profiles` alone runs just that).

  --quick        one SemEval2017 split and 100 Inspec queries
  --failures N   after the table, up to N queries per evaluation that
                 Kenning answered with nobody where BM25 profile found
                 somebody, N Kenning ranked wrong first where BM25
                 profile was right, and N Kenning+model ranked wrong
                 first, with the topics it reached
  --ceiling      instead: SemEval2017 held-out routing by Kenning, BM25
                 profile, three refinements of it and two rankers told
                 each person's field (the ceiling of ranking by words)
  --scale        instead: the latency of experts on a generated SQLite
                 database of 10,000 people and 1,000,000 actions";

#[derive(Debug)]
struct Options {
    quick: bool,
    ceiling: bool,
    scale: bool,
    failures: usize,
    /// Lower-case dataset names; empty for all.
    datasets: Vec<String>,
}

impl Options {
    /// `None` when help was asked for.
    fn parse(mut args: impl Iterator<Item = String>) -> anyhow::Result<Option<Self>> {
        let mut options = Self {
            quick: false,
            ceiling: false,
            scale: false,
            failures: 0,
            datasets: Vec::new(),
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => return Ok(None),
                "--quick" => options.quick = true,
                "--ceiling" => options.ceiling = true,
                "--scale" => options.scale = true,
                "--failures" => {
                    let n = args.next().context("--failures needs a number")?;
                    options.failures = n.parse().with_context(|| format!("--failures {n}"))?;
                }
                name if [
                    "coffee",
                    "semeval2017",
                    "inspec",
                    "mismatch",
                    "languages",
                    "nobody",
                    "profiles",
                    "commits",
                ]
                .contains(&name.to_lowercase().as_str()) =>
                {
                    options.datasets.push(name.to_lowercase());
                }
                other => bail!("unknown argument {other:?}\n\n{USAGE}"),
            }
        }
        Ok(Some(options))
    }

    fn wants(&self, dataset: &str) -> bool {
        self.datasets.is_empty() || self.datasets.iter().any(|d| d == dataset)
    }
}

fn evaluations(options: &Options) -> anyhow::Result<Vec<Evaluation>> {
    let mut evaluations = Vec::new();
    if options.wants("coffee") {
        evaluations.extend(
            coffee::all_sites(&coffee::data_dir())?
                .iter()
                .map(|e| asking::asked(e, SEED)),
        );
    }
    let keyphrase = kenning_keyphrase_eval::data_dir();
    if options.wants("commits") {
        match commits::repository() {
            Some(path) => evaluations.push(commits::evaluation(&path)?),
            None => eprintln!(
                "commits: not run; set KENNING_EVAL_GIT to a git repository (docs/expertise.md)"
            ),
        }
    }
    if options.wants("semeval2017") {
        let dataset = kenning_keyphrase_eval::load(&keyphrase.join("SemEval2017.zip"))?;
        let splits = if options.quick { 1 } else { 5 };
        let routing = routing::category_routing(&dataset, splits, SEED)?;
        evaluations.push(asking::asked(&routing, SEED));
    }
    if options.wants("inspec") {
        let dataset = kenning_keyphrase_eval::load(&keyphrase.join("Inspec.zip"))?;
        let sampled = if options.quick { 100 } else { 300 };
        let known = routing::known_item(&dataset, sampled, SEED)?;
        evaluations.push(asking::asked(&known, SEED));
    }
    if options.wants("mismatch") {
        let wordnet = mismatch::WordNet::load(&mismatch::wordnet_dir())?;
        for name in ["SemEval2017.zip", "Inspec.zip"] {
            let dataset = kenning_keyphrase_eval::load(&keyphrase.join(name))?;
            evaluations.push(mismatch::evaluation(&dataset, &wordnet, SEED)?);
        }
    }
    if options.wants("languages") {
        let dir = crosslingual::freedict_dir();
        let dictionaries = crosslingual::LANGUAGES
            .iter()
            .map(|(_, name)| crosslingual::Dictionary::load(&dir, name))
            .collect::<anyhow::Result<Vec<_>>>()?;
        for name in ["SemEval2017.zip", "Inspec.zip"] {
            let dataset = kenning_keyphrase_eval::load(&keyphrase.join(name))?;
            evaluations.push(crosslingual::evaluation(&dataset, &dictionaries, SEED)?);
        }
    }
    Ok(evaluations)
}

/// A model's directory: `variable`, else where the Makefile unpacks it,
/// `folder` of `models`.
fn model_dir(variable: &str, folder: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../models")
                .join(folder)
        },
        PathBuf::from,
    )
}

/// The English model, the static vectors distilled from it and the
/// multilingual model.
fn embedders() -> anyhow::Result<Embedders> {
    let dir = model_dir("KENNING_MODEL_DIR", "all-minilm-l6-v2");
    let hint = |dir: &Path| format!("loading the model in {} (`make model`)", dir.display());
    let multilingual = model_dir("KENNING_MULTILINGUAL_DIR", "use-multilingual-v3");
    Ok(Embedders([
        Arc::new(StaticVectors::load(&dir).with_context(|| hint(&dir))?),
        Arc::new(Transformer::load(&dir).with_context(|| hint(&dir))?),
        load_model(&multilingual).with_context(|| hint(&multilingual))?,
    ]))
}

fn table(outcomes: &[Outcome]) -> String {
    let mut header = vec![
        "evaluation".to_owned(),
        "query form".into(),
        "queries".into(),
    ];
    for name in NAMES {
        for measure in ["P@1", "MRR", "nDCG@10", "nobody"] {
            header.push(format!("{name} {measure}"));
        }
    }
    let mut out = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for outcome in outcomes {
        for (form, tallies) in outcome.forms.iter().zip(&outcome.tallies) {
            let mut row = vec![
                outcome.name.clone(),
                (*form).to_owned(),
                tallies[0].queries().to_string(),
            ];
            for t in tallies {
                row.extend(
                    [
                        t.precision_at_1(),
                        t.mean_reciprocal_rank(),
                        t.ndcg_at_10(),
                        t.empty_share(),
                    ]
                    .map(|v| format!("{v:.3}")),
                );
            }
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
    }
    out
}

/// Each form bare and asked as a question, MRR side by side per Kenning
/// variant, and the share of the listed experts' topics that are words of
/// the question.
fn questions_table(outcomes: &[Outcome]) -> String {
    let mut out = String::from(
        "\nQuestions: MRR of each form bare and asked in a question (EN, DE, FR), and the share of the first experts' topics that are the question's words (goal: asked within 0.01 of bare; share 0)\n\n| evaluation | query form |",
    );
    for name in &NAMES[..KENNINGS] {
        out.push_str(&format!(
            " {name} bare | {name} asked | {name} difference |"
        ));
    }
    out.push_str(&format!("\n|{}\n", "---|".repeat(2 + 3 * KENNINGS)));
    for outcome in outcomes {
        let bare: Vec<(usize, &str)> = outcome
            .forms
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.ends_with(", asked"))
            .map(|(i, f)| (i, *f))
            .collect();
        for (i, form) in bare {
            let Some(asked) = outcome
                .forms
                .iter()
                .position(|f| *f == format!("{form}, asked"))
            else {
                continue;
            };
            out.push_str(&format!("| {} | {form} |", outcome.name));
            for k in 0..KENNINGS {
                let (b, a) = (
                    outcome.tallies[i][k].mean_reciprocal_rank(),
                    outcome.tallies[asked][k].mean_reciprocal_rank(),
                );
                out.push_str(&format!(" {b:.3} | {a:.3} | {:+.3} |", a - b));
            }
            out.push('\n');
        }
    }
    out.push_str("\nQuestion words among the topics of the first experts of asked queries:");
    for (k, name) in NAMES[..KENNINGS].iter().enumerate() {
        let (asking, all) = outcomes.iter().fold((0, 0), |(a, t), o| {
            (a + o.question_topics[k].0, t + o.question_topics[k].1)
        });
        out.push_str(&format!(
            " {name} {asking} of {all} ({:.4});",
            asking as f64 / all.max(1) as f64
        ));
    }
    out.push('\n');
    out
}

/// Mean and 99th percentile (nearest rank).
fn latency(samples: &[Duration]) -> String {
    if samples.is_empty() {
        return "no queries".to_owned();
    }
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let mean = sorted.iter().sum::<Duration>() / u32::try_from(sorted.len()).unwrap_or(u32::MAX);
    let p99 = sorted[(sorted.len() * 99).div_ceil(100).saturating_sub(1)];
    format!(
        "mean {:.2} ms, p99 {:.2} ms over {} queries",
        mean.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        sorted.len()
    )
}

fn counts(outcome: &Outcome) -> String {
    let per = if outcome.worlds > 1 {
        format!(" per split, {} splits", outcome.worlds)
    } else {
        String::new()
    };
    let questions = outcome.tallies.first().map_or(0, |t| t[0].queries());
    format!(
        "{}: {} people, {} uploads{per}; {} queries per form in all; {}; Kenning experts {}",
        outcome.name,
        outcome.people,
        outcome.uploads,
        questions,
        outcome.note,
        latency(&outcome.latencies[0])
    )
}

fn failures(title: &str, outcome: &Outcome, failures: &[Failure]) -> String {
    if failures.is_empty() {
        return String::new();
    }
    let mut out = format!("\n### {}: {title}\n\n", outcome.name);
    for failure in failures {
        let mut lines = failure.lines.iter();
        if let Some(first) = lines.next() {
            out.push_str(&format!("- [{}] {first}\n", failure.form));
        }
        for line in lines {
            out.push_str(&format!("  - {line}\n"));
        }
    }
    out
}

fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    let Some(options) = Options::parse(std::env::args().skip(1))? else {
        println!("{USAGE}");
        return Ok(());
    };
    if options.scale {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
        return scale::bench(&folder);
    }
    let extractor = Arc::new(KeyphraseExtractor::new());
    let analyzer = Arc::new(Analyzer::english());
    if options.ceiling {
        let dataset = kenning_keyphrase_eval::load(
            &kenning_keyphrase_eval::data_dir().join("SemEval2017.zip"),
        )?;
        let splits = if options.quick { 1 } else { 5 };
        let evaluation = routing::category_routing(&dataset, splits, SEED)?;
        let table = ceiling::ceiling(&evaluation, &extractor, &analyzer, SEED)?;
        let report = format!("{table}\nran in {:.1} s\n", started.elapsed().as_secs_f64());
        std::io::stdout().write_all(report.as_bytes())?;
        return Ok(());
    }
    let only_profiles =
        options.datasets.iter().all(|d| d == "profiles") && !options.datasets.is_empty();
    let embedders = if only_profiles {
        None
    } else {
        Some(embedders()?)
    };
    let outcomes = match &embedders {
        None => Vec::new(),
        Some(embedders) => evaluations(&options)?
            .into_iter()
            .map(Evaluation::within_the_query_limit)
            .map(|e| run(&e, &extractor, &analyzer, embedders, SEED, options.failures))
            .collect::<anyhow::Result<Vec<_>>>()?,
    };

    let mut report = if outcomes.is_empty() {
        String::new()
    } else {
        format!("{}{}\n", table(&outcomes), questions_table(&outcomes))
    };
    if let Some(embedders) = embedders.as_ref().filter(|_| options.wants("nobody")) {
        let dataset = kenning_keyphrase_eval::load(
            &kenning_keyphrase_eval::data_dir().join("SemEval2017.zip"),
        )?;
        let splits = if options.quick { 1 } else { 5 };
        let routing = routing::category_routing(&dataset, splits, SEED)?;
        let inspec =
            kenning_keyphrase_eval::load(&kenning_keyphrase_eval::data_dir().join("Inspec.zip"))?;
        let sampled = if options.quick { 100 } else { 300 };
        let known = routing::known_item(&inspec, sampled, SEED)?;
        let wordnet = mismatch::WordNet::load(&mismatch::wordnet_dir())?;
        report.push_str(&nobody::run(
            &routing, &known, &wordnet, &extractor, embedders, SEED,
        )?);
    }
    for outcome in &outcomes {
        report.push_str(&counts(outcome));
        report.push('\n');
    }
    for (k, name) in NAMES[..KENNINGS].iter().enumerate() {
        let all: Vec<Duration> = outcomes
            .iter()
            .flat_map(|o| o.latencies[k].iter().copied())
            .collect();
        report.push_str(&format!(
            "{name} experts latency, every query: {}\n",
            latency(&all)
        ));
    }
    for outcome in &outcomes {
        report.push_str(&failures(
            "Kenning answered with nobody, BM25 profile with somebody",
            outcome,
            &outcome.unanswered,
        ));
        report.push_str(&failures(
            "Kenning wrong first, BM25 profile right",
            outcome,
            &outcome.missed,
        ));
        report.push_str(&failures(
            "Kenning+multilingual wrong first (how it read the query)",
            outcome,
            &outcome.misread,
        ));
    }
    if options.wants("profiles") {
        let rows = kenning_keyphrase_eval::load_all(&kenning_keyphrase_eval::data_dir())?
            .iter()
            .map(|dataset| profiles::evaluate(dataset, &extractor, SEED))
            .collect::<anyhow::Result<Vec<_>>>()?;
        report.push_str(&format!(
            "\nProfiles: the best {} topics of synthetic people ({} documents each, at most 100 people a dataset) against the gold key phrases of their documents (a phrase or its head noun, stemmed)\n\n{}",
            profiles::PROFILE_SIZE,
            profiles::DOCUMENTS_PER_PERSON,
            profiles::table(&rows)
        ));
    }
    report.push_str(&format!(
        "\nran in {:.1} s\n",
        started.elapsed().as_secs_f64()
    ));
    // One write, so that a closed pipe is an error rather than a panic.
    std::io::stdout().write_all(report.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> anyhow::Result<Option<Options>> {
        Options::parse(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn arguments_choose_datasets_and_modes() {
        let o = parse(&["--quick", "Inspec", "--failures", "3"])
            .unwrap()
            .unwrap();
        assert!(o.quick);
        assert_eq!(o.failures, 3);
        assert!(o.wants("inspec") && !o.wants("coffee"));
        assert!(parse(&[]).unwrap().unwrap().wants("coffee"));
        assert!(parse(&["--help"]).unwrap().is_none());
        assert!(parse(&["--ceiling"]).unwrap().unwrap().ceiling);
        assert!(parse(&["nonsense"]).is_err());
        assert!(parse(&["--failures"]).is_err());
    }

    #[test]
    fn latency_reports_the_mean_and_the_nearest_rank_p99() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(
            latency(&samples),
            "mean 50.50 ms, p99 99.00 ms over 100 queries"
        );
        assert_eq!(latency(&[]), "no queries");
    }
}
