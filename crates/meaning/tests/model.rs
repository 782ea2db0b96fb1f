//! The models and the static vectors as `make model` leaves them in
//! `KENNING_TEST_MODEL_DIR` and `KENNING_TEST_MULTILINGUAL_DIR` (`make
//! test` sets both); without them these tests are compiled as ignored
//! (the build script), and cargo counts them as not run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use kenning_meaning::{
    load_or_distil, Quantised, StaticVectors, Transformer, QUANTISED_FILE, STATIC_FILE,
};
use kenning_ports::Embedder;

/// The folder the variable names: set, since the build script ignores
/// these tests without it.
fn dir_of(variable: &str) -> PathBuf {
    std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("{variable} was set when the tests were built, and is not now"))
}

fn model_dir() -> PathBuf {
    dir_of("KENNING_TEST_MODEL_DIR")
}

fn similarity(embedder: &dyn Embedder, a: &str, b: &str) -> f32 {
    let (a, b) = (embedder.embed(a).unwrap(), embedder.embed(b).unwrap());
    a.iter().zip(&b).map(|(x, y)| x * y).sum()
}

/// What every embedder of the model must get right.
fn means_what_people_mean(embedder: &dyn Embedder) {
    let car = embedder.embed("car").unwrap();
    assert_eq!(car.len(), embedder.dimensions());
    let norm: f32 = car.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "unit length: {norm}");

    let (near, far) = (
        similarity(embedder, "car", "automobile"),
        similarity(embedder, "car", "banana"),
    );
    assert!(near > far, "car~automobile {near}, car~banana {far}");
    let floor = embedder.related_above(&car);
    assert!(
        far < floor && floor < near,
        "related above {floor}: automobile {near}, banana {far}"
    );
    assert!(
        similarity(embedder, "physician", "doctor") > similarity(embedder, "physician", "river")
    );
    assert_eq!(embedder.embed(""), None, "no token, no meaning");
    let all = embedder.embed_all(&["car", ""]);
    assert_eq!(all[0].as_deref(), Some(car.as_slice()));
    assert_eq!(all[1], None);
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run (make test does)"
)]
fn the_model_reads_meaning() {
    let dir = model_dir();
    let model = Transformer::load(&dir).unwrap();
    assert_eq!(model.model(), "all-minilm-l6-v2");
    means_what_people_mean(&model);
    let long = "word ".repeat(1_000);
    assert!(
        model.embed(&long).is_some(),
        "a long text is cut, not refused"
    );
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run (make test does)"
)]
fn the_static_vectors_read_meaning_and_keep_it_when_written_again() {
    let dir = model_dir();
    let vectors = StaticVectors::load(&dir).unwrap();
    assert_eq!(vectors.model(), "all-minilm-l6-v2");
    means_what_people_mean(&vectors);

    // The model is named after its directory.
    let root = std::env::temp_dir().join(format!("kenning-static-{}", std::process::id()));
    let copy = root.join("all-minilm-l6-v2");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(dir.join("tokenizer.json"), copy.join("tokenizer.json")).unwrap();
    vectors.save(&copy).unwrap();
    let again = StaticVectors::load(&copy).unwrap();
    for text in ["car", "quantum error correction", "Kubernetes"] {
        assert_eq!(again.embed(text), vectors.embed(text), "{text}");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run (make test does)"
)]
fn a_first_start_distils_the_static_vectors_once_and_reads_them_after() {
    let dir = model_dir();
    // The fetched model without its static vectors, as a fresh `make run`
    // leaves it.
    let root = std::env::temp_dir().join(format!("kenning-distil-{}", std::process::id()));
    let fetched = root.join("all-minilm-l6-v2");
    std::fs::create_dir_all(&fetched).unwrap();
    for file in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::os::unix::fs::symlink(dir.join(file), fetched.join(file)).unwrap();
    }
    assert!(!fetched.join(STATIC_FILE).exists());
    let distilled = load_or_distil(&fetched).unwrap();
    means_what_people_mean(&distilled);
    let written = std::fs::metadata(fetched.join(STATIC_FILE)).unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(&fetched)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The next start reads what the first wrote.
    let read = load_or_distil(&fetched).unwrap();
    assert_eq!(
        std::fs::metadata(fetched.join(STATIC_FILE))
            .unwrap()
            .modified()
            .unwrap(),
        written.modified().unwrap()
    );
    for text in ["car", "quantum error correction"] {
        assert_eq!(read.embed(text), distilled.embed(text), "{text}");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run (make test does)"
)]
fn the_multilingual_model_reads_meaning_across_languages() {
    let dir = dir_of("KENNING_TEST_MULTILINGUAL_DIR");
    let model = Quantised::load(&dir).unwrap();
    assert_eq!(model.model(), "multilingual-e5-small");
    means_what_people_mean(&model);
    // The package's own engine gives "hello world" (as a query) these
    // first values; it quantises activations too, so they agree closely,
    // not exactly.
    let engine = [
        0.04471, 0.02025, -0.04249, -0.05341, 0.06516, -0.04981, 0.00891, 0.07446,
    ];
    let hello = model.embed("hello world").unwrap();
    for (ours, theirs) in hello.iter().zip(engine) {
        assert!(
            (ours - theirs).abs() < 0.01,
            "{:?} against {engine:?}",
            &hello[..8]
        );
    }
    // What the English model gets wrong: a German word read by its meaning.
    for (word, right, wrong) in [
        ("Datenschutz", "data protection", "date picker"),
        ("Mehrwertsteuer", "value added tax", "transparency"),
        ("Barrierefreiheit", "accessibility", "transparency"),
        ("sécurité", "security", "cooking"),
    ] {
        let (near, far) = (
            similarity(&model, word, right),
            similarity(&model, word, wrong),
        );
        assert!(near > far, "{word}: {right} {near}, {wrong} {far}");
    }
    let long = "Wort ".repeat(1_000);
    assert!(
        model.embed(&long).is_some(),
        "a long text is cut, not refused"
    );
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run (make test does)"
)]
fn each_model_spells_the_words_of_its_languages_with_fewest_pieces() {
    let english = Transformer::load(&model_dir()).unwrap();
    let vectors = StaticVectors::load(&model_dir()).unwrap();
    let many = Quantised::load(&dir_of("KENNING_TEST_MULTILINGUAL_DIR")).unwrap();
    // Word, its pieces in the English model, in the multilingual one.
    let expected = [
        ("payroll", 1, 2),
        ("protection", 1, 1),
        ("Datenschutz", 4, 1),
        ("datenschutz", 4, 1),
        ("sécurité", 3, 1),
        ("Barrierefreiheit", 5, 3),
        ("k8s", 3, 3),
    ];
    let read: Vec<(&str, usize, usize)> = expected
        .iter()
        .map(|(word, _, _)| (*word, english.pieces(word), many.pieces(word)))
        .collect();
    assert_eq!(read, expected);
    for (word, _, _) in expected {
        assert_eq!(vectors.pieces(word), english.pieces(word), "{word}");
    }
}

#[test]
fn a_model_directory_without_its_files_is_refused_with_the_file_named() {
    let empty = std::env::temp_dir().join(format!("kenning-no-model-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let refused = StaticVectors::load(&empty).unwrap_err().to_string();
    assert!(refused.contains(STATIC_FILE), "{refused}");
    let refused = Transformer::load(&empty).unwrap_err().to_string();
    assert!(refused.contains("config.json"), "{refused}");
    let refused = Quantised::load(&empty).unwrap_err().to_string();
    assert!(refused.contains(QUANTISED_FILE), "{refused}");
    std::fs::write(empty.join(STATIC_FILE), b"not tensors").unwrap();
    let refused = StaticVectors::load(&empty).unwrap_err().to_string();
    assert!(refused.contains("not a model Kenning can run"), "{refused}");
    std::fs::remove_dir_all(&empty).unwrap();
}
