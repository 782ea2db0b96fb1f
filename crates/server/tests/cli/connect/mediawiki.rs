//! `kenning connect mediawiki` on dumps the tests write in MediaWiki's
//! export format (0.11, as `Special:Export` and `dumpBackup.php` write it).

use std::path::Path;
use std::process::Command;

use super::contract::{self, Fixture};
use super::{count, Connected};

/// A revision's XML: `who` a user name, or an address for an IP edit.
fn revision(id: u64, parent: u64, who: &str, minor: bool, text: &str) -> String {
    let contributor = if who.contains('.') {
        format!("<ip>{who}</ip>")
    } else {
        format!("<username>{who}</username><id>{}</id>", who.len())
    };
    let parent = if parent == 0 {
        String::new()
    } else {
        format!("<parentid>{parent}</parentid>")
    };
    format!(
        "    <revision>\n      <id>{id}</id>\n      {parent}\n      <timestamp>2026-01-{:02}T10:00:00Z</timestamp>\n\
               <contributor>{contributor}</contributor>\n      {}\n      <comment>edit</comment>\n\
               <model>wikitext</model>\n      <format>text/x-wiki</format>\n\
               <text bytes=\"{}\" xml:space=\"preserve\">{}</text>\n      <sha1>x</sha1>\n    </revision>\n",
        id % 28 + 1,
        if minor { "<minor />" } else { "" },
        text.len(),
        text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
    )
}

/// A page's XML with its revisions.
fn page(title: &str, ns: i64, revisions: &[String]) -> String {
    format!(
        "  <page>\n    <title>{title}</title>\n    <ns>{ns}</ns>\n    <id>{}</id>\n{}  </page>\n",
        title.len(),
        revisions.concat()
    )
}

/// A dump of `pages`.
fn dump(pages: &[String]) -> String {
    format!(
        "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" version=\"0.11\" xml:lang=\"en\">\n\
         <siteinfo>\n  <sitename>Engines</sitename>\n  <dbname>engines</dbname>\n\
         <base>https://wiki.example/wiki/Main_Page</base>\n  <generator>MediaWiki 1.41.0</generator>\n\
         <case>first-letter</case>\n</siteinfo>\n{}</mediawiki>\n",
        pages.concat()
    )
}

const ENGINE: &str =
    "The '''Analytical Engine''' is a [[mechanical computer|mechanical general-purpose computer]] \
    designed by [[Charles Babbage]].{{cn}}<ref>Bromley 1982.</ref>";

/// The history of every kind of revision: a page created, a typo fixed,
/// a section added, a minor edit, a bot, an IP edit, someone Kenning does
/// not know, and a talk page.
fn history() -> Vec<String> {
    let typo = ENGINE.replace("designed", "desinged");
    let section = format!(
        "{ENGINE}\n\n== Programs ==\nAda's program computed [[Bernoulli number]]s with loops of punched cards, \
         the first published algorithm for the engine."
    );
    let quantum = format!(
        "{section}\n\n== In fiction ==\nQuantum chromodynamics engines appear in steampunk novels about gluon colour charge."
    );
    vec![
        page(
            "Analytical Engine",
            0,
            &[
                revision(101, 0, "Grace", false, &typo),
                revision(102, 101, "Ada", false, ENGINE),
                revision(103, 102, "Ada", false, &section),
                revision(
                    104,
                    103,
                    "Grace",
                    true,
                    &format!("{section}\nSee also the difference engine."),
                ),
                revision(
                    105,
                    104,
                    "InternetArchiveBot",
                    false,
                    &format!(
                        "{section}\n{{{{Authority control}}}} archived links and many more words"
                    ),
                ),
                revision(
                    106,
                    105,
                    "192.0.2.44",
                    false,
                    &format!(
                        "{section}\nAnonymous opinions about brass gears and levers everywhere."
                    ),
                ),
                revision(107, 106, "Eve", false, &quantum),
            ],
        ),
        page(
            "Talk:Analytical Engine",
            1,
            &[revision(
                108,
                0,
                "Ada",
                false,
                "Talking about lace looms and jacquard cards for a long while.",
            )],
        ),
    ]
}

