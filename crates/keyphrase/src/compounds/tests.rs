//! The splitter on real German words, with the data `make compounds`
//! fetches into `KENNING_TEST_COMPOUNDS_DIR` (`make test` sets it);
//! without it these tests are compiled as ignored (the build script).

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use kenning_domain::TextFormat;
use kenning_ports::TopicExtractor;

use super::*;
use crate::language::Languages;
use crate::KeyphraseExtractor;

static COMPOUNDS: LazyLock<Arc<Compounds>> = LazyLock::new(|| {
    let dir = std::env::var_os("KENNING_TEST_COMPOUNDS_DIR")
        .map(PathBuf::from)
        .expect("KENNING_TEST_COMPOUNDS_DIR was set when the tests were built, and is not now");
    Arc::new(Compounds::load(&dir).expect("the compound data make compounds fetches"))
});

static LANGUAGES: LazyLock<Languages> = LazyLock::new(Languages::new);

fn parts(word: &str) -> Vec<String> {
    COMPOUNDS.parts(word, LANGUAGES.pick("", Some("de")))
}

#[test]
#[cfg_attr(
    kenning_no_compounds,
    ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)"
)]
fn compounds_are_cut_into_the_words_they_are_made_of() {
    assert_eq!(parts("Zollanmeldungen"), ["zoll", "anmeldungen"]);
    assert_eq!(
        parts("Zollanmeldeformular"),
        ["zollanmelde", "zoll", "anmelde", "formular"]
    );
    assert_eq!(
        parts("Sauerteigbrot"),
        ["sauerteig", "sauer", "teig", "brot"]
    );
    assert_eq!(parts("Sauerteig"), ["sauer", "teig"]);
    assert_eq!(
        parts("Bundesverfassungsgericht"),
        ["bundes", "verfassungsgericht", "verfassungs", "gericht"]
    );
    assert_eq!(parts("Krankenversicherung"), ["kranken", "versicherung"]);
    assert_eq!(parts("Datenschutz"), ["daten", "schutz"]);
    assert_eq!(parts("Steuererklärung"), ["steuer", "erklärung"]);
}

#[test]
#[cfg_attr(
    kenning_no_compounds,
    ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)"
)]
fn a_hyphenated_compound_is_read_in_its_pieces_and_their_parts() {
    assert_eq!(
        parts("Datenschutz-Folgenabschätzung"),
        [
            "datenschutz",
            "daten",
            "schutz",
            "folgenabschätzung",
            "folgen",
            "abschätzung"
        ]
    );
}

#[test]
#[cfg_attr(
    kenning_no_compounds,
    ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)"
)]
fn derived_and_prefixed_words_stay_whole() {
    // A prefix or a suffix is no word: "Ver-antwortung", "Wirt-schaft",
    // "Mit-arbeiter" (a function word), "Unter-nehmen".
    for word in [
        "Verantwortung",
        "Mitarbeiter",
        "Mitarbeiterin",
        "Versicherung",
        "Wirtschaft",
        "Gesellschaft",
        "Wissenschaft",
        "Sicherheit",
        "Regierung",
        "Unternehmen",
        "Entwicklung",
        "Anmeldung",
        "Ausbildung",
        "Kubernetes",
        "Zoll",
    ] {
        assert_eq!(parts(word), Vec::<String>::new(), "{word}");
    }
}

#[test]
#[cfg_attr(
    kenning_no_compounds,
    ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)"
)]
fn a_german_text_counts_its_compounds_parts_among_its_words_and_keeps_its_topics() {
    let text = "Ich bereite jede Woche Zollanmeldungen vor. Die Zollanmeldungen \
                gehen an das Hauptzollamt, und bei Fragen zur Zollanmeldung helfe ich gern.";
    let whole = KeyphraseExtractor::new().extract(text, TextFormat::Plain, None, 10);
    let split = KeyphraseExtractor::with_compounds(COMPOUNDS.clone()).extract(
        text,
        TextFormat::Plain,
        None,
        10,
    );
    assert_eq!(split.language, "de");
    assert_eq!(split.topics, whole.topics, "the topics are read as before");
    let count = |key: &str| split.words.iter().find(|w| w.key == key).map(|w| w.count);
    assert_eq!(count("zollanmeld"), Some(3), "the whole word stays");
    assert_eq!(count("zoll"), Some(3));
    assert_eq!(count("anmeld"), Some(3));
    let part = split.words.iter().find(|w| w.key == "anmeld");
    assert_eq!(part.map(|w| w.label.as_str()), Some("anmeldungen"));
    for word in &whole.words {
        assert!(
            split
                .words
                .iter()
                .any(|w| w.key == word.key && w.count >= word.count),
            "{word:?} kept"
        );
    }
    assert!(
        split.words.windows(2).all(|w| w[0].count >= w[1].count),
        "most frequent first: {:?}",
        split.words
    );
}

#[test]
#[cfg_attr(
    kenning_no_compounds,
    ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)"
)]
fn other_languages_are_read_as_before() {
    let text = "The customs declaration software handles datenschutz and zollanmeldungen \
                for the whole team, and the team reviews every declaration.";
    let extractor = KeyphraseExtractor::with_compounds(COMPOUNDS.clone());
    let english = extractor.extract(text, TextFormat::Plain, None, 10);
    assert_eq!(english.language, "en");
    assert_eq!(
        english,
        KeyphraseExtractor::new().extract(text, TextFormat::Plain, None, 10)
    );
}

#[test]
#[cfg_attr(
    kenning_no_compounds,
    ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)"
)]
fn a_german_question_asks_for_the_parts_too() {
    let extractor = KeyphraseExtractor::with_compounds(COMPOUNDS.clone());
    let question = extractor.question("Wer kennt sich mit Zollanmeldungen aus?");
    let read = extractor.extract(&question.subject, TextFormat::Plain, Some("de"), 5);
    let keys: Vec<&str> = read.words.iter().map(|w| w.key.as_str()).collect();
    assert_eq!(keys, ["zollanmeld", "zoll", "anmeld"]);
}

#[test]
fn without_data_the_directory_says_so() {
    let nowhere = std::env::temp_dir().join("kenning-no-compounds-here");
    assert!(!Compounds::present(&nowhere));
    assert!(matches!(
        Compounds::load(&nowhere),
        Err(CompoundsError::Read { .. })
    ));
}
