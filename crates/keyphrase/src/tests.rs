use super::*;

fn extract(text: &str, format: TextFormat, hint: Option<&str>, limit: usize) -> Extraction {
    KeyphraseExtractor::new().extract(text, format, hint, limit)
}

fn keys(e: &Extraction) -> Vec<&str> {
    e.topics.iter().map(|t| t.key.as_str()).collect()
}

fn labels(e: &Extraction) -> Vec<&str> {
    e.topics.iter().map(|t| t.label.as_str()).collect()
}

const ENGLISH: &str = "Neural networks learn representations from data. \
    A neural network with many layers is called a deep neural network. \
    Training neural networks requires large datasets and gradient descent. \
    Gradient descent updates the weights of the network.";

#[test]
fn the_best_topics_of_a_short_clear_text_are_its_subject() {
    let e = extract(ENGLISH, TextFormat::Plain, None, 10);
    assert_eq!(e.language, "en");
    let keys = keys(&e);
    assert_eq!(keys[0], "neural network", "{keys:?}");
    assert!(keys[..3].contains(&"gradient descent"), "{keys:?}");
    assert!(keys.iter().all(|k| k.split(' ').count() <= 3));
}

#[test]
fn a_title_and_its_repeated_phrases_lead() {
    let text = "Kalman filters for satellite orbit determination\n\
        We apply Kalman filters to satellite orbit determination from ground \
        station measurements. The Kalman filter copes with noisy measurements, \
        and the orbit determination converges within two passes.";
    let e = extract(text, TextFormat::Plain, None, 5);
    let keys = keys(&e);
    assert!(keys[..3].contains(&"kalman filter"), "{keys:?}");
    assert!(
        keys[..3].iter().any(|k| k.ends_with("orbit determin")),
        "{keys:?}"
    );
}

#[test]
fn an_acronym_counts_for_the_phrase_it_abbreviates() {
    let text = "Terrain mapping from stereo images\n\
        We build a digital elevation model (DEM) from stereo satellite images. \
        Stereo matching gives heights; the DEM is filtered for noise, \
        and the DEM is compared with ground surveys. Ground surveys of the \
        DEM show small errors in stereo matching.";
    let e = extract(text, TextFormat::Plain, None, 5);
    let keys = keys(&e);
    // Without the acronym's uses the phrase is seen once and falls out.
    assert!(keys[..2].contains(&"digit elev model"), "{keys:?}");
    assert!(keys[..2].contains(&"dem"), "{keys:?}");
}

#[test]
fn case_and_inflection_fold_into_one_key_with_a_readable_label() {
    let e = extract(ENGLISH, TextFormat::Plain, None, 20);
    let neural: Vec<&Topic> = e
        .topics
        .iter()
        .filter(|t| t.key == "neural network")
        .collect();
    assert_eq!(neural.len(), 1, "{:?}", labels(&e));
    // "neural network" is written twice, "Neural networks" and "neural
    // networks" once each.
    assert_eq!(neural[0].label, "neural network");

    let text = "KALMAN FILTERS. Kalman filters smooth tracks. A Kalman filter \
        predicts; Kalman filters correct. The Kalman filter is optimal.";
    let e = extract(text, TextFormat::Plain, Some("en"), 5);
    let kalman: Vec<&Topic> = e
        .topics
        .iter()
        .filter(|t| t.key == "kalman filter")
        .collect();
    assert_eq!(kalman.len(), 1, "{:?}", labels(&e));
    assert_eq!(kalman[0].label, "Kalman filters");
}

#[test]
fn elided_articles_are_words_of_their_own() {
    let text = "L'approvisionnement en eau des vallées dépend des glaciers. \
        La fonte des glaciers menace l'approvisionnement en eau, \
        et l'approvisionnement en eau devient fragile.";
    let e = extract(text, TextFormat::Plain, None, 10);
    assert_eq!(e.language, "fr");
    let keys = keys(&e);
    assert!(keys.contains(&"approvision"), "{keys:?}");
    assert!(keys.iter().all(|k| !k.contains('\'')), "{keys:?}");
    assert!(
        labels(&e).contains(&"approvisionnement"),
        "{:?}",
        labels(&e)
    );
}

