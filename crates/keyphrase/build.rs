//! For the compound splitter's tests only: sets `kenning_no_compounds`
//! when `KENNING_TEST_COMPOUNDS_DIR` is unset or empty, so the tests that
//! need the data `make compounds` fetches are compiled as ignored and
//! cargo's summary counts them instead of passing tests that checked
//! nothing. Set, they run and fail when the folder holds no data. Cargo
//! rebuilds when it changes. The library never looks at it.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kenning_no_compounds)");
    println!("cargo::rerun-if-env-changed=KENNING_TEST_COMPOUNDS_DIR");
    if std::env::var_os("KENNING_TEST_COMPOUNDS_DIR").is_none_or(|dir| dir.is_empty()) {
        println!("cargo::rustc-cfg=kenning_no_compounds");
    }
}
