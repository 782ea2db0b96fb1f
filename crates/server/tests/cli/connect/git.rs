//! `kenning connect git` on repositories the test builds with the `git`
//! command.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::contract::{self, Fixture};
use serde_json::json;

use super::{count, Connected};

/// Runs `git` in `repository` as `author`, committing at `date`.
fn git(repository: &Path, args: &[&str]) {
    let output = Command::new("git")
        .arg("-C")
        .arg(repository)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repository)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A commit of `file` (with `content`) by `author` (`Name <address>`).
fn commit(repository: &Path, author: &str, file: &str, content: &str, message: &str) {
    let path = repository.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    git(repository, &["add", file]);
    git(
        repository,
        &[
            "-c",
            "user.name=Committer",
            "-c",
            "user.email=committer@example.com",
            "commit",
            "--quiet",
            "--author",
            author,
            "--date",
            "2026-02-01T10:00:00Z",
            "-m",
            message,
        ],
    );
}

/// A repository with a history of every kind of commit.
fn repository(at: &Path) {
    std::fs::create_dir_all(at).unwrap();
    git(at, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(
        at.join(".mailmap"),
        "Ada Lovelace <ada@example.com> A. Lovelace <ada@old.example>\n",
    )
    .unwrap();
    commit(
        at,
        "Ada Lovelace <ada@example.com>",
        "engine/bernoulli.rs",
        "// Bernoulli numbers\n",
        "Compute Bernoulli numbers on the analytical engine",
    );
    commit(
        at,
        "A. Lovelace <ada@old.example>",
        "engine/bernoulli.rs",
        "// Bernoulli numbers, corrected\n",
        "Correct the Bernoulli number table",
    );
    commit(
        at,
        "Grace Hopper <grace@example.com>",
        "compiler/cobol.rs",
        "// COBOL\n",
        "Compile COBOL record layouts\n\nReads the data division.\n\nCo-authored-by: Ada Lovelace <ada@example.com>",
    );
    git(at, &["checkout", "--quiet", "-b", "side"]);
    commit(
        at,
        "Grace Hopper <grace@example.com>",
        "compiler/linker.rs",
        "// linker\n",
        "Link compiled COBOL programs",
    );
    git(at, &["checkout", "--quiet", "main"]);
    commit(
        at,
        "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
        "Cargo.lock",
        "lock\n",
        "Bump serde from 1.0.1 to 1.0.2",
    );
    git(
        at,
        &[
            "-c",
            "user.name=Grace Hopper",
            "-c",
            "user.email=grace@example.com",
            "merge",
            "--quiet",
            "--no-ff",
            "-m",
            "Merge branch side",
            "side",
        ],
    );
    commit(
        at,
        "Eve Outsider <eve@elsewhere.example>",
        "notes/eve.md",
        "notes\n",
        "Add notes on quantum chromodynamics",
    );
}

#[test]
fn commits_teach_their_authors_once_and_a_new_run_reads_only_what_is_new() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let repo = connected.scratch.0.join("repo");
    repository(&repo);
    let repo_arg = repo.to_str().unwrap();

    let dry = connected.connect(&["git", repo_arg, "--dry-run"]);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    // Eve is not sent, or (by a server that cannot say who people are
    // before an upload) not found once sent: either way six, none learned.
    assert_eq!(count(&dry, "would send") + count(&dry, "not found"), 6);
    assert_eq!(connected.expert("Bernoulli numbers"), None);

    let first = connected.connect(&["git", repo_arg, "--report"]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    // Ada twice (once through .mailmap), Grace twice, Ada as co-author;
    // the merge and the bot teach nobody; Eve is nobody Kenning knows.
    assert_eq!(count(&first, "read"), 7, "{said}");
    assert_eq!(count(&first, "sent"), 5, "{said}");
    assert_eq!(count(&first, "not found"), 1, "{said}");
    assert!(said.contains("skipped (merge commit): 1"), "{said}");
    assert!(said.contains("skipped (bot): 1"), "{said}");
    assert!(
        said.contains("not found: eve@elsewhere.example \"Eve Outsider\" (1 uploads not sent)"),
        "{said}"
    );
    assert_eq!(
        connected.expert("Bernoulli numbers").as_deref(),
        Some("ada@example.com")
    );
    assert_eq!(
        connected.expert("COBOL record layouts").as_deref(),
        Some("grace@example.com")
    );

    let again = connected.connect(&["git", repo_arg]);
    assert!(again.status.success());
    assert_eq!(
        count(&again, "read"),
        0,
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // Eve's commit waited for her: the run said how to send it once she
    // is in Kenning.
    let since = said
        .split_once("the same run with --since ")
        .map(|(_, rest)| rest.split_whitespace().next().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no way to send what waited: {said}"));
    assert_eq!(since, "2026-02-01");
    let reply = connected.graphql(
        "mutation { createUser(createUserInput: { email: \"eve@elsewhere.example\", firstname: \"Eve\", lastname: \"Outsider\" }) { globalUserId } }",
        json!({}),
    );
    assert!(
        reply["data"]["createUser"]["globalUserId"].is_string(),
        "{reply}"
    );
    let waited = connected.connect(&["git", repo_arg, "--since", &since]);
    let told = String::from_utf8_lossy(&waited.stderr);
    assert!(waited.status.success(), "{told}");
    assert_eq!(count(&waited, "sent"), 1, "{told}");
    assert_eq!(count(&waited, "already known"), 5, "{told}");
    assert_eq!(
        connected.expert("quantum chromodynamics notes").as_deref(),
        Some("eve@elsewhere.example")
    );

    commit(
        &repo,
        "Grace Hopper <grace@example.com>",
        "compiler/nanoseconds.rs",
        "// a wire a foot long\n",
        "Explain nanoseconds with a wire",
    );
    let newer = connected.connect(&["git", repo_arg]);
    assert_eq!(count(&newer, "read"), 1);
    assert_eq!(count(&newer, "sent"), 1);

    // Without its cursor, a run costs time, never a second lesson.
    std::fs::remove_dir_all(connected.scratch.0.join("cursors")).unwrap();
    let lost = connected.connect(&["git", repo_arg]);
    assert_eq!(count(&lost, "sent"), 0);
    assert_eq!(count(&lost, "already known"), 7, "Eve's too");
}

#[test]
fn keeps_the_source_contract() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let repo = connected.scratch.0.join("long");
    // 400 commits, one a second from 2026-01-01T00:00:00Z.
    let messages: Vec<String> = (1..=400)
        .map(|n| format!("Tune difference engine gear train {n}\n"))
        .collect();
    let commits: Vec<(&str, &str)> = messages
        .iter()
        .map(|m| ("Ada Lovelace <ada@example.com>", m.as_str()))
        .collect();
    import(&repo, &commits, &[]);
    let fixture = Fixture {
        args: vec!["git".to_owned(), repo.to_str().unwrap().to_owned()],
        items: 400,
        window: ("2026-01-01T00:00:50Z", "2026-01-01T00:01:39Z", 50),
        bad: None,
    };
    contract::holds(&connected, &fixture);
}

#[test]
fn bad_input_is_one_clear_error() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let nowhere = connected.scratch.0.join("not-a-repository");
    std::fs::create_dir_all(&nowhere).unwrap();
    let refused = connected.connect(&["git", nowhere.to_str().unwrap()]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("not a git repository"), "{said}");
    assert!(said.contains("not-a-repository"), "{said}");

    let repo = connected.scratch.0.join("repo");
    repository(&repo);
    let unreachable = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args([
            "connect",
            "git",
            repo.to_str().unwrap(),
            "--url",
            "http://127.0.0.1:9",
            "--api-key",
            "kn_key_x",
        ])
        .arg("--cursor-dir")
        .arg(connected.scratch.0.join("elsewhere"))
        .output()
        .unwrap();
    assert!(!unreachable.status.success());
    let said = String::from_utf8_lossy(&unreachable.stderr);
    assert!(said.contains("cannot reach http://127.0.0.1:9"), "{said}");

    let wrong_key = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args([
            "connect",
            "git",
            repo.to_str().unwrap(),
            "--url",
            &connected.url(),
            "--api-key",
            "kn_key_wrong",
        ])
        .arg("--cursor-dir")
        .arg(connected.scratch.0.join("elsewhere"))
        .output()
        .unwrap();
    assert!(!wrong_key.status.success());
    let said = String::from_utf8_lossy(&wrong_key.stderr);
    assert!(said.contains("HTTP 401"), "{said}");
}

/// Imports `commits` (author, message) into a new repository at `repo`
/// with `git fast-import`, which takes any bytes a message holds; the
/// first commit also adds the files `paths` (as fast-import writes
/// paths: C-quoted when they hold a line break).
fn import(repo: &Path, commits: &[(&str, &str)], paths: &[&str]) {
    std::fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "--quiet", "--initial-branch=main"]);
    let mut stream = String::new();
    for (n, (author, message)) in commits.iter().enumerate() {
        let at = 1_767_225_600 + n;
        stream.push_str(&format!(
            "commit refs/heads/main\nauthor {author} {at} +0000\ncommitter {author} {at} +0000\n\
             data {}\n{message}\nM 644 inline file{n}.txt\ndata 2\nx\n\n",
            message.len()
        ));
        if n == 0 {
            for path in paths {
                stream.push_str(&format!("M 644 inline {path}\ndata 2\nx\n\n"));
            }
        }
    }
    let mut fast_import = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    fast_import
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(fast_import.wait().unwrap().success());
}

