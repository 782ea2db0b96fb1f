//! `make eval-real`: expert finding on public real sources nobody here
//! wrote (a git history, a mailing list, a Slack export, a Q&A dump),
//! fetched at pinned commits by `fetch.sh` and fed through `kenning
//! connect` into one organisation on a fresh SQLite database. The
//! questions and their answers are derived from each source's own history
//! by the rules in `rules/`; each is asked of `experts` with the default
//! models, of `experts` with `--meaning off` (the same database, served
//! again), and of BM25 over the texts each person uploaded. See
//! docs/evaluation-real.md.

mod bm25;
mod connect;
mod measure;
mod noise;
mod people;
mod report;
mod rules;
mod server;
mod sources;
mod store;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;
use kenning_tools_common::serve::Indexed;

use crate::measure::Answers;
use crate::noise::{Probe, Top};
use crate::people::People;
use crate::rules::Question;
use crate::server::{Kenning, Meaning};
use crate::sources::{Kind, Read};

/// What the command line names.
#[derive(Debug)]
struct Args {
    /// The folder `fetch.sh` filled.
    data: PathBuf,
    /// Where the database and the cursors go.
    work: PathBuf,
    english: PathBuf,
    other: PathBuf,
}

fn args() -> anyhow::Result<Args> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut data = None;
    let mut work = root.join("target/eval-real");
    let mut english = root.join("models/all-minilm-l6-v2");
    let mut other = root.join("models/use-multilingual-v3");
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = || {
            given
                .next()
                .map(PathBuf::from)
                .with_context(|| format!("a value after {arg}"))
        };
        match arg.as_str() {
            "--work" => work = value()?,
            "--model-dir" => english = value()?,
            "--other-languages-model-dir" => other = value()?,
            _ if data.is_none() && !arg.starts_with("--") => data = Some(PathBuf::from(&arg)),
            _ => anyhow::bail!(
                "usage: kenning-eval-real DATA [--work DIR] [--model-dir DIR] \
                 [--other-languages-model-dir DIR]"
            ),
        }
    }
    let data = data.context("name the folder tools/eval-real/fetch.sh fetched into")?;
    Ok(Args {
        data: std::path::absolute(data)?,
        work: std::path::absolute(work)?,
        english: std::path::absolute(english)?,
        other: std::path::absolute(other)?,
    })
}

fn main() -> anyhow::Result<()> {
    let args = args()?;
    let mut read: BTreeMap<Kind, Read> = BTreeMap::new();
    let mut questions: Vec<Question> = Vec::new();
    for kind in Kind::ALL {
        let source = sources::read(kind, &args.data)?;
        let asked = rules::questions(kind, &args.data)?;
        eprintln!(
            "{}: {} items, {} uploads for {} people; {} questions",
            kind.label(),
            source.items,
            source.uploads,
            source.people.len(),
            asked.len()
        );
        questions.extend(asked);
        read.insert(kind, source);
    }
    let mut people = people::gather(&read);
    let binary = server::release_binary()?;
    std::fs::create_dir_all(&args.work)?;
    let database = args.work.join("real.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", database.display()));
    }
    let _ = std::fs::remove_dir_all(args.work.join("cursors"));
    let path = database.to_string_lossy().into_owned();
    let url = format!("sqlite://{path}");
    server::command(&binary, &url, &["migrate"])?;
    let api_key = server::command(&binary, &url, &["apikey", "create", "--name", "eval-real"])?;
    // Sent to a server without the models, which has nothing to index
    // meanwhile; the same database is then served with them.
    let kenning = Kenning::start(&binary, &url, &Meaning::Off)?;
    let left_out = people::create(&kenning, &mut people);
    eprintln!(
        "{} people created, {left_out} left out",
        people.len() - left_out
    );
    let connector = connect::Connector {
        binary: &binary,
        kenning: &kenning,
        api_key: &api_key,
        data: &args.data,
        cursors: &args.work.join("cursors"),
        database: &path,
    };
    let mut ingests = Vec::new();
    for (kind, source) in &read {
        let identities = people::identities_file(*kind, source, &args.work)?;
        let ingest = connector.run(*kind, identities.as_deref())?;
        eprintln!(
            "{}: {} uploads stored in {:.0} s",
            kind.label(),
            ingest.stored.uploads,
            ingest.seconds
        );
        ingests.push(ingest);
    }
    let models = Meaning::Models {
        english: args.english.clone(),
        other: args.other.clone(),
    };
    let probes = noise::probes(&read);
    let (systems, probed) = ask_all(
        kenning,
        (&binary, &url),
        &models,
        (&questions, &probes),
        &people,
        &read,
    )?;
    report::print_ingest(&ingests, &people);
    println!();
    report::print_scores(&questions, &systems);
    println!();
    report::print_questions(&questions, &systems, &people);
    println!();
    report::print_firsts(&questions, &systems);
    println!();
    report::print_probes(&probes, &probed, &people);
    Ok(())
}

/// Every question asked of the server without the models (`off`,
/// stopped after), of BM25, and of the same database (`binary` and its
/// URL) served with the default `models`; and every probe's best answer
/// from the default and from `off`, in that order.
fn ask_all(
    off: Kenning,
    (binary, url): (&Path, &str),
    models: &Meaning,
    (questions, probes): (&[Question], &[Probe]),
    people: &People,
    read: &BTreeMap<Kind, Read>,
) -> anyhow::Result<(Vec<Answers>, Vec<[Top; 2]>)> {
    let by_id: HashMap<String, String> = people
        .iter()
        .map(|(email, p)| (p.id.clone(), email.clone()))
        .collect();
    let meaning_off = Answers::ask("meaning off", questions, people, &mut |q| {
        measure::kenning_ranked(&off, q, &by_id)
    });
    let probed_off: Vec<Top> = probes
        .iter()
        .map(|p| noise::top(measure::kenning_scored(&off, &p.text, &by_id)))
        .collect();
    drop(off);
    let index = bm25::People::new(read);
    let bm25 = Answers::ask("BM25", questions, people, &mut |q| {
        measure::bm25_ranked(&index, q)
    });
    let with = Kenning::start(binary, url, models)?;
    let learned = kenning_tools_common::serve::learned_topics(url)?;
    let Indexed {
        seconds,
        topics: indexed,
    } = with.wait_indexed(learned)?;
    eprintln!("{indexed} of {learned} learned topics indexed by meaning in {seconds:.0} s");
    // Asked of a partial index, the default is not what it says: the
    // table names it so.
    let system = if indexed >= learned || indexed < 0 {
        "default".to_owned()
    } else {
        format!("default (index {indexed} of {learned} topics)")
    };
    let default = Answers::ask(&system, questions, people, &mut |q| {
        measure::kenning_ranked(&with, q, &by_id)
    });
    let probed = probes
        .iter()
        .zip(probed_off)
        .map(|(p, off)| {
            [
                noise::top(measure::kenning_scored(&with, &p.text, &by_id)),
                off,
            ]
        })
        .collect();
    Ok((vec![default, meaning_off, bm25], probed))
}
