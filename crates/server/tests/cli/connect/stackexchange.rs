//! `kenning connect stackexchange` on the dump folders the tests write in
//! the data dump's format, and on a real one: the Coffee Stack Exchange
//! posts the expertise evaluation reads (CC BY-SA, in the shared data
//! folder beside the repository; NOT RUN without it).

use std::path::{Path, PathBuf};

use super::contract::{self, Fixture};
use super::{count, Connected};

/// A post's row: a question (`parent` 0, `title` given) or an answer.
fn row(
    id: u64,
    parent: u64,
    owner: Option<i64>,
    accepted: Option<u64>,
    title: &str,
    body: &str,
) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\n', "&#xA;")
    };
    let kind = if parent == 0 {
        format!("PostTypeId=\"1\" Title=\"{}\"", escape(title))
    } else {
        format!("PostTypeId=\"2\" ParentId=\"{parent}\"")
    };
    let accepted = accepted.map_or(String::new(), |a| format!(" AcceptedAnswerId=\"{a}\""));
    let owner = owner.map_or(String::new(), |o| format!(" OwnerUserId=\"{o}\""));
    format!(
        "  <row Id=\"{id}\" {kind}{accepted} CreationDate=\"2026-01-{:02}T10:00:00.000\" Score=\"1\" Body=\"{}\"{owner} />\n",
        id % 28 + 1,
        escape(body)
    )
}

fn posts(rows: &[String]) -> String {
    format!(
        "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<posts>\n{}</posts>\n",
        rows.concat()
    )
}

const USERS: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<users>\n\
  <row Id=\"-1\" DisplayName=\"Community\" />\n\
  <row Id=\"1\" DisplayName=\"Ada Lovelace\" />\n\
  <row Id=\"2\" DisplayName=\"Grace Hopper\" />\n\
  <row Id=\"3\" DisplayName=\"Eve Outsider\" />\n</users>\n";

fn site(rows: &[String]) -> Vec<String> {
    rows.to_vec()
}

/// A site: a question Ada answers (accepted) and Eve too, one Grace asks
/// and answers herself, a tag wiki, a post by a deleted account.
fn questions() -> Vec<String> {
    site(&[
        row(10, 0, Some(2), Some(11), "How do punched cards drive a loom?", "<p>The Jacquard loom reads cards. How?</p>"),
        row(11, 10, Some(1), None, "", "<p>Each <b>punched card</b> lifts the warp threads whose hooks find a hole; a chain of cards weaves the pattern.</p>"),
        row(12, 10, Some(3), None, "", "<p>Quantum chromodynamics explains gluons.</p>"),
        row(13, 0, Some(2), None, "Compiling COBOL record layouts", "<p>How does the compiler read a data division?</p>"),
        row(14, 13, Some(2), None, "", "<p>The compiler maps each level number of the record layout to storage.</p>"),
        "  <row Id=\"15\" PostTypeId=\"5\" CreationDate=\"2026-01-16T10:00:00.000\" Body=\"&lt;p&gt;Tag wiki&lt;/p&gt;\" OwnerUserId=\"-1\" />\n".to_owned(),
        row(16, 13, None, None, "", "<p>An answer of a deleted account.</p>"),
    ])
}

