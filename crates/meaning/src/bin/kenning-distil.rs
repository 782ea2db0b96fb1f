//! Distils static vectors from the model in a directory and writes them
//! beside it: `kenning-distil models/all-minilm-l6-v2`. The Makefile runs
//! it once after fetching the model.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use kenning_meaning::{Transformer, STATIC_FILE};

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: kenning-distil MODEL_DIR");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let distilled = Transformer::load(&dir).and_then(|model| model.distil());
    match distilled.and_then(|vectors| vectors.save(&dir).map(|()| vectors)) {
        Ok(vectors) => {
            println!(
                "{}: {vectors:?} in {:.1} s",
                dir.join(STATIC_FILE).display(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kenning-distil: {e}");
            ExitCode::FAILURE
        }
    }
}
