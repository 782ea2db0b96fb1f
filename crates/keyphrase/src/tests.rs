use super::*;

fn extract(text: &str, format: TextFormat, hint: Option<&str>, limit: usize) -> Extraction {
    KeyphraseExtractor::new().extract(text, format, hint, limit)
}

fn keys(e: &Extraction) -> Vec<&str> {
    e.topics.iter().map(|t| t.key.as_str()).collect()
}

const ENGLISH: &str = "Neural networks learn representations from data. \
    A neural network with many layers is called a deep neural network. \
    Training neural networks requires large datasets and gradient descent. \
    Gradient descent updates the weights of the network.";

#[test]
fn finds_the_central_phrases_of_an_english_text() {
    let e = extract(ENGLISH, TextFormat::Plain, None, 10);
    assert_eq!(e.language, "en");
    let keys = keys(&e);
    assert!(keys.contains(&"neural network"), "{keys:?}");
    assert!(keys.contains(&"gradient descent"), "{keys:?}");
    assert!(keys.iter().all(|k| k.split(' ').count() <= 3));
}

#[test]
fn case_and_inflection_fold_into_one_key() {
    let e = extract(ENGLISH, TextFormat::Plain, None, 20);
    let neural: Vec<&Topic> = e
        .topics
        .iter()
        .filter(|t| t.key == "neural network")
        .collect();
    assert_eq!(
        neural.len(),
        1,
        "one key for 'Neural networks' and 'neural network'"
    );
    assert_eq!(neural[0].label.to_lowercase(), "neural network");
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
        Alpine <b>glacier</b> retreat threatens water supplies.</p></body></html>";
    let e = extract(html, TextFormat::Html, None, 10);
    let keys = keys(&e).join("|");
    assert!(keys.contains("glacier retreat"), "{keys}");
    for hidden in ["zebra", "glacierstyl", "script", "body", "style"] {
        assert!(!keys.contains(hidden), "{hidden} in {keys}");
    }
}

#[test]
fn six_languages_are_detected_and_read() {
    let texts = [
        ("en", "Climate change raises sea levels. Rising sea levels threaten coastal cities, and coastal cities must adapt to climate change."),
        ("de", "Der Klimawandel lässt den Meeresspiegel steigen. Der steigende Meeresspiegel bedroht Küstenstädte, und die Küstenstädte müssen sich an den Klimawandel anpassen."),
        ("fr", "Le changement climatique fait monter le niveau de la mer. La montée du niveau de la mer menace les villes côtières, qui doivent s'adapter au changement climatique."),
        ("es", "El cambio climático eleva el nivel del mar. El aumento del nivel del mar amenaza las ciudades costeras, que deben adaptarse al cambio climático."),
        ("it", "Il cambiamento climatico innalza il livello del mare. L'innalzamento del livello del mare minaccia le città costiere, che devono adattarsi al cambiamento climatico."),
        ("pt", "A mudança climática eleva o nível do mar. A elevação do nível do mar ameaça as cidades costeiras, que devem se adaptar à mudança climática."),
    ];
    for (code, text) in texts {
        let e = extract(text, TextFormat::Plain, None, 10);
        assert_eq!(e.language, code, "{text}");
        assert!(!e.topics.is_empty(), "{code}");
        // No topic starts or ends with a stop word of its language.
        for t in &e.topics {
            let first = t.label.split(' ').next().unwrap().to_lowercase();
            assert!(
                !["the", "der", "le", "el", "il", "a", "de", "la"].contains(&first.as_str()),
                "{code}: {}",
                t.label
            );
        }
    }
    let de = extract(texts[1].1, TextFormat::Plain, None, 10);
    assert!(
        keys(&de).iter().any(|k| k.contains("klimawandel")),
        "{:?}",
        keys(&de)
    );
    let fr = extract(texts[2].1, TextFormat::Plain, None, 10);
    assert!(
        keys(&fr).iter().any(|k| k.contains("climat")),
        "{:?}",
        keys(&fr)
    );
}

#[test]
fn a_language_hint_overrides_detection() {
    let e = extract(ENGLISH, TextFormat::Plain, Some("de"), 5);
    assert_eq!(e.language, "de");
    let e = extract(ENGLISH, TextFormat::Plain, Some("xx"), 5);
    assert_eq!(e.language, "en");
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
    assert!(
        keys(&short).contains(&"borrow checker"),
        "{:?}",
        keys(&short)
    );
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
