//! `kenning connect mail` on mbox files and Maildir folders the test
//! writes as mail clients and servers write them.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use super::contract::{self, Fixture};
use super::{count, Connected};

/// A message as a mail client writes it: `from` (`Name <address>`),
/// `extra` header lines (each ending in `\n`), and `body`.
pub(super) fn message(id: &str, from: &str, subject: &str, extra: &str, body: &str) -> String {
    format!(
        "From: {from}\nTo: Team <team@example.com>\nSubject: {subject}\n\
         Date: Mon, 2 Feb 2026 10:00:00 +0000\nMessage-ID: <{id}@example.com>\n\
         MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n{extra}\n{body}\n"
    )
}

/// `messages` as one mbox file (mboxrd: a `From ` line each, `From ` in
/// a body quoted).
pub(super) fn mbox(messages: &[String]) -> String {
    messages
        .iter()
        .map(|m| {
            let quoted: Vec<String> = m
                .lines()
                .map(|line| {
                    let bare = line.trim_start_matches('>');
                    if bare.starts_with("From ") {
                        format!(">{line}")
                    } else {
                        line.to_owned()
                    }
                })
                .collect();
            format!(
                "From sender@example.com Mon Feb  2 10:00:00 2026\n{}\n\n",
                quoted.join("\n")
            )
        })
        .collect()
}

/// Ada's sent mail, and what a sent folder also holds.
fn sent_folder() -> Vec<String> {
    vec![
        message(
            "ada-1",
            "Ada Lovelace <ada@example.com>",
            "Re: Bernoulli numbers",
            "In-Reply-To: <grace-1@example.com>\n",
            "The engine computes Bernoulli numbers from the recurrence.\n\
             From the start it was meant to be general.\n\n\
             On Sun, 1 Feb 2026, Grace Hopper <grace@example.com> wrote:\n\
             > Can it do quantum chromodynamics?\n\n\
             -- \nAda Lovelace\nOckham Park, Surrey",
        ),
        message(
            "grace-2",
            "Grace Hopper <grace@example.com>",
            "COBOL record layouts",
            "",
            "The data division describes each record layout.",
        ),
        message(
            "ada-away",
            "Ada Lovelace <ada@example.com>",
            "Out of office",
            "Auto-Submitted: auto-replied\n",
            "I am away until Monday.",
        ),
        message(
            "bounce-1",
            "Mail Delivery System <MAILER-DAEMON@example.com>",
            "Undelivered Mail Returned to Sender",
            "",
            "Your message could not be delivered.",
        ),
        message(
            "eve-1",
            "Eve Outsider <eve@elsewhere.example>",
            "Lattice gauge theory",
            "",
            "Notes on lattice gauge theory.",
        ),
    ]
}

#[test]
fn sent_mail_in_an_mbox_teaches_its_senders_once_and_new_mail_on_the_next_run() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let path = connected.scratch.0.join("Sent.mbox");
    std::fs::write(&path, mbox(&sent_folder())).unwrap();
    let path_arg = path.to_str().unwrap();

    let unsaid = connected.connect(&["mail", path_arg]);
    assert!(!unsaid.status.success());
    let said = String::from_utf8_lossy(&unsaid.stderr);
    assert!(
        said.contains("--sent") && said.contains("--sender"),
        "{said}"
    );

    let first = connected.connect(&["mail", path_arg, "--sent", "--report"]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    assert_eq!(count(&first, "read"), 5, "{said}");
    assert_eq!(count(&first, "sent"), 2, "{said}");
    assert_eq!(count(&first, "not found"), 1, "{said}");
    assert!(
        said.contains("skipped (automatic (Auto-Submitted)): 1"),
        "{said}"
    );
    assert!(said.contains("skipped (automatic sender): 1"), "{said}");
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
    // What Ada quoted and signed is not hers.
    assert_eq!(connected.expert("quantum chromodynamics"), None);
    assert_eq!(connected.expert("Ockham Park Surrey"), None);

    let again = connected.connect(&["mail", path_arg, "--sent"]);
    assert!(again.status.success());
    assert_eq!(count(&again, "read"), 0);

    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(
        mbox(&[message(
            "grace-3",
            "Grace Hopper <grace@example.com>",
            "Nanoseconds",
            "",
            "A nanosecond is a wire a foot long.",
        )])
        .as_bytes(),
    )
    .unwrap();
    let newer = connected.connect(&["mail", path_arg, "--sent"]);
    assert_eq!(count(&newer, "read"), 1);
    assert_eq!(count(&newer, "sent"), 1);

    // Mixed mail (another file, a cursor of its own): only Grace's is
    // sent mail.
    let mixed = connected.scratch.0.join("Mixed.mbox");
    std::fs::copy(&path, &mixed).unwrap();
    let grace = connected.connect(&[
        "mail",
        mixed.to_str().unwrap(),
        "--sender",
        "Grace@Example.com",
    ]);
    let said = String::from_utf8_lossy(&grace.stderr);
    assert!(grace.status.success(), "{said}");
    assert_eq!(count(&grace, "already known"), 2, "{said}");
    assert!(said.contains("skipped (received): 2"), "{said}");

    // Without its cursor, a run costs time, never a second lesson.
    std::fs::remove_dir_all(connected.scratch.0.join("cursors")).unwrap();
    let lost = connected.connect(&["mail", path_arg, "--sent"]);
    assert_eq!(count(&lost, "sent"), 0);
    assert_eq!(count(&lost, "already known"), 3);
}

