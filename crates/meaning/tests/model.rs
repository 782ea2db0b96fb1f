//! The models and the static vectors as `make model` and `make model-e5`
//! leave them in `KENNING_TEST_MODEL_DIR`, `KENNING_TEST_MULTILINGUAL_DIR`
//! and `KENNING_TEST_E5_DIR` (`make test` sets all three); without them
//! these tests are compiled as ignored (the build script), and cargo
//! counts them as not run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use kenning_meaning::{
    load_model, load_or_distil, Quantised, StaticVectors, Transformer, Universal, ENCODER_FILE,
    PIECES_FILE, QUANTISED_FILE, STATIC_FILE,
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
    let noise = embedder.scale(&car).noise;
    assert!(
        far < noise && noise < near,
        "related above {noise}: automobile {near}, banana {far}"
    );
    assert!(
        similarity(embedder, "physician", "doctor") > similarity(embedder, "physician", "river")
    );
    assert_eq!(embedder.embed(""), None, "no token, no meaning");
    // A text embedded among others reads as alone (to rounding: a batch
    // may sum its products in another order).
    let all = embedder.embed_all(&["car", "", "automobile"]);
    let apart: f32 = all[0]
        .as_ref()
        .unwrap()
        .iter()
        .zip(&car)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(apart < 1e-5, "car apart by {apart} among others");
    assert_eq!(all[1], None);
}

/// What the English model gets wrong and a multilingual one must get
/// right: a word of another language read by its meaning; and a long
/// text is cut, not refused.
fn reads_other_languages(model: &dyn Embedder) {
    for (word, right, wrong) in [
        ("Datenschutz", "data protection", "date picker"),
        ("Mehrwertsteuer", "value added tax", "transparency"),
        ("Barrierefreiheit", "accessibility", "transparency"),
        ("sécurité", "security", "cooking"),
        ("la paie", "payroll", "kubernetes"),
    ] {
        let (near, far) = (
            similarity(model, word, right),
            similarity(model, word, wrong),
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
    ignore = "set KENNING_TEST_MODEL_DIR, KENNING_TEST_MULTILINGUAL_DIR and KENNING_TEST_E5_DIR to run (make test does)"
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
    ignore = "set KENNING_TEST_MODEL_DIR, KENNING_TEST_MULTILINGUAL_DIR and KENNING_TEST_E5_DIR to run (make test does)"
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
    ignore = "set KENNING_TEST_MODEL_DIR, KENNING_TEST_MULTILINGUAL_DIR and KENNING_TEST_E5_DIR to run (make test does)"
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
    ignore = "set KENNING_TEST_MODEL_DIR, KENNING_TEST_MULTILINGUAL_DIR and KENNING_TEST_E5_DIR to run (make test does)"
)]
fn the_e5_model_reads_meaning_across_languages() {
    let dir = dir_of("KENNING_TEST_E5_DIR");
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
    reads_other_languages(&model);
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR, KENNING_TEST_MULTILINGUAL_DIR and KENNING_TEST_E5_DIR to run (make test does)"
)]
fn the_multilingual_model_reads_meaning_across_languages() {
    let dir = dir_of("KENNING_TEST_MULTILINGUAL_DIR");
    let model = Universal::load(&dir).unwrap();
    assert_eq!(model.model(), "use-multilingual-v3");
    means_what_people_mean(&model);
    // The package's own engine (numpy, float32) gives these texts these
    // first values.
    let engine: [(&str, [f32; 6]); 3] = [
        (
            "Datenschutz",
            [0.10838, 0.04593, -0.01112, -0.01685, 0.04498, -0.0811],
        ),
        (
            "data protection",
            [0.10661, 0.06173, 0.0144, -0.01598, -0.05246, -0.08065],
        ),
        (
            "Wer kennt sich mit Datenschutz aus?",
            [-0.02183, 0.0477, 0.00318, 0.03818, -0.05213, -0.03312],
        ),
    ];
    for (text, theirs) in engine {
        let ours = model.embed(text).unwrap();
        for (a, b) in ours.iter().zip(theirs) {
            assert!(
                (a - b).abs() < 1e-4,
                "{text}: {:?} against {theirs:?}",
                &ours[..6]
            );
        }
    }
    // The same texts in one batch read as each alone.
    let batch = model.embed_all(&engine.map(|(text, _)| text)).unwrap();
    for ((text, _), vector) in engine.iter().zip(batch) {
        let alone = model.embed(text).unwrap();
        let vector = vector.unwrap();
        let apart: f32 = alone.iter().zip(&vector).map(|(a, b)| (a - b).abs()).sum();
        assert!(apart < 1e-3, "{text} apart by {apart} in a batch");
    }
    reads_other_languages(&model);
    // A text of characters the normaliser makes spaces has no meaning;
    // spaces at a text's ends change nothing.
    assert_eq!(model.embed("\u{200b}"), None);
    assert_eq!(model.embed("Datenschutz \n"), model.embed("Datenschutz"));
    // `load_model` knows the model by its files.
    assert_eq!(load_model(&dir).unwrap().model(), "use-multilingual-v3");
}

