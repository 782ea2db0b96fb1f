//! `make bench`: topics of the Inspec abstracts per second, Kenning's
//! extractor against the yake-rust crate on the same texts, one core.
//!
//! Criterion prints the throughput of each in documents per second; a
//! short summary with the ratio follows, averaged over every timed pass.

use std::cell::Cell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};
use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{data_dir, load, YakeRust};
use kenning_ports::TopicExtractor;

/// Topics asked for per document, as in the evaluation.
const LIMIT: usize = 10;

/// Time spent and passes made over the whole corpus.
#[derive(Debug, Default)]
struct Tally {
    elapsed: Cell<Duration>,
    passes: Cell<u64>,
}

impl Tally {
    /// Times `passes` runs of `pass` and keeps the count.
    fn time(&self, passes: u64, mut pass: impl FnMut()) -> Duration {
        let start = Instant::now();
        for _ in 0..passes {
            pass();
        }
        let elapsed = start.elapsed();
        self.elapsed.set(self.elapsed.get() + elapsed);
        self.passes.set(self.passes.get() + passes);
        elapsed
    }

    fn docs_per_second(&self, docs: usize) -> f64 {
        let seconds = self.elapsed.get().as_secs_f64();
        if seconds == 0.0 {
            return 0.0;
        }
        self.passes.get() as f64 * docs as f64 / seconds
    }
}

fn main() -> anyhow::Result<()> {
    let inspec = load(&data_dir().join("Inspec.zip"))?;
    let texts: Vec<&str> = inspec.documents.iter().map(|d| d.text.as_str()).collect();
    let docs = texts.len();
    let ours = KeyphraseExtractor::new();
    let peer = YakeRust::new(&inspec.language)
        .ok_or_else(|| anyhow::anyhow!("yake-rust has no stop words for {}", inspec.language))?;
    // yake-rust gets the input the evaluation gives it; preparing it is
    // not part of its timing.
    let yake_texts: Vec<String> = texts.iter().map(|t| YakeRust::prepare(t)).collect();

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(20));
    let kenning = Tally::default();
    let yake = Tally::default();
    {
        let mut group = criterion.benchmark_group(format!("inspec_{docs}_abstracts"));
        group.throughput(Throughput::Elements(docs as u64));
        group.sampling_mode(SamplingMode::Flat);
        group.bench_function("kenning", |b| {
            b.iter_custom(|passes| {
                kenning.time(passes, || {
                    for text in &texts {
                        black_box(ours.extract(
                            black_box(text),
                            TextFormat::Plain,
                            Some("en"),
                            LIMIT,
                        ));
                    }
                })
            });
        });
        group.bench_function("yake-rust", |b| {
            b.iter_custom(|passes| {
                yake.time(passes, || {
                    for text in &yake_texts {
                        black_box(peer.keywords(black_box(text), LIMIT));
                    }
                })
            });
        });
        group.finish();
    }
    criterion.final_summary();

    let ours_rate = kenning.docs_per_second(docs);
    let yake_rate = yake.docs_per_second(docs);
    if ours_rate > 0.0 && yake_rate > 0.0 {
        println!();
        println!("Summary over every timed pass ({docs} Inspec abstracts, one core):");
        println!("  kenning    {ours_rate:>10.0} docs/s");
        println!("  yake-rust  {yake_rate:>10.0} docs/s");
        println!("  ratio      {:>10.1}x", ours_rate / yake_rate);
    }
    Ok(())
}
