//! German compounds read whole and in their parts, in uploads and in
//! questions, with the data `make compounds` fetches
//! (`KENNING_TEST_COMPOUNDS_DIR`; `make test` sets it).

use std::path::PathBuf;

use kenning_tests::app::{Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::{json, Value};

use crate::expertise::teach;

const EXPERTS: &str =
    "query experts($query: String!) { experts(query: $query) { score user { email } } }";

/// Writes of customs declarations in words apart: "Anmeldung beim Zoll".
const APART: &str = "Ich kümmere mich um die Anmeldung beim Zoll. Jede Anmeldung beim Zoll \
                     prüfe ich zweimal, bevor die Ware an der Grenze steht.";
/// Writes of them in a longer compound: "Zollanmeldeformular".
const LONGER: &str = "Das Zollanmeldeformular fülle ich für jede Lieferung aus. Beim \
                      Zollanmeldeformular helfe ich dem Lager gern.";
/// Writes of something else.
const BREAD: &str = "Ich backe jeden Morgen Brot mit Roggenmehl und Hefe. Das Brot verkaufen \
                     wir in der Bäckerei am Markt.";

fn compounds_dir() -> PathBuf {
    std::env::var_os("KENNING_TEST_COMPOUNDS_DIR")
        .map(PathBuf::from)
        .expect("KENNING_TEST_COMPOUNDS_DIR was set when the tests were built, and is not now")
}

/// The people `query` finds, best first, on a server reading compounds
/// with `compounds_dir`, taught the texts above.
fn found(backend: Backend, test: &str, compounds_dir: Option<PathBuf>, query: &str) -> Vec<String> {
    let options = Options {
        compounds_dir,
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, test, options) else {
        return Vec::new();
    };
    let key = app.api_key();
    for (email, first, text) in [
        ("zoe@example.com", "Zoe", APART),
        ("carla@example.com", "Carla", LONGER),
        ("ben@example.com", "Ben", BREAD),
    ] {
        app.create_user(email, first, "Muster");
        teach(&app, &key, email, "create", text);
    }
    let reply = app.graphql(EXPERTS, json!({ "query": query }));
    reply.json()["data"]["experts"]
        .as_array()
        .unwrap_or_else(|| panic!("experts failed: {}", reply.body))
        .iter()
        .map(|e: &Value| e["user"]["email"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A German question's compound finds the people who wrote its parts,
/// apart or in another compound; read whole, it finds nobody.
#[on_every_backend(needs_compounds)]
fn a_german_question_finds_who_wrote_its_compounds_parts(backend: Backend) {
    let query = "Wer kennt sich mit Zollanmeldungen für den Versand aus?";
    let mut people = found(
        backend,
        "a_german_question_finds_who_wrote_its_compounds_parts",
        Some(compounds_dir()),
        query,
    );
    people.sort();
    assert_eq!(people, ["carla@example.com", "zoe@example.com"]);
    let whole = found(
        backend,
        "a_german_question_finds_who_wrote_its_compounds_parts_whole",
        None,
        query,
    );
    assert!(whole.is_empty(), "read whole: {whole:?}");
}

/// A subject of one word is too short to tell its language by: the
/// question's German words have it read as German too, so its compound
/// gives its parts.
#[on_every_backend(needs_compounds)]
fn a_german_question_of_one_word_is_read_in_its_parts(backend: Backend) {
    let mut people = found(
        backend,
        "a_german_question_of_one_word_is_read_in_its_parts",
        Some(compounds_dir()),
        "Wer kennt sich mit Zollanmeldungen aus?",
    );
    people.sort();
    assert_eq!(people, ["carla@example.com", "zoe@example.com"]);
}
