use super::*;

fn site(posts: &str, users: Option<&str>) -> (PathBuf, Site) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kenning-se-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Posts.xml"), posts).unwrap();
    if let Some(users) = users {
        std::fs::write(dir.join("Users.xml"), users).unwrap();
    }
    let site = Site::open(&dir).unwrap();
    (dir, site)
}

fn read(site: &mut Site, cursor: Option<&str>) -> Vec<Found> {
    let mut all = Vec::new();
    site.read(cursor, &Window::default(), &mut |f| {
        all.push(f);
        true
    })
    .unwrap();
    all
}

const POSTS: &str = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<posts>\n\
  <row Id=\"1\" PostTypeId=\"1\" AcceptedAnswerId=\"3\" CreationDate=\"2015-01-27T20:09:32.720\" Body=\"&lt;p&gt;How long do beans keep?&lt;/p&gt;&#xA;\" OwnerUserId=\"4\" Title=\"Storing whole beans &amp; grounds\" Tags=\"&lt;storage&gt;&lt;whole-beans&gt;\" />\n\
  <row Id=\"2\" PostTypeId=\"2\" ParentId=\"1\" CreationDate=\"2015-01-27T21:00:00.000\" Body=\"&lt;p&gt;A month, airtight.&lt;/p&gt;\" OwnerUserId=\"7\" />\n\
  <row Id=\"3\" PostTypeId=\"2\" ParentId=\"1\" CreationDate=\"2015-01-28T08:00:01.5\" Body=\"&lt;p&gt;Freeze them.&lt;/p&gt;\" OwnerUserId=\"8\" />\n\
  <row Id=\"4\" PostTypeId=\"5\" CreationDate=\"2015-01-28T09:00:00.000\" Body=\"\" OwnerUserId=\"-1\" />\n\
  <row Id=\"5\" PostTypeId=\"2\" ParentId=\"1\" CreationDate=\"2015-01-29T09:00:00.000\" Body=\"&lt;p&gt;Cold.&lt;/p&gt;\" />\n\
  <row Id=\"6\" PostTypeId=\"2\" ParentId=\"1\" CreationDate=\"yesterday\" Body=\"x\" OwnerUserId=\"7\" />\n\
  <row Id=\"7\" PostTypeId=\"2\" ParentId=\"99\" CreationDate=\"2015-01-30T09:00:00.000\" Body=\"x\" OwnerUserId=\"7\" />\n\
  <row Id=\"8\" PostTypeId=\"2\" ParentId=\"1\" CreationDate=\"2015-01-30T09:00:00.000\" Body=\"&lt;p&gt;Vacuum.&lt;/p&gt;\" OwnerUserId=\"-1\" />\n\
  </posts>\n";

#[test]
fn tags_are_words_in_either_format_of_a_dump() {
    assert_eq!(
        tags_as_words("<beer><specialty-beers>"),
        "beer\nspecialty beers"
    );
    assert_eq!(tags_as_words("|ipa|cask_ale|"), "ipa\ncask ale");
    assert_eq!(tags_as_words(""), "");
}

