//! No module of any crate depends on itself through others. Every crate
//! of the packages in `crates/`, `tools/` and `tests/` (each library,
//! binary, integration test, example and benchmark) is read from its
//! source: a module is a file, and a module depends on another when it
//! names it, or an item of it, by a path (`crate::a::b::Item`, `super::x`,
//! `self::child::y`, or a declared child's bare name `child::z`, grouped
//! imports included), each path counted toward the module that defines
//! what it names. That module is found as rust-analyzer finds it: through
//! the imports and re-exports of the modules the path passes (`pub use
//! child::Item`, `as` renames, globs), so `crate::Email` re-exported by the
//! root from `profile` is a use of `profile`, and an import is never a
//! definition. An item defined in the crate root (an inline module counts
//! as part of its file) is the root's, so a root that uses a child and a
//! child that uses `crate::Item` are a circle. Declaring `mod child;` is
//! no use of it. What is compiled only for tests (`#[cfg(test)]` items and inline
//! modules) is left out, and a test module's file may use its parents:
//! that is how a test reaches what it tests.

mod crates;
mod graph;
mod scan;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use graph::{Graph, Sources};

/// The workspace's files, as they are on disk.
struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        fs::read_to_string(path).ok()
    }
}

/// A crate to check: one target of a package, by its root file.
struct Target {
    name: String,
    root: PathBuf,
}

/// The packages whose crates are checked: each folder of `crates/` and
/// `tools/`, and the tests with their macros.
fn packages(workspace: &Path) -> Vec<PathBuf> {
    let mut packages = Vec::new();
    for folder in ["crates", "tools"] {
        let mut found: Vec<PathBuf> = fs::read_dir(workspace.join(folder))
            .unwrap_or_else(|e| panic!("cannot list {folder}/: {e}"))
            .map(|entry| entry.unwrap().path())
            .filter(|dir| dir.join("Cargo.toml").is_file())
            .collect();
        assert!(!found.is_empty(), "no package found in {folder}/");
        found.sort();
        packages.extend(found);
    }
    packages.push(workspace.join("tests"));
    packages.push(workspace.join("tests/macros"));
    packages
}

/// A package's crates, found where Cargo finds them: the library, the
/// binaries, the integration tests, the examples and the benchmarks.
fn targets(package: &Path) -> Vec<Target> {
    let manifest = fs::read_to_string(package.join("Cargo.toml")).unwrap();
    let name = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("name = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no package name in {}", package.display()))
        .to_owned();
    let mut targets = Vec::new();
    let mut add = |kind: &str, root: PathBuf| {
        if root.is_file() {
            targets.push(Target {
                name: format!("{name} {kind}"),
                root,
            });
        }
    };
    add("lib", package.join("src/lib.rs"));
    add("bin", package.join("src/main.rs"));
    for (folder, kind) in [
        ("src/bin", "bin"),
        ("tests", "test"),
        ("examples", "example"),
        ("benches", "bench"),
    ] {
        let Ok(entries) = fs::read_dir(package.join(folder)) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        entries.sort();
        for entry in entries {
            let stem = entry.file_stem().unwrap().to_string_lossy().into_owned();
            if entry.is_dir() {
                add(&format!("{kind} {stem}"), entry.join("main.rs"));
            } else if entry.extension().is_some_and(|e| e == "rs") {
                add(&format!("{kind} {stem}"), entry);
            }
        }
    }
    assert!(
        !targets.is_empty(),
        "no crate root found in {}",
        package.display()
    );
    targets
}

/// The circles of one crate, one a paragraph: the modules in order, then
/// where each dependency of the circle is written.
fn describe(workspace: &Path, target: &Target, graph: &Graph, circles: &[Vec<usize>]) -> String {
    let shown = |file: &Path| {
        file.strip_prefix(workspace)
            .unwrap_or(file)
            .display()
            .to_string()
    };
    let mut text = format!(
        "{} ({}): {} circle(s)\n",
        target.name,
        shown(&target.root),
        circles.len()
    );
    for circle in circles {
        let mut names: Vec<String> = circle.iter().map(|&m| graph.name(m)).collect();
        names.push(graph.name(circle[0]));
        writeln!(text, "  {}", names.join(" -> ")).unwrap();
        for (i, &from) in circle.iter().enumerate() {
            let to = circle[(i + 1) % circle.len()];
            let evidence = &graph.edges[&(from, to)];
            writeln!(
                text,
                "      {} -> {}: {}:{} `{}`",
                graph.name(from),
                graph.name(to),
                shown(&evidence.file),
                evidence.line,
                evidence.path
            )
            .unwrap();
        }
    }
    text
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut report = String::new();
    let mut modules = 0;
    for package in packages(workspace) {
        for target in targets(&package) {
            let graph =
                Graph::load(&target.root, &Disk).unwrap_or_else(|e| panic!("{}: {e}", target.name));
            modules += graph.modules.len();
            let circles = graph.circles();
            if !circles.is_empty() {
                report.push_str(&describe(workspace, &target, &graph, &circles));
            }
        }
    }
    assert!(
        modules > 100,
        "only {modules} modules read: the scan missed the crates"
    );
    assert!(
        report.is_empty(),
        "modules that depend on themselves:\n\n{report}"
    );
}

/// The checker itself, on made-up sources.
mod checker {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use super::graph::{Graph, Sources};

    /// Made-up source files.
    struct Files(HashMap<PathBuf, String>);

    impl Sources for Files {
        fn read(&self, path: &Path) -> Option<String> {
            self.0.get(path).cloned()
        }
    }

