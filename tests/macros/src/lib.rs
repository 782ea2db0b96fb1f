//! Attributes that turn one test function into a test per backend, written
//! on the function itself, so a test is registered where it is defined and
//! there is no list to forget it in.
//!
//! Each attribute keeps the function as written and adds, next to it, a
//! module of the same name with one `#[test]` per backend. The PostgreSQL
//! test is ignored when the package is built with the `kenning_no_postgres`
//! cfg (the `tests` package's build script sets it when
//! `KENNING_TEST_POSTGRES_URL` is unset), so cargo's summary counts it as
//! not run. Only the standard `proc_macro` API is used: the attributes read
//! no more of the item than the name after `fn`.

use proc_macro::{Delimiter, TokenStream, TokenTree};

/// The attribute on the PostgreSQL test.
const IGNORED_WITHOUT_POSTGRES: &str =
    r#"#[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]"#;

/// The attribute on a test that needs the text-embedding model.
const IGNORED_WITHOUT_MODEL: &str = r#"#[cfg_attr(kenning_no_model, ignore = "set KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run (make test does)")]"#;

/// The attribute on the PostgreSQL test that needs the model too.
const IGNORED_WITHOUT_POSTGRES_OR_MODEL: &str = r#"#[cfg_attr(any(kenning_no_postgres, kenning_no_model), ignore = "set KENNING_TEST_POSTGRES_URL, KENNING_TEST_MODEL_DIR and KENNING_TEST_MULTILINGUAL_DIR to run")]"#;

/// The attribute on a test that needs the German compound data.
const IGNORED_WITHOUT_COMPOUNDS: &str = r#"#[cfg_attr(kenning_no_compounds, ignore = "set KENNING_TEST_COMPOUNDS_DIR to run (make test does)")]"#;

/// The attribute on the PostgreSQL test that needs the compound data too.
const IGNORED_WITHOUT_POSTGRES_OR_COMPOUNDS: &str = r#"#[cfg_attr(any(kenning_no_postgres, kenning_no_compounds), ignore = "set KENNING_TEST_POSTGRES_URL and KENNING_TEST_COMPOUNDS_DIR to run")]"#;

/// `fn name(backend: Backend)` in the HTTP API tests becomes tests
/// `name::sqlite` and `name::postgres`, each calling `name` with its
/// `kenning_tests::db::Backend`. `#[on_every_backend(needs_model)]` marks
/// both ignored when the package is built with the `kenning_no_model` cfg
/// too (`KENNING_TEST_MODEL_DIR` unset), `needs_compounds` with the
/// `kenning_no_compounds` cfg (`KENNING_TEST_COMPOUNDS_DIR` unset).
#[proc_macro_attribute]
pub fn on_every_backend(args: TokenStream, item: TokenStream) -> TokenStream {
    let (sqlite, postgres) = match args.to_string().trim() {
        "" => ("", IGNORED_WITHOUT_POSTGRES),
        "needs_model" => (IGNORED_WITHOUT_MODEL, IGNORED_WITHOUT_POSTGRES_OR_MODEL),
        "needs_compounds" => (
            IGNORED_WITHOUT_COMPOUNDS,
            IGNORED_WITHOUT_POSTGRES_OR_COMPOUNDS,
        ),
        other => {
            let known = "nothing, `needs_model` or `needs_compounds`";
            return compile_error(&format!("#[on_every_backend] takes {known}, not `{other}`"));
        }
    };
    expand(TokenStream::new(), item, "on_every_backend", |name| {
        format!(
            "#[test] {sqlite} fn sqlite() {{ super::{name}(::kenning_tests::db::Backend::Sqlite); }}
             #[test] {postgres}
             fn postgres() {{ super::{name}(::kenning_tests::db::Backend::Postgres); }}"
        )
    })
}

/// `fn name(store: Arc<impl Store>)`, a check of the storage contract,
/// becomes tests `name::memory`, `name::sqlite` and `name::postgres`.
/// Each asks the function of its adapter in the sibling module `adapters`
/// (`adapters::memory(test)`, ...) for a fresh store and a guard that
/// lives as long as the test, or `None` when the backend is not there,
/// and runs the check on that store.
#[proc_macro_attribute]
pub fn contract_check(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args, item, "contract_check", |name| {
        ["memory", "sqlite", "postgres"]
            .iter()
            .map(|adapter| {
                let ignore = if *adapter == "postgres" {
                    IGNORED_WITHOUT_POSTGRES
                } else {
                    ""
                };
                format!(
                    "#[test] {ignore} fn {adapter}() {{
                         if let Some((store, _guard)) = super::adapters::{adapter}({name:?}) {{
                             super::{name}(store);
                         }}
                     }}"
                )
            })
            .collect()
    })
}

/// The item followed by `mod <its name> { <tests(name)> }`, or a compile
/// error that says what is wrong.
fn expand(
    args: TokenStream,
    item: TokenStream,
    attribute: &str,
    tests: impl Fn(&str) -> String,
) -> TokenStream {
    if !args.is_empty() {
        return compile_error(&format!("#[{attribute}] takes no arguments"));
    }
    let Some(name) = fn_name(&item) else {
        return compile_error(&format!("#[{attribute}] goes on a function"));
    };
    let module = format!("mod {name} {{ {} }}", tests(&name));
    match module.parse::<TokenStream>() {
        Ok(module) => item.into_iter().chain(module).collect(),
        Err(e) => compile_error(&format!("#[{attribute}] made no valid tests: {e}")),
    }
}

/// The identifier after the item's `fn` keyword, if it is a function.
fn fn_name(item: &TokenStream) -> Option<String> {
    let mut tokens = item.clone().into_iter();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Ident(ident) if ident.to_string() == "fn" => {
                return match tokens.next() {
                    Some(TokenTree::Ident(name)) => Some(name.to_string()),
                    _ => None,
                };
            }
            // The body: no `fn` of the item's own comes after it.
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => return None,
            _ => {}
        }
    }
    None
}

fn compile_error(message: &str) -> TokenStream {
    format!("compile_error!({message:?});")
        .parse()
        .unwrap_or_default()
}
