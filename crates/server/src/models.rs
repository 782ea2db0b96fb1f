//! Where the text-embedding model is found when no directory is named: a
//! binary installed elsewhere (`cargo install`, `make install`) finds the
//! model where `make install` puts it, beside the database, or where
//! `make model` fetched it in the folder `kenning` runs in.

use std::path::{Path, PathBuf};

use kenning_store_diesel::Location;

/// The folder name of the model Kenning runs by default, under each place
/// a model is looked for (`make model` fetches it as
/// `models/all-minilm-l6-v2`).
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";

/// The folder name of the multilingual model that reads the questions
/// asked in other languages than English by default (`make model` fetches
/// it as `models/use-multilingual-v3`).
pub const OTHER_LANGUAGES_MODEL: &str = "use-multilingual-v3";

/// The folder models are kept in under each place.
const MODELS: &str = "models";

/// The places a model named `name` is looked for, in order: `./models`
/// (where `make model` fetches it), `models` beside a SQLite database of
/// `database_url`, then `kenning/models` in the user's data folder
/// (`data_home`: `$XDG_DATA_HOME`, else `~/.local/share`), where `make
/// install` puts it. Each place once.
pub fn model_places(name: &str, database_url: &str, data_home: Option<&Path>) -> Vec<PathBuf> {
    let mut places = vec![PathBuf::from(MODELS).join(name)];
    if let Ok(Location::Sqlite(path)) = Location::parse(database_url) {
        if let Some(folder) = Path::new(&path).parent() {
            places.push(folder.join(MODELS).join(name));
        }
    }
    if let Some(home) = data_home {
        places.push(home.join("kenning").join(MODELS).join(name));
    }
    let mut unique = Vec::with_capacity(places.len());
    for place in places {
        if !unique.contains(&place) {
            unique.push(place);
        }
    }
    unique
}

/// The user's data folder: `$XDG_DATA_HOME`, else `~/.local/share`, when
/// absolute.
pub fn data_home() -> Option<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute("XDG_DATA_HOME").or_else(|| absolute("HOME").map(|h| h.join(".local/share")))
}

/// The model directory to run: `named` when given, else the first of
/// `places` that holds a model; `Err` with the places looked in when none
/// does.
pub fn model_dir(named: Option<PathBuf>, places: &[PathBuf]) -> Result<PathBuf, String> {
    if let Some(dir) = named {
        return Ok(dir);
    }
    places
        .iter()
        .find(|dir| kenning_meaning::holds_model(dir))
        .cloned()
        .ok_or_else(|| {
            let looked: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
            format!("no model in {}", looked.join(", "))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_looked_for_here_beside_the_database_then_in_the_data_folder() {
        let places = model_places(
            "m",
            "sqlite:///srv/kenning/kenning.db",
            Some(Path::new("/home/a/.local/share")),
        );
        assert_eq!(
            places,
            vec![
                PathBuf::from("models/m"),
                PathBuf::from("/srv/kenning/models/m"),
                PathBuf::from("/home/a/.local/share/kenning/models/m"),
            ]
        );
        // The default database lies in the data folder: one place, once.
        let places = model_places(
            "m",
            "/home/a/.local/share/kenning/kenning.db",
            Some(Path::new("/home/a/.local/share")),
        );
        assert_eq!(places.len(), 2, "{places:?}");
        // PostgreSQL has no folder.
        let places = model_places("m", "postgres://db.example/kenning", None);
        assert_eq!(places, vec![PathBuf::from("models/m")]);
    }

    #[test]
    fn the_first_place_holding_a_model_is_run() {
        let root = std::env::temp_dir().join(format!("kenning-models-{}", std::process::id()));
        let (empty, english, multilingual) =
            (root.join("empty"), root.join("english"), root.join("e5"));
        for dir in [&empty, &english, &multilingual] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(english.join("config.json"), "{}").unwrap();
        std::fs::write(english.join("model.safetensors"), "").unwrap();
        std::fs::write(multilingual.join(kenning_meaning::QUANTISED_FILE), "").unwrap();
        // A config without weights is no model.
        std::fs::write(empty.join("config.json"), "{}").unwrap();

        let places = vec![empty.clone(), multilingual.clone(), english.clone()];
        assert_eq!(model_dir(None, &places), Ok(multilingual.clone()));
        assert_eq!(model_dir(None, &places[2..]), Ok(english.clone()));
        let none = model_dir(None, &places[..1]).unwrap_err();
        assert!(none.contains(&empty.display().to_string()), "{none}");
        // A directory named is run as named, model or not.
        assert_eq!(model_dir(Some(empty.clone()), &places), Ok(empty));
        std::fs::remove_dir_all(root).unwrap();
    }
}