#[test]
fn answers_teach_from_the_question_and_themselves_and_asking_teaches_the_asker() {
    let users = "<users><row Id=\"7\" DisplayName=\"Ada\" EmailAddress=\"ada@example.com\" /><row Id=\"8\" DisplayName=\"Grace\" /></users>";
    let (dir, mut site) = site(POSTS, Some(users));
    let all = read(&mut site, None);
    let Found::Item(question) = &all[0] else {
        panic!("{all:?}")
    };
    assert_eq!(
        (question.entity_type, question.actions[0].1),
        (QUESTION, ASKED)
    );
    assert_eq!(question.actions[0].0.key, "4");
    assert_eq!(question.texts[0].text, "Storing whole beans & grounds");
    // The tags are the site's names for its subject, read as words.
    assert_eq!(question.texts[1].text, "storage\nwhole beans");
    assert_eq!(question.texts[2].text, "<p>How long do beans keep?</p>\n");
    assert!(question.texts[2].html);
    // Asking teaches a little: every text of a question is secondary for
    // its asker, where its title and tags are primary for an answerer.
    assert!(question
        .texts
        .iter()
        .all(|t| t.descriptor == Descriptor::Secondary));
    let Found::Item(answer) = &all[1] else {
        panic!("{all:?}")
    };
    assert_eq!(
        (answer.entity_type, answer.actions[0].1),
        (ANSWER, ANSWERED)
    );
    assert_eq!(
        answer.actions[0].0.email.as_deref(),
        Some("ada@example.com")
    );
    let texts: Vec<&str> = answer.texts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Storing whole beans & grounds",
            "storage\nwhole beans",
            "<p>How long do beans keep?</p>\n",
            "<p>A month, airtight.</p>"
        ]
    );
    let descriptors: Vec<Descriptor> = answer.texts.iter().map(|t| t.descriptor).collect();
    assert_eq!(
        descriptors,
        [
            Descriptor::Primary,
            Descriptor::Primary,
            Descriptor::Default,
            Descriptor::Default
        ]
    );
    let Found::Item(accepted) = &all[2] else {
        panic!("{all:?}")
    };
    assert_eq!(accepted.actions[0].1, ACCEPTED);
    assert_eq!(accepted.date.to_rfc3339(), "2015-01-28T08:00:01.500+00:00");
    assert!(matches!(
        all[3],
        Found::Skipped {
            reason: "not a question or answer",
            ..
        }
    ));
    assert!(matches!(
        all[4],
        Found::Skipped {
            reason: "no author",
            ..
        }
    ));
    let Found::Bad {
        origin, problem, ..
    } = &all[5]
    else {
        panic!("{all:?}")
    };
    assert!(origin.ends_with("Posts.xml post 6"), "{origin}");
    assert!(problem.contains("yesterday"), "{problem}");
    let Found::Bad { problem, .. } = &all[6] else {
        panic!("{all:?}")
    };
    assert!(
        problem.contains("question 99 is not in Posts.xml"),
        "{problem}"
    );
    assert!(matches!(
        all[7],
        Found::Skipped {
            reason: "community user",
            ..
        }
    ));
    assert_eq!(all.len(), 8);
    assert_eq!(
        site.display_names(&["8", "4"]),
        BTreeMap::from([("8".to_owned(), "Grace".to_owned())])
    );

    // After the cursor, only newer posts; their questions are still found.
    let later = read(&mut site, Some("2"));
    let Found::Item(accepted) = &later[0] else {
        panic!("{later:?}")
    };
    assert_eq!(
        (accepted.id.as_str(), accepted.position.as_str()),
        ("3", "3")
    );
    assert_eq!(accepted.texts[0].text, "Storing whole beans & grounds");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_question_read_long_before_is_found_again_in_the_file() {
    let mut posts = String::from("<posts>\n");
    for id in 1..=500u64 {
        let (kind, extra) = if id % 5 == 1 {
            ("1", format!("Title=\"Question {id}\""))
        } else {
            ("2", format!("ParentId=\"{}\"", id - id % 5 + 1))
        };
        posts.push_str(&format!(
            "  <row Id=\"{id}\" PostTypeId=\"{kind}\" {extra} CreationDate=\"2020-01-01T00:00:00.000\" Body=\"body {id} {}\" OwnerUserId=\"3\" />\n",
            "x".repeat((id % 7) as usize * 40)
        ));
    }
    posts.push_str("</posts>\n");
    let (dir, site) = site(&posts, None);
    for id in [1, 6, 251, 496] {
        let question = find_question(&site.posts, id).unwrap().unwrap();
        assert_eq!(question.title, format!("Question {id}"));
    }
    assert_eq!(find_question(&site.posts, 2).unwrap(), None);
    assert_eq!(find_question(&site.posts, 9_999).unwrap(), None);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_truncated_dump_is_an_error_naming_the_file_and_byte() {
    let cut = &POSTS[..POSTS.find("<row Id=\"3\"").unwrap() + 20];
    let (dir, mut site) = site(cut, None);
    let mut items = 0;
    let error = site
        .read(None, &Window::default(), &mut |f| {
            items += usize::from(matches!(f, Found::Item(_)));
            true
        })
        .unwrap_err()
        .to_string();
    assert_eq!(items, 2);
    assert!(error.contains("Posts.xml: the dump breaks"), "{error}");
    assert!(error.contains("byte"), "{error}");
    std::fs::remove_dir_all(dir).unwrap();
}
