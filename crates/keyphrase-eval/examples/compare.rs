//! Prints gold, ours and yake-rust side by side for the first documents of
//! a dataset: `cargo run --release -p kenning-keyphrase-eval --example compare -- Inspec 5`.

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{data_dir, load, yake_rust_input};
use kenning_ports::TopicExtractor;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("Inspec", String::as_str);
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    let dataset = load(&data_dir().join(format!("{name}.zip")))?;
    let ours = KeyphraseExtractor::new();
    let stop = yake_rust::StopWords::predefined(&dataset.language);
    let config = yake_rust::Config {
        ngrams: 3,
        ..yake_rust::Config::default()
    };
    for doc in dataset.documents.iter().take(n) {
        println!(
            "== {} ==\n{}\nGOLD: {:?}",
            doc.id,
            doc.text.trim(),
            doc.gold
        );
        let mine: Vec<String> = ours
            .extract(&doc.text, TextFormat::Plain, Some(&dataset.language), 10)
            .topics
            .into_iter()
            .map(|t| format!("{} ({:.2})", t.label, t.relevance))
            .collect();
        println!("OURS: {mine:?}");
        if let Some(stop) = &stop {
            let theirs: Vec<String> =
                yake_rust::get_n_best(10, &yake_rust_input(&doc.text), stop, &config)
                    .into_iter()
                    .map(|r| r.keyword)
                    .collect();
            println!("YAKE: {theirs:?}");
        }
    }
    Ok(())
}
