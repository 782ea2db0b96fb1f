//! Prints gold, ours and yake-rust side by side for the first documents of
//! a dataset: `cargo run --release -p kenning-keyphrase-eval --example compare -- Inspec 5`.

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{data_dir, load, YakeRust};
use kenning_ports::TopicExtractor;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("Inspec", String::as_str);
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    let dataset = load(&data_dir().join(format!("{name}.zip")))?;
    let ours = KeyphraseExtractor::new();
    let peer = YakeRust::new(&dataset.language);
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
        if let Some(peer) = &peer {
            let theirs = peer.keywords(&YakeRust::prepare(&doc.text), 10);
            println!("YAKE: {theirs:?}");
        }
    }
    Ok(())
}