/// Writes `raw` into the Maildir `dir` as a delivery does: into `tmp/`,
/// then renamed into `sub` (`new` or `cur`) as `name`.
pub(super) fn deliver(dir: &Path, sub: &str, name: &str, raw: &str) {
    for folder in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    let tmp = dir.join("tmp").join(name);
    std::fs::write(&tmp, raw).unwrap();
    std::fs::rename(tmp, dir.join(sub).join(name)).unwrap();
}

#[test]
fn a_maildir_teaches_its_sent_mail_and_a_new_message_on_the_next_run() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let maildir = connected.scratch.0.join("Maildir/.Sent");
    for (n, raw) in sent_folder().iter().enumerate() {
        let sub = if n % 2 == 0 { "cur" } else { "new" };
        let flags = if sub == "cur" { ":2,S" } else { "" };
        deliver(
            &maildir,
            sub,
            &format!("177000000{n}.M{n}P1.host{flags}"),
            raw,
        );
    }
    deliver(
        &maildir,
        "cur",
        "1770000009.M9P1.host:2,DS",
        &message(
            "draft-1",
            "Ada Lovelace <ada@example.com>",
            "Unfinished",
            "",
            "Half a thought on hydraulic pumps.",
        ),
    );
    let dir_arg = maildir.to_str().unwrap();
    let first = connected.connect(&["mail", dir_arg, "--sent"]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    assert_eq!(count(&first, "read"), 6, "{said}");
    assert_eq!(count(&first, "sent"), 2, "{said}");
    assert!(said.contains("skipped (draft): 1"), "{said}");
    assert_eq!(
        connected.expert("Bernoulli numbers").as_deref(),
        Some("ada@example.com")
    );
    assert_eq!(connected.expert("hydraulic pumps"), None);

    let again = connected.connect(&["mail", dir_arg, "--sent"]);
    assert!(again.status.success());
    assert_eq!(count(&again, "sent"), 0);

    deliver(
        &maildir,
        "new",
        "1770000010.M10P1.host",
        &message(
            "grace-4",
            "Grace Hopper <grace@example.com>",
            "Compilers",
            "",
            "The first compiler translated mathematical notation.",
        ),
    );
    let newer = connected.connect(&["mail", dir_arg, "--sent"]);
    assert_eq!(count(&newer, "sent"), 1);
    assert_eq!(
        connected
            .expert("mathematical notation compiler")
            .as_deref(),
        Some("grace@example.com")
    );
    // Once the files settle, the cursor passes them: nothing is read again.
    std::thread::sleep(Duration::from_millis(1_100));
    connected.connect(&["mail", dir_arg, "--sent"]);
    let settled = connected.connect(&["mail", dir_arg, "--sent"]);
    assert_eq!(count(&settled, "read"), 0);
}