fn identities(dir: &Path) -> String {
    let path = dir.join("identities.csv");
    std::fs::write(
        &path,
        "identity,email\n1,ada@example.com\n2,grace@example.com\n",
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

fn write(dir: &Path, rows: &[String]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("Posts.xml"), posts(rows)).unwrap();
    std::fs::write(dir.join("Users.xml"), USERS).unwrap();
    dir.to_owned()
}

#[test]
fn answers_teach_their_authors_once_and_a_new_run_reads_only_new_posts() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dir = write(&connected.scratch.0.join("site"), &questions());
    let (folder, ids) = (dir.to_str().unwrap(), identities(&connected.scratch.0));

    let dry = connected.connect(&["stackexchange", folder, "--identities", &ids, "--dry-run"]);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert_eq!(count(&dry, "would send"), 4);

    let first = connected.connect(&["stackexchange", folder, "--identities", &ids, "--report"]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    // Grace asks twice and answers once, Ada answers (accepted); Eve is
    // nobody Kenning knows; the tag wiki and the deleted account teach
    // nobody.
    assert_eq!(count(&first, "read"), 7, "{said}");
    assert_eq!(count(&first, "sent"), 4, "{said}");
    assert_eq!(count(&first, "not found"), 1, "{said}");
    assert!(
        said.contains("skipped (not a question or answer): 1"),
        "{said}"
    );
    assert!(said.contains("skipped (no author): 1"), "{said}");
    assert!(
        said.contains("not found: 3 \"Eve Outsider\" (1 uploads not sent)"),
        "{said}"
    );
    assert_eq!(
        connected.expert("punched cards warp threads").as_deref(),
        Some("ada@example.com")
    );
    assert_eq!(
        connected.expert("COBOL record layout").as_deref(),
        Some("grace@example.com")
    );
    assert_eq!(connected.expert("quantum chromodynamics gluons"), None);

    let again = connected.connect(&["stackexchange", folder, "--identities", &ids]);
    assert!(again.status.success());
    assert_eq!(
        count(&again, "read"),
        0,
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // A later dump: a new answer to the first question, a new question.
    let mut later = questions();
    later.push(row(
        20,
        10,
        Some(2),
        None,
        "",
        "<p>Hooks and needles select the threads, card by card.</p>",
    ));
    later.push(row(
        21,
        0,
        Some(1),
        None,
        "Bernoulli numbers on the engine",
        "<p>How were they computed?</p>",
    ));
    write(&dir, &later);
    let newer = connected.connect(&["stackexchange", folder, "--identities", &ids]);
    assert_eq!(
        count(&newer, "read"),
        2,
        "{}",
        String::from_utf8_lossy(&newer.stderr)
    );
    assert_eq!(count(&newer, "sent"), 2);

    // Without its cursor, a run costs time, never a second lesson.
    std::fs::remove_dir_all(connected.scratch.0.join("cursors")).unwrap();
    let lost = connected.connect(&["stackexchange", folder, "--identities", &ids]);
    assert_eq!(count(&lost, "sent"), 0);
    assert_eq!(count(&lost, "already known"), 6);
}

#[test]
fn keeps_the_source_contract() {
    let connected = Connected::with_people(&["ada@example.com"]);
    // A question and 400 answers, post n of January's (n % 28 + 1)th,
    // each by Ada.
    let mut rows = vec![row(
        1,
        0,
        Some(1),
        None,
        "Tuning the difference engine gear train",
        "<p>Which gears?</p>",
    )];
    for id in 2..=401 {
        rows.push(row(
            id,
            1,
            Some(1),
            None,
            "",
            &format!("<p>Gear {id} of the difference engine train meshes with the next.</p>"),
        ));
    }
    let dir = write(&connected.scratch.0.join("long"), &rows);
    let bad_row = row(11, 0, Some(1), None, "A question", "<p>When?</p>")
        .replace("2026-01-12T10:00:00.000", "yesterday");
    let bad = write(&connected.scratch.0.join("bad"), &[bad_row]);
    let fixture = Fixture {
        args: vec![
            "stackexchange".to_owned(),
            dir.to_str().unwrap().to_owned(),
            "--identities".to_owned(),
            identities(&connected.scratch.0),
        ],
        items: 401,
        window: ("2026-01-01", "2026-01-01", 14),
        bad: Some((
            vec!["stackexchange".to_owned(), bad.to_str().unwrap().to_owned()],
            "Posts.xml post 11: a CreationDate Kenning cannot read",
        )),
    };
    contract::holds(&connected, &fixture);
}

#[test]
fn bad_input_is_one_clear_error_and_the_run_goes_on_past_a_bad_row() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let ids = identities(&connected.scratch.0);

    let empty = connected.scratch.0.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let refused = connected.connect(&["stackexchange", empty.to_str().unwrap()]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("empty: no Posts.xml"), "{said}");

    // A row whose date cannot be read is named by its post id; the rest
    // is sent.
    let mut rows = questions();
    rows[1] = rows[1].replace("2026-01-12T10:00:00.000", "last Tuesday");
    let malformed = write(&connected.scratch.0.join("malformed"), &rows);
    let run = connected.connect(&[
        "stackexchange",
        malformed.to_str().unwrap(),
        "--identities",
        &ids,
    ]);
    assert!(!run.status.success());
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(
        said.contains("Posts.xml post 11: a CreationDate Kenning cannot read"),
        "{said}"
    );
    assert_eq!(count(&run, "sent"), 3, "{said}");

    // A dump cut off: what came before is sent, one line names the file
    // and the byte; once whole, the next run sends the rest.
    let whole = posts(&questions());
    let truncated = connected.scratch.0.join("truncated");
    std::fs::create_dir_all(&truncated).unwrap();
    let cut_at = whole.find("<row Id=\"13\"").unwrap() + 30;
    std::fs::write(truncated.join("Posts.xml"), &whole[..cut_at]).unwrap();
    let run = connected.connect(&[
        "stackexchange",
        truncated.to_str().unwrap(),
        "--identities",
        &ids,
    ]);
    assert!(!run.status.success());
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(said.contains("Posts.xml: the dump breaks"), "{said}");
    assert!(said.contains("byte"), "{said}");
    // What the run before sent from the same posts is known already.
    assert_eq!(
        count(&run, "sent") + count(&run, "already known"),
        2,
        "{said}"
    );
    std::fs::write(truncated.join("Posts.xml"), &whole).unwrap();
    let mended = connected.connect(&[
        "stackexchange",
        truncated.to_str().unwrap(),
        "--identities",
        &ids,
    ]);
    assert!(
        mended.status.success(),
        "{}",
        String::from_utf8_lossy(&mended.stderr)
    );
    assert_eq!(count(&mended, "read"), 4);
}

/// Asking about a subject shows what a person works on: two questions
/// teach their asker less than one answer teaches the person who wrote it.
#[test]
fn an_asker_ranks_below_the_person_who_answered() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dir = write(
        &connected.scratch.0.join("asked"),
        &site(&[
            row(
                30,
                0,
                Some(2),
                Some(31),
                "How long do green coffee beans keep?",
                "<p>My green coffee beans are a year old.</p>",
            ),
            row(
                31,
                30,
                Some(1),
                None,
                "",
                "<p>Kept cool and dry in jute sacks, a year or more.</p>",
            ),
            row(
                32,
                0,
                Some(2),
                None,
                "Roasting green coffee beans at home",
                "<p>Which pan for green coffee beans?</p>",
            ),
        ]),
    );
    let ids = identities(&connected.scratch.0);
    let run = connected.connect(&["stackexchange", dir.to_str().unwrap(), "--identities", &ids]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert_eq!(count(&run, "sent"), 3, "{said}");
    assert_eq!(
        connected.expert("green coffee beans").as_deref(),
        Some("ada@example.com")
    );
}

#[test]
#[cfg_attr(
    kenning_no_shared_data,
    ignore = "the shared data folder (../shared/data beside the repository) holds no Stack Exchange dump"
)]
fn a_real_dump_teaches_its_answerers() {
    let coffee =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/expertise/coffee");
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let ids = connected.scratch.0.join("identities.csv");
    // The site's two most active answerers.
    std::fs::write(
        &ids,
        "identity,email\n262,ada@example.com\n76,grace@example.com\n",
    )
    .unwrap();
    let (folder, ids) = (coffee.to_str().unwrap(), ids.to_str().unwrap());
    let first = connected.connect(&["stackexchange", folder, "--identities", ids]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    assert_eq!(count(&first, "read"), 592, "{said}");
    // 30 and 29 answers, 7 and some questions of their own.
    assert!(count(&first, "sent") >= 59, "{said}");
    assert!(
        said.contains("skipped (not a question or answer): 40"),
        "{said}"
    );
    // Only user 262 answered the question on biscotti.
    assert_eq!(
        connected.expert("biscotti").as_deref(),
        Some("ada@example.com")
    );
    let again = connected.connect(&["stackexchange", folder, "--identities", ids]);
    assert_eq!(count(&again, "read"), 0);
}

/// A site whose user ids are the organisation's externalIds (it signs
/// people in through the identity provider) finds them by those ids when
/// asked to, and by nothing but --identities otherwise.
#[test]
fn site_ids_match_external_ids_only_when_said() {
    let connected = Connected::with_people(&[]);
    for (email, first, external) in [
        ("ada@example.com", "Ada", "1"),
        ("grace@example.com", "Grace", "2"),
    ] {
        let made = connected.graphql(
            "mutation($email: String!, $first: String!, $external: String!) { createUser(createUserInput: { email: $email, firstname: $first, lastname: \"Example\", externalId: $external }) { globalUserId } }",
            serde_json::json!({ "email": email, "first": first, "external": external }),
        );
        assert!(
            made["data"]["createUser"]["globalUserId"].is_string(),
            "{made}"
        );
    }
    let dir = write(&connected.scratch.0.join("site"), &questions());
    let folder = dir.to_str().unwrap();

    let unmatched = connected.connect(&["stackexchange", folder, "--dry-run"]);
    assert_eq!(
        count(&unmatched, "would send"),
        0,
        "{}",
        String::from_utf8_lossy(&unmatched.stderr)
    );
    let matched = connected.connect(&["stackexchange", folder, "--ids-are-external-ids"]);
    let said = String::from_utf8_lossy(&matched.stderr);
    assert!(matched.status.success(), "{said}");
    assert_eq!(count(&matched, "sent"), 4, "{said}");
    assert_eq!(
        connected.expert("punched cards warp threads").as_deref(),
        Some("ada@example.com")
    );
}
