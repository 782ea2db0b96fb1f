use super::*;

/// A revision's XML: `who` a user name, or an address for an IP.
fn revision(id: u64, parent: u64, who: &str, minor: bool, text: &str) -> String {
    let contributor = if who.contains('.') {
        format!("<ip>{who}</ip>")
    } else {
        format!("<username>{who}</username><id>{id}</id>")
    };
    let parent = if parent == 0 {
        String::new()
    } else {
        format!("<parentid>{parent}</parentid>")
    };
    format!(
        "<revision><id>{id}</id>{parent}<timestamp>2024-03-0{}T10:00:00Z</timestamp>\
         <contributor>{contributor}</contributor>{}<comment>c</comment><model>wikitext</model>\
         <format>text/x-wiki</format><text bytes=\"{}\" xml:space=\"preserve\">{}</text></revision>\n",
        id % 9 + 1,
        if minor { "<minor />" } else { "" },
        text.len(),
        text.replace('&', "&amp;").replace('<', "&lt;")
    )
}

const INTRO: &str = "'''Espresso''' is coffee brewed by forcing hot water through [[Coffee bean|finely ground beans]].";

fn dump(pages: &[(&str, i64, Vec<String>)]) -> String {
    let mut xml = String::from(
        "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\" xml:lang=\"en\">\n\
         <siteinfo><sitename>Brew</sitename><base>https://wiki.example/wiki/Main_Page</base></siteinfo>\n",
    );
    for (title, ns, revisions) in pages {
        xml.push_str(&format!(
            "<page><title>{title}</title><ns>{ns}</ns><id>1</id>\n"
        ));
        for r in revisions {
            xml.push_str(r);
        }
        xml.push_str("</page>\n");
    }
    xml.push_str("</mediawiki>\n");
    xml
}

fn history() -> String {
    let typo = INTRO.replace("hot water", "hot watr");
    let section = format!(
        "{INTRO}\n\n== Crema ==\nThe crema is a foam of emulsified oils and carbon dioxide on top of a shot.{{{{cn}}}}"
    );
    dump(&[
        (
            "Espresso",
            0,
            vec![
                revision(10, 0, "Ada", false, &typo),
                revision(11, 10, "Grace", false, INTRO),
                revision(12, 11, "Grace", false, &section),
                revision(
                    13,
                    12,
                    "Ada",
                    true,
                    &format!("{section}\nA minor note about cups and saucers today."),
                ),
                revision(
                    14,
                    13,
                    "ArchiveBot",
                    false,
                    &format!("{section}\nArchived talk pages list of many words here now."),
                ),
                revision(15, 14, "192.0.2.7", false, "Vandalism."),
                revision(16, 15, "Ada", false, &section),
            ],
        ),
        (
            "Talk:Espresso",
            1,
            vec![revision(
                20,
                0,
                "Ada",
                false,
                "Talking about espresso at length with many many words here.",
            )],
        ),
        (
            "Ristretto",
            0,
            vec![revision(
                31,
                30,
                "Grace",
                false,
                "A ristretto is a short shot of espresso made with less water and finer grind.",
            )],
        ),
    ])
}

fn read(xml: &str, cursor: Option<&str>) -> (Vec<Found>, anyhow::Result<()>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "kenning-wiki-{}-{}.xml",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, xml).unwrap();
    let mut dump = Dump::open(&path, Rules::default()).unwrap();
    let mut all = Vec::new();
    let result = dump.read(cursor, &Window::default(), &mut |f| {
        all.push(f);
        true
    });
    std::fs::remove_file(path).unwrap();
    (all, result)
}

fn summary(all: &[Found]) -> Vec<String> {
    all.iter()
        .map(|f| match f {
            Found::Item(item) => format!("{} by {}", item.id, item.actions[0].0.key),
            Found::Skipped { reason, .. } => format!("skipped {reason}"),
            Found::Bad { problem, .. } => format!("bad {problem}"),
            Found::Whole(whole) => format!("whole {}", whole.origin),
        })
        .collect()
}

