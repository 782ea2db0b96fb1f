//! No crate reaches upward: each crate's Kenning dependencies, read from
//! its `Cargo.toml`, point inward along the hexagon. The domain depends on
//! nothing of Kenning; the ports on the domain; the use cases (`app`) and
//! the adapters that implement the ports (stores, clocks, the extractor,
//! the embedders, the webhook sender) on the domain and the ports alone;
//! the adapters that call the use cases on those and `app`; `http` also on
//! the calling adapters it serves; the binary on anything. A test of `app`
//! or of a calling adapter may use the implementing adapters (as
//! dev-dependencies), which never depend on `app`, so no cycle forms.

use std::fs;
use std::path::Path;

/// Where a crate sits, from the middle outward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ring {
    Domain,
    Ports,
    /// The use cases.
    App,
    /// Implements ports; called by the use cases through them.
    Implementing,
    /// Calls the use cases, and says what its protocol calls things.
    Calling,
    /// Serves the calling adapters over HTTP.
    Http,
    /// The composition root: the binary, the tools, the tests.
    Root,
    /// Stands apart: uses nothing of Kenning (the connector).
    Apart,
}

/// The ring of each Kenning package; a package not listed fails the test,
/// so a new crate is placed on purpose.
fn ring(package: &str) -> Option<Ring> {
    Some(match package {
        "kenning-domain" => Ring::Domain,
        "kenning-ports" => Ring::Ports,
        "kenning-app" => Ring::App,
        "kenning-clock"
        | "kenning-meaning"
        | "kenning-keyphrase"
        | "kenning-store-memory"
        | "kenning-store-diesel"
        | "kenning-webhook" => Ring::Implementing,
        "kenning-graphql" | "kenning-scim" | "kenning-web" => Ring::Calling,
        "kenning-http" => Ring::Http,
        "kenning-upload" => Ring::Apart,
        "kenning"
        | "kenning-keyphrase-eval"
        | "kenning-expertise-eval"
        | "kenning-bench-api"
        | "kenning-eval-real"
        | "kenning-tools-common"
        | "kenning-tests"
        | "kenning-test-macros" => Ring::Root,
        _ => return None,
    })
}

/// Whether a crate of ring `from` may depend on one of ring `to`; `dev`
/// for a dependency of its tests alone.
fn may_depend(from: Ring, to: Ring, dev: bool) -> bool {
    use Ring::{Apart, App, Calling, Domain, Http, Implementing, Ports, Root};
    match from {
        Domain | Apart => false,
        Ports => to == Domain,
        Implementing => matches!(to, Domain | Ports),
        App => matches!(to, Domain | Ports) || (dev && to == Implementing),
        Calling => matches!(to, Domain | Ports | App) || (dev && to == Implementing),
        Http => matches!(to, Domain | Ports | App | Calling),
        Root => true,
    }
}

/// A package's name and its Kenning dependencies, each with whether it is
/// a dev-dependency, read line by line from its manifest.
fn manifest(text: &str) -> (String, Vec<(String, bool)>) {
    let mut name = None;
    let mut section = String::new();
    let mut dependencies = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = header.to_owned();
        } else if section == "package" && name.is_none() {
            name = line
                .strip_prefix("name = \"")
                .and_then(|rest| rest.strip_suffix('"'))
                .map(str::to_owned);
        } else if section.ends_with("dependencies") {
            let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
            if key.starts_with("kenning") {
                let dev = section.ends_with("dev-dependencies");
                dependencies.push((key.to_owned(), dev));
            }
        }
    }
    (name.expect("a package name"), dependencies)
}

/// Every wrong dependency of the manifests `manifests`, one a line.
fn wrong_dependencies(manifests: &[(String, String)]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (path, text) in manifests {
        let (name, dependencies) = manifest(text);
        let Some(from) = ring(&name) else {
            wrong.push(format!("{path}: {name} is in no ring (list it in ring())"));
            continue;
        };
        for (dependency, dev) in dependencies {
            let kind = if dev { "dev-dependency" } else { "dependency" };
            match ring(&dependency) {
                None => wrong.push(format!(
                    "{path}: {dependency} is in no ring (list it in ring())"
                )),
                Some(to) if !may_depend(from, to, dev) => wrong.push(format!(
                    "{path}: {name} ({from:?}) has the {kind} {dependency} ({to:?})"
                )),
                Some(_) => {}
            }
        }
    }
    wrong
}

#[test]
fn no_crate_depends_on_a_crate_further_out() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let manifests: Vec<(String, String)> = super::packages(workspace)
        .into_iter()
        .map(|package| {
            let path = package.join("Cargo.toml");
            let shown = path.strip_prefix(workspace).unwrap().display().to_string();
            (shown, fs::read_to_string(&path).unwrap())
        })
        .collect();
    assert!(
        manifests.len() > 15,
        "only {} manifests read",
        manifests.len()
    );
    let wrong = wrong_dependencies(&manifests);
    assert!(
        wrong.is_empty(),
        "dependencies that reach outward:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_refuses_an_outward_dependency() {
    let manifest = |name: &str, body: &str| {
        (
            format!("{name}/Cargo.toml"),
            format!("[package]\nname = \"{name}\"\n\n{body}"),
        )
    };
    let wrong = wrong_dependencies(&[
        manifest(
            "kenning-ports",
            "[dependencies]\nkenning-domain.workspace = true\n",
        ),
        manifest(
            "kenning-domain",
            "[dependencies]\nkenning-ports = { path = \"../ports\" }\n",
        ),
        manifest(
            "kenning-store-diesel",
            "[dependencies]\nkenning-app.workspace = true\n",
        ),
        manifest(
            "kenning-app",
            "[dev-dependencies]\nkenning-store-memory.workspace = true\n",
        ),
        manifest(
            "kenning-app",
            "[dependencies]\nkenning-store-memory.workspace = true\n",
        ),
        manifest(
            "kenning-graphql",
            "[dependencies]\nkenning-http.workspace = true\n",
        ),
        manifest("kenning-newcomer", "[dependencies]\n"),
    ]);
    assert_eq!(
        wrong,
        [
            "kenning-domain/Cargo.toml: kenning-domain (Domain) has the dependency kenning-ports (Ports)",
            "kenning-store-diesel/Cargo.toml: kenning-store-diesel (Implementing) has the dependency kenning-app (App)",
            "kenning-app/Cargo.toml: kenning-app (App) has the dependency kenning-store-memory (Implementing)",
            "kenning-graphql/Cargo.toml: kenning-graphql (Calling) has the dependency kenning-http (Http)",
            "kenning-newcomer/Cargo.toml: kenning-newcomer is in no ring (list it in ring())",
        ]
    );
}
