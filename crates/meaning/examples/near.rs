//! Prints the similarity of pairs of texts under both embedders:
//! `cargo run --release -p kenning-meaning --example near -- DIR a b [a b ...]`.

use std::path::PathBuf;

use kenning_meaning::{StaticVectors, Transformer};
use kenning_ports::Embedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, pairs)) = args.split_first() else {
        return Err("usage: near DIR A B [A B ...]".into());
    };
    let dir = PathBuf::from(dir);
    let model = Transformer::load(&dir)?;
    let vectors = StaticVectors::load(&dir)?;
    // The similarity, and the noise above which the second is related to
    // the first.
    let similarity = |e: &dyn Embedder, a: &str, b: &str| -> Option<(f32, f32)> {
        let (a, b) = (e.embed(a)?, e.embed(b)?);
        Some((
            a.iter().zip(&b).map(|(x, y)| x * y).sum(),
            e.scale(&a).noise,
        ))
    };
    for pair in pairs.chunks_exact(2) {
        println!(
            "{:>20} ~ {:<20} model {:?} static {:?}",
            pair[0],
            pair[1],
            similarity(&model, &pair[0], &pair[1]),
            similarity(&vectors, &pair[0], &pair[1]),
        );
    }
    Ok(())
}
