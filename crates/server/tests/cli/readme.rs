//! The README, run as a reader runs it, so that it cannot drift from the
//! service: every ```sh block in order, exactly as written, in one shell
//! session (a `cd` or a variable of one block holds in the next), started
//! in the repository's folder, against a server started as `make run`
//! starts it (`kenning serve` on the default database), with no
//! environment but a fresh login's: a home folder of its own and `PATH`
//! with `kenning` on it (as `cargo install --path crates/server` puts it).
//!
//! What a reader fills in is filled in: the token the server printed for
//! `kn_tok_...`, the `globalUserId` the first createUser answered for
//! `"<id>"`, and the server's port for 8080 (the test's server listens on a
//! free one). Blocks of build commands (`make ...`, `cargo ...`) are not
//! run here: `make test` is what runs this test, `make run` is the server
//! started here, and `make test` runs the embedding example itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{first_line, Scratch, Served};

const README: &str = include_str!("../../../../README.md");

/// What the shell prints after each block: the marker and the status.
const END: &str = "__README_BLOCK_END__";

/// The bodies of the README's ```sh blocks, in order.
fn sh_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in readme.lines() {
        match open.as_mut() {
            None => {
                if line.trim() == "```sh" {
                    open = Some(String::new());
                }
            }
            Some(block) if line.trim() == "```" => {
                blocks.push(std::mem::take(block));
                open = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

/// Whether a block builds or tests the project rather than uses it.
fn is_build(block: &str) -> bool {
    block.lines().map(str::trim).all(|line| {
        line.is_empty()
            || line.starts_with('#')
            || line.starts_with("make ")
            || line.starts_with("cargo ")
    })
}

/// The path of the first empty list in `value`, if any: every example is
/// meant to show something (an `experts` answer of `[]` means the steps
/// before left no one to find).
fn empty_list(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::Array(items) if items.is_empty() => Some(path.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| empty_list(item, &format!("{path}[{i}]"))),
        Value::Object(fields) => fields
            .iter()
            .find_map(|(name, item)| empty_list(item, &format!("{path}.{name}"))),
        _ => None,
    }
}

/// A login shell a reader types the blocks into.
struct Shell {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    errors: Arc<Mutex<String>>,
}

impl Shell {
    fn start(home: &Path, path: &str, dir: &Path) -> Self {
        let mut child = Command::new("bash")
            .args(["--noprofile", "--norc", "-eu", "-o", "pipefail"])
            .current_dir(dir)
            .env_clear()
            .env("HOME", home)
            .env("PATH", path)
            .env("LANG", "C.UTF-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let errors = Arc::new(Mutex::new(String::new()));
        let mut stderr = child.stderr.take().unwrap();
        let collected = errors.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                collected
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        Self {
            child,
            input,
            output,
            errors,
        }
    }

    /// Types `block`; what it printed on stdout and stderr, or `Err` with
    /// both when the shell stopped (a command failed under `set -e`).
    fn run(&mut self, block: &str) -> Result<(String, String), String> {
        self.errors.lock().unwrap().clear();
        let typed = format!("{block}\nprintf '\\n{END}\\n'\n");
        self.input.write_all(typed.as_bytes()).unwrap();
        self.input.flush().unwrap();
        let mut printed = String::new();
        loop {
            let mut line = String::new();
            if self.output.read_line(&mut line).unwrap() == 0 {
                // Give stderr's reader a moment to take the last words.
                std::thread::sleep(std::time::Duration::from_millis(200));
                return Err(format!(
                    "the shell stopped: {:?}\nstdout: {printed}\nstderr: {}",
                    self.child.wait(),
                    self.errors.lock().unwrap()
                ));
            }
            if line.trim_end() == END {
                return Ok((printed, self.errors.lock().unwrap().clone()));
            }
            printed.push_str(&line);
        }
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `kenning serve` as `make run` starts it: the default database (under
/// `home`), the models `make model` fetched (`KENNING_TEST_MODEL_DIR`
/// and `KENNING_TEST_MULTILINGUAL_DIR`, which `make test` sets; without
/// them, words alone) and the compound data `make compounds` fetched
/// (`KENNING_TEST_COMPOUNDS_DIR`), nothing else set; on a free port.
fn serve_by_default(home: &Path, path: &str) -> (Served, u16) {
    let mut serve = vec!["serve".to_owned(), "--bind".into(), "127.0.0.1:0".into()];
    for (flag, variable) in [
        ("--model-dir", "KENNING_TEST_MODEL_DIR"),
        (
            "--other-languages-model-dir",
            "KENNING_TEST_MULTILINGUAL_DIR",
        ),
        ("--compounds-dir", "KENNING_TEST_COMPOUNDS_DIR"),
    ] {
        if let Some(dir) = std::env::var_os(variable) {
            serve.extend([flag.to_owned(), dir.to_string_lossy().into_owned()]);
        }
    }
    let child = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(&serve)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut served = Served(child);
    let stderr = served.0.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let port = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| line.split("serving on port ").nth(1)?.trim().parse().ok())
        .expect("the server never said it was serving");
    // Keep reading, so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (served, port)
}

#[test]
fn the_readme_runs_as_written() {
    let curl = Command::new("curl").arg("--version").output();
    assert!(
        curl.is_ok_and(|out| out.status.success()),
        "this test runs the README's examples with curl and bash; install curl"
    );
    let blocks = sh_blocks(README);
    assert!(blocks.len() >= 15, "the README's examples: {blocks:?}");

    let scratch = Scratch::new();
    let home = scratch.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_kenning")).parent().unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let (mut served, port) = serve_by_default(&home, &path);
    let token = first_line(&mut served);
    assert!(token.starts_with("kn_tok_"), "{token}");
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut shell = Shell::start(&home, &path, &repository);

    let mut id: Option<String> = None;
    let mut ran = 0;
    for (n, block) in blocks.iter().enumerate() {
        if is_build(block) {
            continue;
        }
        let mut script = block
            .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"))
            .replace("kn_tok_...", &token);
        match &id {
            // Only the quoted placeholder: a block may hold XML with `<id>`.
            Some(id) => script = script.replace("\"<id>", &format!("\"{id}")),
            None => assert!(
                !script.contains("\"<id>"),
                "block {n} uses <id> before any answer gave one:\n{script}"
            ),
        }
        let (out, err) = shell
            .run(&script)
            .unwrap_or_else(|e| panic!("block {n}:\n{script}\n{e}"));
        ran += 1;
        let shown = format!("block {n}:\n{script}\nstdout: {out}\nstderr: {err}");
        let answers: Vec<Value> = serde_json::Deserializer::from_str(&out)
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("not JSON answers ({e}): {shown}"));
        for answer in &answers {
            // GraphQL reports failures in `errors`, the connector and SCIM
            // in `error` or `detail`.
            assert!(
                answer.get("errors").is_none()
                    && answer.get("error").is_none()
                    && answer.get("detail").is_none(),
                "{shown}"
            );
            if let Some(path) = empty_list(answer, "") {
                panic!("{path} is empty: {shown}");
            }
        }
        if id.is_none() {
            id = answers
                .first()
                .and_then(|a| a["data"]["createUser"]["globalUserId"].as_str())
                .map(str::to_owned);
        }
    }
    assert!(ran >= 15, "ran {ran} blocks");
    // The README's commands found the server's database from wherever
    // they ran: nothing was created beside it.
    let data = home.join(".local/share/kenning");
    let files: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".db"))
        .collect();
    assert_eq!(files, vec!["kenning.db".to_owned()]);
}