#[test]
fn phrases_end_where_the_language_ends_a_noun_phrase() {
    let english = "The method proposed here detects edges. The method proposed \
        before failed. Edge detection with the proposed method is fast.";
    let e = extract(english, TextFormat::Plain, Some("en"), 10);
    assert!(
        labels(&e).iter().all(|l| !l.ends_with("proposed")),
        "{:?}",
        labels(&e)
    );
    let german = "Der Klimawandel lässt die Gletscher der Alpen schmelzen. \
        Die Gletscherschmelze bedroht die Wasserversorgung der Täler.";
    let e = extract(german, TextFormat::Plain, None, 10);
    assert_eq!(e.language, "de");
    for label in labels(&e) {
        let last = label.split(' ').next_back().unwrap();
        assert!(last.starts_with(char::is_uppercase), "{label}");
    }
    assert!(keys(&e).contains(&"klimawandel"), "{:?}", keys(&e));
}

#[test]
fn numbers_and_roman_numerals_are_not_topics() {
    let text = "Type II diabetes and type III collagen. Patients with Type II \
        diabetes in 2019 and 2020 took 500 mg. Chapter XIV covers insulin.";
    let e = extract(text, TextFormat::Plain, Some("en"), 20);
    for key in keys(&e) {
        for word in key.split(' ') {
            assert!(
                !["ii", "iii", "xiv", "2019", "2020", "500"].contains(&word),
                "{key}"
            );
        }
    }
    assert!(keys(&e).contains(&"diabet"), "{:?}", keys(&e));
}

#[test]
fn relevance_is_in_the_unit_interval_best_first() {
    let e = extract(ENGLISH, TextFormat::Plain, None, 10);
    assert!(!e.topics.is_empty());
    assert_eq!(e.topics[0].relevance, 1.0);
    for pair in e.topics.windows(2) {
        assert!(pair[0].relevance >= pair[1].relevance);
    }
    assert!(e
        .topics
        .iter()
        .all(|t| t.relevance > 0.0 && t.relevance <= 1.0));
}

#[test]
fn the_limit_is_respected_and_results_are_deterministic() {
    for limit in [0, 1, 3] {
        assert!(
            extract(ENGLISH, TextFormat::Plain, None, limit)
                .topics
                .len()
                <= limit
        );
    }
    assert_eq!(
        extract(ENGLISH, TextFormat::Plain, None, 10),
        extract(ENGLISH, TextFormat::Plain, None, 10)
    );
}

#[test]
fn html_is_read_for_its_visible_text() {
    let html = "<html><head><style>.glacierstyle{}</style><script>var zebra=1;</script></head>\
        <body><h1>Glacier retreat</h1><p>Glacier retreat in the Alps accelerates. \
        Alpine <b>glacier</b> retreat threatens water&nbsp;supplies &amp; \
        caf&eacute;s.</p></body></html>";
    let e = extract(html, TextFormat::Html, None, 10);
    let keys = keys(&e).join("|");
    assert!(keys.contains("glacier retreat"), "{keys}");
    for hidden in [
        "zebra",
        "glacierstyl",
        "var",
        "script",
        "body",
        "style",
        "amp",
        "nbsp",
    ] {
        assert!(
            !keys.split('|').any(|k| k.contains(hidden)),
            "{hidden} in {keys}"
        );
    }
    assert!(
        labels(&e).iter().any(|l| l.contains("cafés")),
        "{:?}",
        labels(&e)
    );
    // Read as plain text, the same markup is words.
    let plain = extract(html, TextFormat::Plain, Some("en"), 30);
    assert!(keys_contain(&plain, "zebra"), "{:?}", self::keys(&plain));
}

fn keys_contain(e: &Extraction, word: &str) -> bool {
    e.topics.iter().any(|t| t.key.contains(word))
}