#[test]
#[cfg_attr(
    kenning_no_model,
    ignore = "set KENNING_TEST_MODEL_DIR, KENNING_TEST_MULTILINGUAL_DIR and KENNING_TEST_E5_DIR to run (make test does)"
)]
fn each_model_spells_the_words_of_its_languages_with_fewest_pieces() {
    let english = Transformer::load(&model_dir()).unwrap();
    let vectors = StaticVectors::load(&model_dir()).unwrap();
    let many = Universal::load(&dir_of("KENNING_TEST_MULTILINGUAL_DIR")).unwrap();
    let e5 = Quantised::load(&dir_of("KENNING_TEST_E5_DIR")).unwrap();
    // Word, its pieces in the English model, in the multilingual one, in
    // multilingual-e5-small.
    let expected = [
        ("payroll", 1, 2, 2),
        ("protection", 1, 1, 1),
        ("Datenschutz", 4, 2, 1),
        ("datenschutz", 4, 2, 1),
        ("sécurité", 3, 1, 1),
        ("Barrierefreiheit", 5, 3, 3),
        ("k8s", 3, 3, 3),
    ];
    let read: Vec<(&str, usize, usize, usize)> = expected
        .iter()
        .map(|(word, _, _, _)| {
            (
                *word,
                english.pieces(word),
                many.pieces(word),
                e5.pieces(word),
            )
        })
        .collect();
    assert_eq!(read, expected);
    for (word, _, _, _) in expected {
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
    let refused = Universal::load(&empty).unwrap_err().to_string();
    assert!(refused.contains(PIECES_FILE), "{refused}");
    std::fs::write(
        empty.join(PIECES_FILE),
        r#"{"pieces": ["a"], "scores": [], "unknown": 0, "first": 0, "last": 0, "normal": {}}"#,
    )
    .unwrap();
    let refused = Universal::load(&empty).unwrap_err().to_string();
    assert!(refused.contains("a piece without a score"), "{refused}");
    std::fs::write(
        empty.join(PIECES_FILE),
        r#"{"pieces": ["a"], "scores": [0.0], "unknown": 0, "first": 1, "last": 0, "normal": {}}"#,
    )
    .unwrap();
    let refused = Universal::load(&empty).unwrap_err().to_string();
    assert!(
        refused.contains("a special token beyond the pieces"),
        "{refused}"
    );
    std::fs::write(
        empty.join(PIECES_FILE),
        r#"{"pieces": ["a"], "scores": [0.0], "unknown": 0, "first": 0, "last": 0, "normal": {}}"#,
    )
    .unwrap();
    let refused = Universal::load(&empty).unwrap_err().to_string();
    assert!(refused.contains(ENCODER_FILE), "{refused}");
    std::fs::write(empty.join(ENCODER_FILE), b"not tensors").unwrap();
    let refused = Universal::load(&empty).unwrap_err().to_string();
    assert!(refused.contains("not a model Kenning can run"), "{refused}");
    std::fs::write(empty.join(STATIC_FILE), b"not tensors").unwrap();
    let refused = StaticVectors::load(&empty).unwrap_err().to_string();
    assert!(refused.contains("not a model Kenning can run"), "{refused}");
    std::fs::remove_dir_all(&empty).unwrap();
}
