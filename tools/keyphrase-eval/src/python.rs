//! The Python peers: scripts in `peers/` run by one interpreter, each given
//! a dataset's texts and language as JSON on stdin and answering, as JSON
//! on stdout, each of its systems' phrases and times per document (see
//! `peers/pke_peers.py`), or why it cannot run.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use kenning_keyphrase_eval::Dataset;
use serde::Deserialize;

use crate::run::Run;

/// What a script prints.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Answer {
    Systems(BTreeMap<String, Run>),
    Unavailable(String),
}

/// The interpreter the peers run with.
#[derive(Debug)]
pub struct Python {
    program: PathBuf,
    /// Which interpreter this is and where it comes from, for the notes.
    origin: String,
}

impl Python {
    /// `KENNING_EVAL_PYTHON`, else the workspace's `.venv` that `make venv`
    /// makes, else `python3` on the PATH.
    pub fn locate() -> Self {
        if let Some(program) = std::env::var_os("KENNING_EVAL_PYTHON") {
            let origin = format!(
                "with {}, from KENNING_EVAL_PYTHON",
                program.to_string_lossy()
            );
            return Self {
                program: program.into(),
                origin,
            };
        }
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python3");
        if venv.is_file() {
            Self {
                program: venv,
                origin: "with .venv/bin/python3, made by `make venv`".to_owned(),
            }
        } else {
            Self {
                program: "python3".into(),
                origin: "with python3 from the PATH: `make venv` installs the peers in .venv"
                    .to_owned(),
            }
        }
    }

    /// Runs `peers/<script>` on every text of the dataset; one outcome per
    /// name in `systems`, in that order: the system's run, or why it has none.
    pub fn run(
        &self,
        script: &str,
        systems: &[&str],
        dataset: &Dataset,
    ) -> Vec<Result<Run, String>> {
        let mut answered = match self.ask(script, dataset) {
            Ok(Answer::Systems(runs)) => runs,
            Ok(Answer::Unavailable(reason)) | Err(reason) => {
                let reason = format!("{reason} ({})", self.origin);
                return systems.iter().map(|_| Err(reason.clone())).collect();
            }
        };
        let docs = dataset.documents.len();
        systems
            .iter()
            .map(|system| match answered.remove(*system) {
                None => Err(format!("{script} did not answer for {system}")),
                Some(run) if run.keyphrases.len() != docs || run.seconds.len() != docs => {
                    Err(format!("{script} answered for other than {docs} documents"))
                }
                Some(run) => Ok(run),
            })
            .collect()
    }

    fn ask(&self, script: &str, dataset: &Dataset) -> Result<Answer, String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("peers")
            .join(script);
        let texts: Vec<&str> = dataset.documents.iter().map(|d| d.text.as_str()).collect();
        let request = serde_json::json!({ "language": dataset.language, "texts": texts });
        let input = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
        let mut child = Command::new(&self.program)
            .arg(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the interpreter: {e}"))?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| "no pipe to the interpreter".to_owned())?;
        // Written from another thread so that a script that writes much to
        // stderr before reading all its input cannot block both sides.
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let output = child.wait_with_output().map_err(|e| e.to_string())?;
        let written = writer
            .join()
            .map_err(|_| "the writer to the interpreter panicked".to_owned())?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
            return Err(format!(
                "{script} failed: {}",
                last.unwrap_or("no message").trim()
            ));
        }
        written.map_err(|e| format!("writing to {script}: {e}"))?;
        serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("{script} answered unreadable JSON: {e}"))
    }
}