    fn circles_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let files = Files(
            files
                .iter()
                .map(|(path, text)| (PathBuf::from(path), (*text).to_owned()))
                .collect(),
        );
        let graph = Graph::load(Path::new("src/lib.rs"), &files).unwrap();
        graph
            .circles()
            .into_iter()
            .map(|circle| circle.into_iter().map(|m| graph.name(m)).collect())
            .collect()
    }

    fn assert_no_circle(files: &[(&str, &str)]) {
        let circles = circles_of(files);
        assert!(circles.is_empty(), "{circles:?}");
    }

    #[test]
    fn a_child_using_the_root_that_uses_it_is_a_circle() {
        let circles = circles_of(&[
            (
                "src/lib.rs",
                "mod a;\npub use a::Thing;\npub struct Root;\n",
            ),
            ("src/a.rs", "use crate::Root;\npub struct Thing(Root);\n"),
        ]);
        assert_eq!(circles, [["crate", "crate::a"]]);
    }

    #[test]
    fn a_circle_through_three_modules_and_grouped_imports_is_found() {
        let circles = circles_of(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use crate::{b::{self, B}, Missing};\n"),
            ("src/b.rs", "pub fn f() { super::c::g() }\n"),
            ("src/c/mod.rs", "mod d;\nuse self::d::D;\n"),
            ("src/c/d.rs", "use crate::a::A;\n"),
        ]);
        assert_eq!(
            circles,
            [["crate::a", "crate::b", "crate::c", "crate::c::d"]]
        );
    }

    #[test]
    fn a_re_exported_item_is_its_defining_modules() {
        assert_no_circle(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\nmod c;\n\
                 pub use a::{Thing, Other as Renamed};\npub(crate) use b::*;\n\
                 use c::Private;\npub use a::Nested;\n",
            ),
            (
                "src/a.rs",
                "mod deep;\npub use deep::Nested;\npub struct Thing;\npub enum Other { One }\n\
                 fn uses() { crate::Renamed::One; }\n",
            ),
            ("src/a/deep.rs", "pub struct Nested;\n"),
            (
                "src/b.rs",
                "pub fn globbed() {}\nuse crate::{Thing, Nested};\n",
            ),
            (
                "src/c.rs",
                "pub struct Private;\nfn f() { crate::globbed(); crate::Private; }\n",
            ),
        ]);
    }

    #[test]
    fn a_root_item_used_by_a_child_the_root_uses_is_a_circle() {
        let circles = circles_of(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\npub use a::Thing;\nuse b::Helper;\n\
                 pub fn root_item() {}\n",
            ),
            (
                "src/a.rs",
                "pub struct Thing;\nfn f() { crate::root_item() }\n",
            ),
            (
                "src/b.rs",
                "pub struct Helper;\nfn f() { crate::Helper; }\n",
            ),
        ]);
        assert_eq!(circles, [["crate", "crate::a"]]);
    }

    #[test]
    fn an_item_imported_from_another_crate_is_no_modules() {
        assert_no_circle(&[
            (
                "src/lib.rs",
                "mod a;\npub use a::Thing;\npub use other_crate::Error;\n",
            ),
            (
                "src/a.rs",
                "pub struct Thing;\nfn f() -> crate::Error { todo!() }\n",
            ),
        ]);
    }

    #[test]
    fn declaring_a_child_is_no_use_of_it() {
        assert_no_circle(&[
            ("src/lib.rs", "mod a;\npub struct Root;\n"),
            ("src/a.rs", "use crate::Root;\n"),
        ]);
    }

    #[test]
    fn test_modules_may_use_their_parents() {
        assert_no_circle(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\npub use a::A;\n\
                 #[cfg(test)]\nmod tests {\n    use crate::a::A;\n    use super::*;\n}\n\
                 #[cfg(test)]\nfn helper() -> b::B { b::B }\n",
            ),
            (
                "src/a.rs",
                "pub struct A;\n#[cfg(test)]\nmod tests;\n\
                 #[cfg(test)]\nmod inline {\n    use crate::b::B;\n}\n",
            ),
            ("src/a/tests.rs", "use super::*;\nuse crate::A;\n"),
            ("src/b.rs", "pub struct B;\nuse crate::A;\n"),
        ]);
    }

    #[test]
    fn comments_and_strings_name_no_module() {
        assert_no_circle(&[
            ("src/lib.rs", "mod a;\npub use a::A;\n"),
            (
                "src/a.rs",
                "//! Read by [`crate::A`].\n/// See `crate::A`.\n/* crate::A /* nested */ crate::A */\n\
                 pub struct A;\nconst S: &str = \"crate::A\";\nconst R: &str = r#\"super::A\"#;\n\
                 const C: char = '\"';\nfn f<'a>(x: &'a str) -> &'a str { x }\n",
            ),
        ]);
    }

    #[test]
    fn an_inline_module_reaches_its_file_by_super() {
        assert_no_circle(&[
            ("src/lib.rs", "mod a;\npub use a::A;\n"),
            (
                "src/a.rs",
                "pub struct A;\npub use inner::B;\nmod inner {\n    use super::A;\n    pub struct B(A);\n}\n",
            ),
        ]);
    }

    #[test]
    fn a_module_without_its_file_is_an_error() {
        let files = Files(HashMap::from([(
            PathBuf::from("src/lib.rs"),
            "mod gone;\n".to_owned(),
        )]));
        let error = Graph::load(Path::new("src/lib.rs"), &files).unwrap_err();
        assert!(error.contains("mod gone;"), "{error}");
    }
}
