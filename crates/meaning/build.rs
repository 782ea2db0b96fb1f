//! For the model's tests only: sets `kenning_no_model` when
//! `KENNING_TEST_MODEL_DIR`, `KENNING_TEST_MULTILINGUAL_DIR` or
//! `KENNING_TEST_E5_DIR` is unset or empty, so those tests are compiled
//! as ignored and cargo's summary counts them ("N ignored") instead of
//! passing tests that checked nothing. Set, they run and fail when the
//! folder holds no model. Cargo rebuilds when one of them changes. The
//! library looks at none of them.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kenning_no_model)");
    let mut unset = false;
    for variable in [
        "KENNING_TEST_MODEL_DIR",
        "KENNING_TEST_MULTILINGUAL_DIR",
        "KENNING_TEST_E5_DIR",
    ] {
        println!("cargo::rerun-if-env-changed={variable}");
        unset |= std::env::var_os(variable).is_none_or(|dir| dir.is_empty());
    }
    if unset {
        println!("cargo::rustc-cfg=kenning_no_model");
    }
}