#[test]
fn keeps_the_source_contract() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let path = connected.scratch.0.join("long.mbox");
    // 300 messages, a minute apart from 10:01 on 2 February 2026.
    let messages: Vec<String> = (1..=300)
        .map(|n| {
            message(
                &format!("gear-{n}"),
                "Ada Lovelace <ada@example.com>",
                &format!("Difference engine gear train {n}"),
                "",
                "The gear train carries the tens.",
            )
            .replace(
                "Mon, 2 Feb 2026 10:00:00 +0000",
                &format!("Mon, 2 Feb 2026 {:02}:{:02}:00 +0000", 10 + n / 60, n % 60),
            )
        })
        .collect();
    std::fs::write(&path, mbox(&messages)).unwrap();
    let path_arg = path.to_str().unwrap().to_owned();
    let bad = connected.scratch.0.join("bad.mbox");
    let nameless = message("x", "Nobody", "Gears", "", "The gear train.");
    std::fs::write(&bad, mbox(&[nameless])).unwrap();
    let bad_arg = bad.to_str().unwrap().to_owned();
    let fixture = Fixture {
        args: vec!["mail".to_owned(), path_arg, "--sent".to_owned()],
        items: 300,
        window: ("2026-02-02T10:01:00Z", "2026-02-02T10:10:00Z", 10),
        bad: Some((
            vec!["mail".to_owned(), bad_arg, "--sent".to_owned()],
            "bad.mbox: message at byte 0: no From address",
        )),
    };
    contract::holds(&connected, &fixture);
}

#[test]
fn a_corrupt_mbox_is_named_by_file_and_byte_and_the_run_goes_on() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let good = message(
        "ada-9",
        "Ada Lovelace <ada@example.com>",
        "Jacquard looms",
        "",
        "Punched cards drive the looms.",
    );
    let first = mbox(std::slice::from_ref(&good));
    let headless =
        "From nobody Mon Feb  2 10:00:00 2026\nSubject: who sent this?\n\nNo From header.\n\n";
    let cut =
        "From ada@example.com Mon Feb  2 10:00:00 2026\nFrom: ada@example.com\nSubject: cut sh";
    let path = connected.scratch.0.join("Sent.mbox");
    std::fs::write(&path, format!("{first}{headless}{cut}")).unwrap();
    let path_arg = path.to_str().unwrap();
    let run = connected.connect(&["mail", path_arg, "--sent"]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{said}");
    assert_eq!(count(&run, "sent"), 1, "{said}");
    assert!(
        said.contains(&format!(
            "{path_arg}: message at byte {}: no From address",
            first.len()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "{path_arg}: message at byte {}: the file ends inside this message's header",
            first.len() + headless.len()
        )),
        "{said}"
    );
    assert_eq!(
        connected.expert("Jacquard looms").as_deref(),
        Some("ada@example.com")
    );

    let notes = connected.scratch.0.join("notes.txt");
    std::fs::write(&notes, "Dear Ada,\nthe engine...\n").unwrap();
    let refused = connected.connect(&["mail", notes.to_str().unwrap(), "--sent"]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    let last = said.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: ") && last.contains("notes.txt: not an mbox file"),
        "{said}"
    );
}

/// A run with other choices (`--sent`, then `--sender`) keeps a cursor of
/// its own, so it reads what the first run did not take.
#[test]
fn runs_with_other_choices_keep_cursors_of_their_own() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let path = connected.scratch.0.join("Mixed.mbox");
    std::fs::write(&path, mbox(&sent_folder())).unwrap();
    let path_arg = path.to_str().unwrap();

    let ada = connected.connect(&["mail", path_arg, "--sender", "ada@example.com"]);
    assert!(
        ada.status.success(),
        "{}",
        String::from_utf8_lossy(&ada.stderr)
    );
    assert_eq!(
        count(&ada, "read"),
        5,
        "{}",
        String::from_utf8_lossy(&ada.stderr)
    );
    let grace = connected.connect(&["mail", path_arg, "--sender", "grace@example.com"]);
    let said = String::from_utf8_lossy(&grace.stderr);
    assert_eq!(count(&grace, "read"), 5, "{said}");
    assert_eq!(
        connected.expert("COBOL record layouts").as_deref(),
        Some("grace@example.com")
    );
    // The same choices again: only what is new.
    let again = connected.connect(&["mail", path_arg, "--sender", "grace@example.com"]);
    assert_eq!(count(&again, "read"), 0);
}