#[test]
fn an_export_without_history_is_named_with_the_option_that_holds_it() {
    let path = std::env::temp_dir().join(format!("kenning-wiki-warn-{}.xml", std::process::id()));
    std::fs::write(&path, history()).unwrap();
    let dump = Dump::open(&path, Rules::default()).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(dump.warnings(&BTreeMap::new()).is_empty());
    let warned = dump.warnings(&BTreeMap::from([(PARENT_MISSING, 229)]));
    assert_eq!(warned.len(), 1);
    assert!(
        warned[0].starts_with("229 revisions were skipped"),
        "{warned:?}"
    );
    assert!(
        warned[0].contains("Include only the current revision"),
        "{warned:?}"
    );
}

#[test]
fn revisions_teach_their_authors_what_they_added() {
    let (all, result) = read(&history(), None);
    result.unwrap();
    assert_eq!(
        summary(&all),
        [
            "10 by Ada",
            "skipped small edit",
            "12 by Grace",
            "skipped minor edit",
            "skipped bot",
            "skipped anonymous edit",
            "skipped revert",
            "skipped parent not in the dump",
        ]
    );
    let Found::Item(section) = &all[2] else {
        panic!()
    };
    assert_eq!(section.texts[0].text, "Espresso");
    assert_eq!(
        section.texts[1].text,
        "Crema\nThe crema is a foam of emulsified oils and carbon dioxide on top of a shot."
    );
    assert_eq!(section.entity_type, ENTITY_TYPE);
    assert_eq!(section.position, "revision 12 highest 12");
    assert_eq!(section.date.to_rfc3339(), "2024-03-04T10:00:00+00:00");
    let Found::Item(first) = &all[0] else {
        panic!()
    };
    assert_eq!(
        first.texts[1].text,
        "Espresso is coffee brewed by forcing hot watr through finely ground beans."
    );
}

#[test]
fn a_run_resumes_after_its_cursor_and_reads_new_revisions_of_pages_before_it() {
    let (all, _) = read(&history(), Some("revision 12 highest 12"));
    assert_eq!(all.len(), 5, "{:?}", summary(&all));
    let crema = format!(
        "{INTRO}\n\n== Crema ==\nA thick crema shows freshly roasted beans, a fine grinder setting and a well tamped puck."
    );
    let lungo = "A lungo is an espresso pulled long with twice the water through the same grounds.";
    let newer = history()
        .replace(
            "</page>\n<page><title>Talk:Espresso",
            &format!(
                "{}</page>\n<page><title>Talk:Espresso",
                revision(40, 16, "Grace", false, &crema)
            ),
        )
        .replace(
            "</mediawiki>",
            &format!(
                "<page><title>Lungo</title><ns>0</ns><id>3</id>\n{}</page>\n</mediawiki>",
                revision(41, 0, "Ada", false, lungo)
            ),
        );
    let (all, _) = read(&newer, Some("revision 31 highest 31"));
    assert_eq!(summary(&all), ["40 by Grace", "41 by Ada"]);
}

#[test]
fn a_truncated_dump_hands_what_it_read_and_names_where_it_broke() {
    let xml = history();
    let cut = &xml[..xml.find("<revision><id>13<").unwrap() + 40];
    let (all, result) = read(cut, None);
    assert_eq!(
        summary(&all),
        ["10 by Ada", "skipped small edit", "12 by Grace"]
    );
    let error = result.unwrap_err().to_string();
    assert!(error.contains(".xml: the dump breaks"), "{error}");
    assert!(error.contains("byte"), "{error}");
}

#[test]
fn a_position_names_the_last_revision_and_the_highest() {
    let resume = Resume {
        last: 120,
        highest: 907,
    };
    assert_eq!(Resume::parse(&resume.position()), Some(resume));
    assert_eq!(Resume::parse("3f2c"), None);
}
