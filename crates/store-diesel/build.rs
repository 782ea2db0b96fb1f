//! Rebuilds the crate when a migration is added, changed or removed:
//! `embed_migrations!` reads the folders at compile time, and cargo does
//! not otherwise know they are inputs.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations/sqlite");
    println!("cargo:rerun-if-changed=../../migrations/postgres");
}
