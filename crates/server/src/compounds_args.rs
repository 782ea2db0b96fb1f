//! Where `kenning serve` finds the data German compound words are split
//! with (`make compounds` fetches it), as a flag and an environment
//! variable.

use std::path::PathBuf;

use clap::Args;
use kenning_keyphrase::Compounds;

/// The folder name of the compound data under each place a model is looked
/// for (`make compounds` fetches it as `models/german-compounds`).
pub const COMPOUNDS: &str = "german-compounds";

#[derive(Debug, Args)]
pub struct CompoundsArgs {
    /// The directory of the data German compound words are split with
    /// (CharSplit's n-gram probabilities, `make compounds`). Unnamed, the
    /// first of the places the models are looked for that holds it
    /// (`./models/german-compounds` first). Without it German compounds
    /// are read whole, and the server says so.
    #[arg(long, env = "KENNING_COMPOUNDS_DIR")]
    compounds_dir: Option<PathBuf>,
}

impl CompoundsArgs {
    /// The directory named, else the first of `places` that holds the data.
    pub fn dir(self, places: &[PathBuf]) -> Option<PathBuf> {
        self.compounds_dir
            .or_else(|| places.iter().find(|dir| Compounds::present(dir)).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_named_else_the_first_place_holding_the_data() {
        let root = std::env::temp_dir().join(format!("kenning-compounds-{}", std::process::id()));
        let (empty, held) = (root.join("empty"), root.join("held"));
        std::fs::create_dir_all(&empty).unwrap();
        std::fs::create_dir_all(&held).unwrap();
        std::fs::write(held.join(kenning_keyphrase::COMPOUNDS_FILE), "{}").unwrap();
        let unnamed = || CompoundsArgs {
            compounds_dir: None,
        };
        let places = [empty.clone(), held.clone()];
        assert_eq!(unnamed().dir(&places), Some(held.clone()));
        assert_eq!(unnamed().dir(&places[..1]), None, "read whole");
        let named = CompoundsArgs {
            compounds_dir: Some(empty.clone()),
        };
        assert_eq!(named.dir(&places), Some(empty), "named, even empty");
        std::fs::remove_dir_all(root).unwrap();
    }
}