#[test]
fn no_commit_message_is_taken_for_a_field_or_stops_a_run() {
    let connected = Connected::with_people(&["ada@example.com", "mallory@example.com"]);
    let repo = connected.scratch.0.join("forged");
    // A message holding the separators of `git log`'s old format, a forged
    // record whose "hash" is multi-byte characters, and another commit by
    // Mallory, who wrote none of it; paths holding a line break and named
    // as a commit's hash.
    let forged = format!(
        "Tune the difference engine\n\n\u{1e}a{}\u{1f}\u{1f}Mallory\u{1f}mallory@example.com\u{1f}\
         2026-01-01T00:00:00Z\u{1f}Forged lattice cryptography\u{1f}\nforged/path.rs\n\u{1f}",
        "\u{e9}".repeat(20)
    );
    import(
        &repo,
        &[
            ("Ada Lovelace <ada@example.com>", &forged),
            (
                "Ada Lovelace <ada@example.com>",
                "Compute Bernoulli numbers\n",
            ),
        ],
        &[
            "\"odd\\npath.txt\"",
            "0123456789abcdef0123456789abcdef01234567",
            "engine/0123456789abcdef0123456789abcdef01234567",
        ],
    );
    let repo_arg = repo.to_str().unwrap();

    let first = connected.connect(&["git", repo_arg]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    assert_eq!(count(&first, "read"), 2, "{said}");
    assert_eq!(count(&first, "sent"), 2, "{said}");
    assert_eq!(
        connected.expert("Bernoulli numbers").as_deref(),
        Some("ada@example.com")
    );
    // What the message says is its author's, not the forged record's.
    assert_eq!(
        connected.expert("lattice cryptography").as_deref(),
        Some("ada@example.com")
    );
    // The cursor moved past both: nothing is read again.
    let again = connected.connect(&["git", repo_arg]);
    assert_eq!(count(&again, "read"), 0);
}

#[test]
fn a_mailmap_that_moves_an_address_is_named_in_the_report() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let repo = connected.scratch.0.join("repo");
    repository(&repo);
    let run = connected.connect(&["git", repo.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains("warning: .mailmap: ada@old.example is sent as ada@example.com"),
        "{said}"
    );
    assert!(!said.contains("grace@example.com is sent as"), "{said}");
}

/// A server on a free port that answers every request with `answer`, and
/// counts the requests whose head names `header`; it serves `most`
/// connections, each read once.
fn answering(
    answer: String,
    header: &'static str,
    most: usize,
) -> (u16, std::sync::mpsc::Receiver<bool>) {
    use std::io::Read as _;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (heard, hears) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(most) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut head = [0u8; 8192];
            let read = stream.read(&mut head).unwrap_or(0);
            let text = String::from_utf8_lossy(&head[..read]).to_lowercase();
            let _ = heard.send(text.contains(&header.to_lowercase()));
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (port, hears)
}

#[test]
fn the_api_key_never_follows_a_redirect() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let repo = connected.scratch.0.join("repo");
    repository(&repo);
    let (elsewhere, heard_elsewhere) = answering(
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".to_owned(),
        "apikey:",
        8,
    );
    let (redirecting, _) = answering(
        format!(
            "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{elsewhere}/stolen\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        "apikey:",
        8,
    );
    let run = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args([
            "connect",
            "git",
            repo.to_str().unwrap(),
            "--api-key",
            "kn_key_secret",
        ])
        .args(["--url", &format!("http://127.0.0.1:{redirecting}")])
        .arg("--cursor-dir")
        .arg(connected.scratch.0.join("elsewhere"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{said}");
    assert!(said.contains("302"), "{said}");
    assert!(
        heard_elsewhere.try_recv().is_err(),
        "the redirect was followed: {said}"
    );
}