#[test]
fn six_languages_are_detected_and_read() {
    let texts = [
        ("en", "Climate change raises sea levels. Rising sea levels threaten coastal cities, and coastal cities must adapt to climate change.", "climat chang"),
        ("de", "Der Klimawandel lässt den Meeresspiegel steigen. Der steigende Meeresspiegel bedroht Küstenstädte, und die Küstenstädte müssen sich an den Klimawandel anpassen.", "meeresspiegel"),
        ("fr", "Le changement climatique fait monter le niveau de la mer. La montée du niveau de la mer menace les villes côtières, qui doivent s'adapter au changement climatique.", "chang climat"),
        ("es", "El cambio climático eleva el nivel del mar. El aumento del nivel del mar amenaza las ciudades costeras, que deben adaptarse al cambio climático.", "cambi climat"),
        ("it", "Il cambiamento climatico innalza il livello del mare. L'innalzamento del livello del mare minaccia le città costiere, che devono adattarsi al cambiamento climatico.", "camb climat"),
        ("pt", "A mudança climática eleva o nível do mar. A elevação do nível do mar ameaça as cidades costeiras, que devem se adaptar à mudança climática.", "mudanc climát"),
    ];
    for (code, text, expected) in texts {
        let e = extract(text, TextFormat::Plain, None, 10);
        assert_eq!(e.language, code, "{text}");
        // Stemmed with the language's own Snowball stemmer.
        assert!(keys(&e).contains(&expected), "{code}: {:?}", keys(&e));
        // No topic starts or ends with a stop word of its language.
        for t in &e.topics {
            for word in [t.label.split(' ').next(), t.label.split(' ').next_back()] {
                let word = word.unwrap().to_lowercase();
                assert!(
                    !["the", "der", "den", "le", "la", "el", "il", "a", "de", "do", "del"]
                        .contains(&word.as_str()),
                    "{code}: {}",
                    t.label
                );
            }
        }
    }
}

#[test]
fn a_language_hint_overrides_detection() {
    let e = extract(ENGLISH, TextFormat::Plain, Some("de"), 5);
    assert_eq!(e.language, "de");
    let e = extract(ENGLISH, TextFormat::Plain, Some("FR"), 5);
    assert_eq!(e.language, "fr");
    // An unsupported hint falls back to detection.
    let e = extract(ENGLISH, TextFormat::Plain, Some("xx"), 5);
    assert_eq!(e.language, "en");
    let german =
        "Der Klimawandel lässt den Meeresspiegel steigen, und die Städte müssen sich anpassen.";
    assert_eq!(
        extract(german, TextFormat::Plain, Some("xx"), 5).language,
        "de"
    );
}

#[test]
fn odd_inputs_give_nothing_or_something_but_never_panic() {
    for text in [
        "",
        "   \n\t ",
        "🙂🙂🙂 🎉",
        "... ,,, !!!",
        "12 34 5.6",
        "a",
        "<<<>>>",
        "l' d' qu'",
    ] {
        for format in [TextFormat::Plain, TextFormat::Html] {
            let e = extract(text, format, None, 10);
            assert!(e.topics.iter().all(|t| !t.key.is_empty()), "{text:?}");
        }
    }
    let huge = "Quantum computing uses qubits. ".repeat(40_000);
    let e = extract(&huge, TextFormat::Plain, None, 5);
    assert!(keys(&e)
        .iter()
        .any(|k| k.contains("qubit") || k.contains("quantum")));
    let short = extract("rust borrow checker", TextFormat::Plain, None, 10);
    assert_eq!(short.language, "en");
    assert_eq!(keys(&short), ["rust borrow checker"]);
}

#[test]
fn jargon_heavy_text_is_read_by_its_function_words() {
    for (code, text) in [
        ("en", "Kubernetes clusters schedule containers across nodes. Our Kubernetes clusters run the payment services, and Kubernetes operators restart failed containers and scale the clusters when traffic grows."),
        ("en", "Neural machine translation models translate technical manuals."),
        ("de", "Kubernetes-Cluster verteilen Container auf die Knoten, und die Operatoren starten ausgefallene Container neu."),
        ("fr", "Les clusters Kubernetes répartissent les conteneurs sur les nœuds et les opérateurs redémarrent les conteneurs."),
    ] {
        assert_eq!(extract(text, TextFormat::Plain, None, 5).language, code, "{text}");
    }
    let e = extract(
        "Kubernetes clusters schedule containers across nodes. Our Kubernetes clusters run the payment services.",
        TextFormat::Plain,
        None,
        10,
    );
    assert!(keys(&e).contains(&"kubernet cluster"), "{:?}", keys(&e));
    assert!(
        e.topics.iter().all(|t| !t.label.starts_with("Our ")),
        "{:?}",
        keys(&e)
    );
}

