//! Prints the similarity of pairs of texts and what it means on the
//! model's measured scale (against the first text of each pair): `cargo run --release -p kenning-meaning --example scale -- DIR [a b ...]`.

use std::path::PathBuf;

use kenning_meaning::load_model;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, pairs)) = args.split_first() else {
        return Err("usage: scale DIR [A B ...]".into());
    };
    let started = std::time::Instant::now();
    let model = load_model(&PathBuf::from(dir))?;
    println!(
        "{} loaded in {:.1} s",
        model.model(),
        started.elapsed().as_secs_f64()
    );
    for pair in pairs.chunks_exact(2) {
        let (Some(a), Some(b)) = (model.embed(&pair[0]), model.embed(&pair[1])) else {
            println!("{:>28} ~ {:<28} (no meaning)", pair[0], pair[1]);
            continue;
        };
        let similarity: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let scale = model.scale(&a);
        println!(
            "{:>28} ~ {:<28} {similarity:.3} (noise {:.3}, same {:.3}) nearness {:.2}",
            pair[0],
            pair[1],
            scale.noise,
            scale.same,
            scale.nearness(similarity)
        );
    }
    Ok(())
}