fn identities(dir: &Path) -> String {
    let path = dir.join("identities.csv");
    std::fs::write(
        &path,
        "identity,email\nAda,ada@example.com\nGrace,grace@example.com\n",
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn revisions_teach_what_they_added_once_and_a_new_run_reads_only_what_is_new() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dir = &connected.scratch.0;
    let path = dir.join("engines.xml");
    std::fs::write(&path, dump(&history())).unwrap();
    let (file, ids) = (path.to_str().unwrap(), identities(dir));

    let first = connected.connect(&["mediawiki", file, "--identities", &ids, "--report"]);
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    // Grace created the page, Ada's typo fix taught nothing, her section
    // did; the minor edit, the bot and the IP edit teach nobody, the talk
    // page is not read, and Eve is nobody Kenning knows.
    assert_eq!(count(&first, "read"), 7, "{said}");
    assert_eq!(count(&first, "sent"), 2, "{said}");
    assert_eq!(count(&first, "not found"), 1, "{said}");
    for skip in ["small edit", "minor edit", "bot", "anonymous edit"] {
        assert!(said.contains(&format!("skipped ({skip}): 1")), "{said}");
    }
    assert!(
        said.contains("not found: Eve (1 uploads not sent)"),
        "{said}"
    );
    assert_eq!(
        connected
            .expert("Bernoulli numbers punched cards")
            .as_deref(),
        Some("ada@example.com")
    );
    assert_eq!(
        connected
            .expert("mechanical general-purpose computer")
            .as_deref(),
        Some("grace@example.com")
    );
    assert_eq!(connected.expert("lace looms jacquard"), None);

    let again = connected.connect(&["mediawiki", file, "--identities", &ids]);
    assert!(again.status.success());
    assert_eq!(
        count(&again, "read"),
        0,
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // A later dump of the wiki at the same path: a new revision of the
    // page read before, and a new page.
    let mut newer = history();
    newer[0] = newer[0].replace(
        "  </page>",
        &format!(
            "{}  </page>",
            revision(
                110,
                107,
                "Grace",
                false,
                "The engine's store held a thousand numbers of fifty decimal digits on brass wheels."
            )
        ),
    );
    newer.push(page(
        "Difference Engine",
        0,
        &[revision(111, 0, "Ada", false, "The difference engine tabulates polynomial functions by the method of finite differences.")],
    ));
    std::fs::write(&path, dump(&newer)).unwrap();
    let newer = connected.connect(&["mediawiki", file, "--identities", &ids]);
    assert_eq!(
        count(&newer, "read"),
        2,
        "{}",
        String::from_utf8_lossy(&newer.stderr)
    );
    assert_eq!(count(&newer, "sent"), 2);

    // Without its cursor, a run costs time, never a second lesson.
    std::fs::remove_dir_all(dir.join("cursors")).unwrap();
    let lost = connected.connect(&["mediawiki", file, "--identities", &ids]);
    assert_eq!(count(&lost, "sent"), 0);
    assert_eq!(count(&lost, "already known"), 4);
}

#[test]
fn a_gzipped_dump_reads_as_the_plain_one() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dir = &connected.scratch.0;
    let path = dir.join("engines.xml");
    std::fs::write(&path, dump(&history())).unwrap();
    let gzip = Command::new("gzip").arg(&path).status().unwrap();
    assert!(gzip.success());
    let ids = identities(dir);
    let run = connected.connect(&[
        "mediawiki",
        dir.join("engines.xml.gz").to_str().unwrap(),
        "--identities",
        &ids,
    ]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert_eq!(count(&run, "sent"), 2, "{said}");
}

#[test]
fn keeps_the_source_contract() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let dir = &connected.scratch.0;
    // 400 pages of a revision each, revision n of January's (n % 28 + 1)th.
    let pages: Vec<String> = (1..=400u64)
        .map(|n| {
            page(
                &format!("Gear {n}"),
                0,
                &[revision(n, 0, "Ada", false, &format!("Gear {n} of the difference engine train meshes with gear {} on a brass shaft.", n + 1))],
            )
        })
        .collect();
    let path = dir.join("gears.xml");
    std::fs::write(&path, dump(&pages)).unwrap();
    let undated = revision(1, 0, "Ada", false, "Gears of the difference engine.")
        .replace("2026-01-02T10:00:00Z", "yesterday");
    let bad = dir.join("bad.xml");
    std::fs::write(&bad, dump(&[page("Bad", 0, &[undated])])).unwrap();
    let fixture = Fixture {
        args: vec![
            "mediawiki".to_owned(),
            path.to_str().unwrap().to_owned(),
            "--identities".to_owned(),
            identities(dir),
        ],
        items: 400,
        window: ("2026-01-01", "2026-01-01", 14),
        bad: Some((
            vec![
                "mediawiki".to_owned(),
                bad.to_str().unwrap().to_owned(),
                "--identities".to_owned(),
                identities(dir),
            ],
            "revision 1 of \"Bad\"",
        )),
    };
    contract::holds(&connected, &fixture);
}

#[test]
fn bad_input_is_one_clear_error_and_what_was_read_before_is_sent() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dir = &connected.scratch.0;
    let ids = identities(dir);

    let text = dir.join("notes.xml");
    std::fs::write(&text, "<notes><note>not a wiki</note></notes>").unwrap();
    let refused = connected.connect(&["mediawiki", text.to_str().unwrap()]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("notes.xml: not a MediaWiki XML dump"),
        "{said}"
    );

    // A revision whose timestamp cannot be read is named; the run goes on.
    let mut pages = history();
    // Revision 101 is dated the 18th.
    pages[0] = pages[0].replace("2026-01-18T10:00:00Z", "the eighteenth of January");
    let malformed = dir.join("malformed.xml");
    std::fs::write(&malformed, dump(&pages)).unwrap();
    let run = connected.connect(&[
        "mediawiki",
        malformed.to_str().unwrap(),
        "--identities",
        &ids,
    ]);
    assert!(!run.status.success());
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(
        said.contains("malformed.xml revision 101 of \"Analytical Engine\""),
        "{said}"
    );
    assert!(said.contains("a timestamp Kenning cannot read"), "{said}");
    assert_eq!(count(&run, "sent"), 1, "{said}");

    // A dump cut off mid-revision: what came before it is sent, then one
    // line names the file and where it broke.
    let whole = dump(&history());
    let cut_at = whole.find("<id>104</id>").unwrap();
    let truncated = dir.join("truncated.xml");
    std::fs::write(&truncated, &whole[..cut_at]).unwrap();
    let run = connected.connect(&[
        "mediawiki",
        truncated.to_str().unwrap(),
        "--identities",
        &ids,
    ]);
    assert!(!run.status.success());
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(said.contains("truncated.xml: the dump breaks"), "{said}");
    assert!(said.contains("byte"), "{said}");
    // What the run before sent from the same revisions is known already.
    assert_eq!(
        count(&run, "sent") + count(&run, "already known"),
        2,
        "{said}"
    );
    // Once the dump is whole, the next run sends the rest, and only it.
    std::fs::write(&truncated, &whole).unwrap();
    let mended = connected.connect(&[
        "mediawiki",
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