#[test]
fn a_title_of_words_many_languages_share_is_read_in_english() {
    // One function word shared by several languages ("in", "for"), and
    // the character statistics unsure: English, first, reads it.
    for title in [
        "fix heap buffer overflow in read_pixmap",
        "Add support for HDR10 output",
        "Fix logical error in criteria matching",
        "tree/container: remove event listeners on destroy",
    ] {
        assert_eq!(
            extract(title, TextFormat::Plain, None, 5).language,
            "en",
            "{title}"
        );
    }
    // A Danish title sure of itself stays Danish.
    let danish = "Tilføj understøttelse af flere skærme, og ret fejlen i vinduet når det lukkes";
    assert_eq!(extract(danish, TextFormat::Plain, None, 5).language, "da");
}

#[test]
fn texts_read_together_tell_the_language_of_the_short_one() {
    let extractor = KeyphraseExtractor::new();
    let title = "Lösung für den Ausgabe";
    let body = "<p>Die Ausgabe wird jetzt mit dem Farbmanager gezeichnet, \
        und der Bildschirm bleibt beim Wechsel der Arbeitsfläche stabil.</p>";
    assert_eq!(
        extractor
            .language_of(&[(title, TextFormat::Plain), (body, TextFormat::Html)])
            .as_deref(),
        Some("de")
    );
    let title = "Add support for HDR10 output";
    let body = "The output is drawn with the colour manager, and the screen stays \
        steady when the workspace changes.";
    assert_eq!(
        extractor
            .language_of(&[(title, TextFormat::Plain), (body, TextFormat::Plain)])
            .as_deref(),
        Some("en")
    );
    assert_eq!(extractor.language_of(&[]).as_deref(), Some("en"));
}

#[test]
fn short_names_of_letters_and_digits_are_topics() {
    let read = |text: &str| {
        let e = extract(text, TextFormat::Plain, None, 10);
        e.words.iter().map(|w| w.key.clone()).collect::<Vec<_>>()
    };
    let words = read("We draw the charts with d3. The d3 charts read the data from S3 buckets.");
    assert!(words.contains(&"d3".to_owned()), "{words:?}");
    assert!(words.contains(&"s3".to_owned()), "{words:?}");
    let words = read("The kernel builds for x86 and arm64. The x86 build needs a new linker.");
    assert!(words.contains(&"x86".to_owned()), "{words:?}");
    let words = read("I moved my desktop to i3. The i3 window manager tiles windows.");
    assert!(words.contains(&"i3".to_owned()), "{words:?}");
    // Sizes and counts stay numbers; two letters alone stay stop words.
    let words = read("A 1920x1080 screen, 4x faster, on a TV at 2x the price; we go on.");
    assert!(
        !words
            .iter()
            .any(|w| w.starts_with(|c: char| c.is_ascii_digit()) || w == "go"),
        "{words:?}"
    );
}

/// Asserts that none of `gone` is in a word or a topic of what `text`
/// teaches, and that its subject, damage tracking, is.
fn teaches_none_of(text: &str, gone: &[&str]) {
    let e = extract(text, TextFormat::Plain, None, 20);
    let words: Vec<&str> = e.words.iter().map(|w| w.key.as_str()).collect();
    for gone in gone {
        assert!(
            !words.iter().any(|w| w.contains(gone)),
            "{gone} in {words:?}"
        );
        assert!(
            !keys(&e).iter().any(|k| k.contains(gone)),
            "{gone} in {:?}",
            keys(&e)
        );
    }
    assert!(keys(&e).contains(&"damag track"), "{:?}", keys(&e));
}

#[test]
fn a_link_is_no_words() {
    teaches_none_of(
        "Damage tracking for the compositor: see \
         https://gitlab.freedesktop.org/wlroots/wlroots/-/merge_requests/4242 and \
         www.example.org/damage_tracking for the design of damage tracking, \
         HTTPS://Docs.Example.net/Frames and WWW.Example.com/Ideas too.",
        &[
            "gitlab.freedesktop.org",
            "merge_request",
            "wlroot",
            "www.example.org",
            "4242",
            "docs.example.net",
            "frame",
            "idea",
        ],
    );
}

#[test]
fn an_address_and_a_link_of_any_scheme_are_no_words() {
    teaches_none_of(
        "Damage tracking questions go to <ada@example.com> or \
         mailto:grace@lists.example.org; the damage tracking tree is at \
         git://git.example.org/pub/scm/compositor.git for damage tracking.",
        &["example.com", "example.org", "ada", "grace", "scm", "pub"],
    );
}
