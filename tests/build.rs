//! Sets `kenning_no_postgres` when `KENNING_TEST_POSTGRES_URL` is unset or
//! empty, so the PostgreSQL variants of the tests are compiled as ignored,
//! and `kenning_no_model` when `KENNING_TEST_MODEL_DIR` or
//! `KENNING_TEST_MULTILINGUAL_DIR` is, so are the tests of finding topics
//! by meaning, and `kenning_no_compounds` when `KENNING_TEST_COMPOUNDS_DIR`
//! is, so are the tests of German compounds: cargo's summary counts them
//! ("N ignored") instead of passing tests that checked nothing. Cargo rebuilds
//! when a variable changes.

fn main() {
    let unset = |variables: &[&str]| {
        variables.iter().any(|variable| {
            println!("cargo::rerun-if-env-changed={variable}");
            std::env::var_os(variable).is_none_or(|value| value.is_empty())
        })
    };
    for (cfg, variables) in [
        ("kenning_no_postgres", &["KENNING_TEST_POSTGRES_URL"][..]),
        (
            "kenning_no_model",
            &["KENNING_TEST_MODEL_DIR", "KENNING_TEST_MULTILINGUAL_DIR"][..],
        ),
        ("kenning_no_compounds", &["KENNING_TEST_COMPOUNDS_DIR"][..]),
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if unset(variables) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
