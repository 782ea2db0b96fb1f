//! `make bench-api`: Kenning's HTTP API under load, on a generated
//! directory of growing size, on SQLite and PostgreSQL, against a bare
//! actix-web handler that serves the same JSON from the same database in
//! the same run. Prints one table; docs/performance.md records it with the
//! machine and the method.

mod args;
mod connect;
mod connect_mail;
mod directory;
mod ingest;
mod load;
mod meaning;
mod ops;
mod server;

use std::time::{Duration, Instant};

use clap::Parser;
use kenning_domain::Scoring;
use kenning_store_diesel::Database;

use crate::args::{fresh_database, Args, Load};
use crate::ops::{Drive, Row, Target};
use crate::server::Kenning;

/// Measures every operation on one backend at every size.
fn measure_backend(
    args: &Args,
    backend: &str,
    url: &str,
    keys: &[String],
    rows: &mut Vec<Row>,
    plans: &mut Vec<String>,
) -> anyhow::Result<()> {
    let binary = server::release_binary()?;
    Kenning::migrate(&binary, url)?;
    let db = Database::connect(url)?;
    let baseline = server::start_baseline(url)?;
    let scoring = Scoring::default();
    let mut stored = 0;
    for &size in &args.sizes {
        let started = Instant::now();
        directory::add_people(&db, stored, size)?;
        eprintln!(
            "{backend}: people {stored}..{size} stored in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        if stored == 0 {
            let started = Instant::now();
            directory::add_expertise(url, keys, &scoring)?;
            eprintln!(
                "{backend}: expertise stored in {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
        directory::analyze(url)?;
        stored = size;
        let kenning = Kenning::start(&binary, url)?;
        let cookie = kenning.sign_in(&binary, url, &directory::email(0))?;
        let mut operations = ops::operations(&kenning, &baseline, size);
        operations.extend(ops::page_operations(&kenning, &cookie, size));
        let mut baseline_rate = None;
        let chosen = operations.iter().filter(|o| {
            o.target == Target::Baseline
                || args.only.is_empty()
                || args.only.iter().any(|text| o.name.contains(text.as_str()))
        });
        for operation in chosen {
            let what = format!("{backend} {size} {}", operation.name);
            let (load, shown) = match (operation.drive, operation.target) {
                (Drive::Rate(rate), _) => (Load::Rate(rate), format!("{rate}/s")),
                (Drive::Connections(n), _) => (Load::Connections(n), n.to_string()),
                (Drive::Closed, Target::P99Below(_)) => (
                    Load::Connections(args.latency_connections),
                    args.latency_connections.to_string(),
                ),
                (Drive::Closed, _) => (
                    Load::Connections(args.connections),
                    args.connections.to_string(),
                ),
            };
            let stats = args.measure(operation.make.clone(), operation.check.clone(), load, &what);
            if operation.target == Target::Baseline {
                baseline_rate = Some(stats.per_second);
            }
            rows.push(Row::new(
                operation,
                size,
                backend,
                shown,
                stats,
                baseline_rate,
            ));
        }
        let (raw, compressed) = kenning.first_load(&cookie, &ops::experts_words(0, 0))?;
        rows.push(Row::weight(size, backend, raw, compressed));
        let (_, peak) = kenning.memory()?;
        rows.push(Row::memory(size, backend, peak));
    }
    // The plans at the largest size, statistics refreshed after the load.
    directory::analyze(url)?;
    let size = args.sizes.last().copied().unwrap_or_default();
    let mut report = format!("\nQuery plans on {backend} at {size} users:\n");
    for plan in db.query_plans()? {
        report.push_str(&format!("\n{}:\n```\n{}\n```\n", plan.statement, plan.plan));
    }
    plans.push(report);
    Ok(())
}

/// The start after a change of scoring settings on one backend.
struct Rebuild {
    /// Seconds until the server answered `/readyz`.
    ready: f64,
    /// Seconds until the standings were rebuilt (the new settings recorded).
    rebuilt: f64,
    /// Peak resident memory of the server in MiB.
    peak: f64,
}

/// Measures a start after a change of scoring settings on one backend.
fn measure_rebuild(url: &str, actions: u64) -> anyhow::Result<Rebuild> {
    let binary = server::release_binary()?;
    Kenning::migrate(&binary, url)?;
    let db = Database::connect(url)?;
    directory::add_people(&db, 0, directory::EXPERTS)?;
    let per_person = actions.div_ceil(directory::EXPERTS).max(1);
    directory::add_actions(url, per_person, &Scoring::default())?;
    directory::analyze(url)?;
    let old = directory::standings_fingerprint(url)?;
    let started = Instant::now();
    let kenning = Kenning::start_with(&binary, url, &[("KENNING_HALF_LIFE_DAYS", "200")])?;
    let ready = started.elapsed().as_secs_f64();
    while directory::standings_fingerprint(url)? == old {
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(3_600),
            "the standings were not rebuilt within an hour"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rebuilt = started.elapsed().as_secs_f64();
    let (_, peak) = kenning.memory()?;
    Ok(Rebuild {
        ready,
        rebuilt,
        peak,
    })
}

fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(actions) = args.rebuild {
        println!(
            "| standings rebuild at start | backend | actions | seconds to ready | seconds to rebuilt | peak MiB |"
        );
        println!("|---|---|---:|---:|---:|---:|");
        for backend in &args.backends {
            let measured = fresh_database(args, backend).and_then(|url| match url {
                Some(url) => measure_rebuild(&url, actions).map(Some),
                None => Ok(None),
            });
            match measured {
                Ok(Some(r)) => println!(
                    "| half-life 365 -> 200 days | {backend} | {actions} | {:.1} | {:.1} | {:.0} |",
                    r.ready, r.rebuilt, r.peak
                ),
                Ok(None) => {}
                Err(e) => eprintln!("{backend} NOT MEASURED: {e:#}"),
            }
        }
        return Ok(());
    }
    if args.meaning {
        for backend in &args.backends {
            match meaning::measure(args, backend) {
                Ok(rows) if rows.is_empty() => {}
                Ok(rows) => meaning::print_table(backend, &rows)?,
                Err(e) => eprintln!("{backend} NOT MEASURED: {e:#}"),
            }
        }
        return Ok(());
    }
    if args.connect {
        let rows = connect::measure(&args.folder.join("connect"))?;
        connect::print_table(&rows);
        return Ok(());
    }
    if args.ingest {
        // Measured first, before any server runs, as the rows' bound.
        let extraction = ingest::extraction_rate(Duration::from_secs(args.seconds));
        let mut rows = Vec::new();
        for backend in &args.backends {
            // As shipped, then the ceiling: the same harness storing
            // nothing of the topics.
            for ceiling in [false, true] {
                let measured = fresh_database(args, backend).and_then(|url| match url {
                    Some(url) => ingest::measure(
                        backend,
                        &url,
                        args,
                        &[(1, 100), (2, 100), (4, 100), (8, 100)],
                        ceiling,
                    ),
                    None => Ok(Vec::new()),
                });
                match measured {
                    Ok(measured) => rows.extend(measured),
                    Err(e) => eprintln!("{backend} NOT MEASURED: {e:#}"),
                }
            }
        }
        ingest::print_table(&rows, extraction);
        return Ok(());
    }
    let mut rows = Vec::new();
    let mut plans = Vec::new();
    let keys = ops::topic_keys();
    for backend in &args.backends {
        let measured = fresh_database(args, backend).and_then(|url| match url {
            Some(url) => measure_backend(args, backend, &url, &keys, &mut rows, &mut plans),
            None => Ok(()),
        });
        // One backend failing leaves the other's numbers worth printing.
        if let Err(e) = measured {
            eprintln!("{backend} NOT MEASURED: {e:#}");
        }
    }
    ops::print_table(&rows);
    for report in plans {
        println!("{report}");
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    run(&Args::parse())
}
