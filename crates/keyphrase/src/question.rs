//! A query read as a question: the words that ask for a person apart from
//! the subject asked about.
//!
//! People type "who can help with GDPR", "I need someone who knows
//! payroll", "wer kennt sich mit Datenschutz aus". The words around the
//! subject ask for a person; none of them is a topic. A question is read
//! from two kinds of words of the query's language (and English, as every
//! query is also read in English):
//!
//! - **function words**: the extractor's stop words (pronouns,
//!   prepositions, auxiliaries, articles);
//! - **asking words**: the words a question for a person is made of in
//!   that language, with their inflections: the interrogatives ("who",
//!   "wer", "qui"), the verbs of knowing, helping, needing, looking for and
//!   asking, the words for someone, an expert or a colleague, and the
//!   courtesies around them ([`asking_words`]).
//!
//! The question is the run of such words that opens the query, when it
//! holds an asking word and either a function word or a second asking
//! word (or the query ends with a question mark): "help desk" is a
//! subject, "who knows" and "I need help with" are questions. A run that
//! ends in asking words after a preposition ("who can help with help
//! desks") gives those back to the subject, and the function and asking
//! words that close a question ("... aus", "... anyone?") are read as the
//! question too. What lies between is the subject.

use crate::language::Rules;

/// The asking words of a language (ISO 639-1), lower case: interrogatives
/// for a person, the verbs and nouns of asking for one, and the
/// courtesies around a question, with their common inflections.
pub fn asking_words(code: &str) -> &'static [&'static str] {
    match code {
        "en" => &[
            "who", "whom", "who's", "anyone", "anybody", "someone", "somebody", "everyone",
            "person", "people", "expert", "experts", "specialist", "specialists", "colleague",
            "colleagues", "guru", "know", "knows", "knew", "knowing", "knowledgeable", "familiar",
            "experienced", "experience", "skilled", "good", "help", "helps", "helping", "need",
            "needs", "needed", "want", "wants", "looking", "look", "seeking", "seek", "searching",
            "find", "ask", "asking", "question", "questions", "advice", "advise", "explain",
            "tell", "understand", "understands", "talk", "answer", "recommend", "suggest",
            "please", "hi", "hello", "hey", "thanks",
        ],
        "de" => &[
            "wer", "wen", "wem", "jemand", "jemanden", "jemandem", "irgendwer", "irgendjemand",
            "person", "leute", "experte", "experten", "expertin", "fachmann", "fachfrau",
            "spezialist", "spezialistin", "kollege", "kollegin", "kollegen", "ansprechpartner",
            "ansprechpartnerin", "kennt", "kennen", "kenne", "kennst", "auskennt", "auskennen",
            "weiß", "weiss", "wissen", "weißt", "weisst", "erfahrung", "erfahrungen", "ahnung",
            "bescheid", "gut", "hilft", "helfen", "helfe", "hilfe", "brauche", "braucht",
            "brauchen", "benötige", "benötigt", "suche", "sucht", "suchen", "frage", "fragen",
            "rat", "erklären", "erklärt", "hallo", "bitte", "danke",
        ],
        "fr" => &[
            "qui", "quelqu'un", "quelqu’un", "personne", "gens", "expert", "experte", "experts",
            "spécialiste", "spécialistes", "collègue", "collègues", "connaît", "connait",
            "connaissent", "connais", "connaître", "sait", "savent", "sais", "savoir",
            "expérience", "maîtrise", "aide", "aider", "aidez", "besoin", "cherche", "cherchons",
            "recherche", "trouver", "demander", "question", "questions", "conseil", "conseils",
            "expliquer", "bonjour", "merci", "plaît",
        ],
        "es" => &[
            "quién", "quien", "quiénes", "alguien", "persona", "experto", "experta", "expertos",
            "especialista", "colega", "sabe", "saben", "conoce", "conocen", "experiencia",
            "ayuda", "ayudar", "ayudarme", "necesito", "necesita", "busco", "buscamos", "buscar",
            "pregunta", "consejo", "explicar", "hola", "gracias", "favor",
        ],
        "it" => &[
            "chi", "qualcuno", "persona", "esperto", "esperta", "esperti", "specialista",
            "collega", "sa", "sanno", "conosce", "conoscono", "esperienza", "aiuto", "aiutare",
            "aiutarmi", "serve", "bisogno", "cerco", "cerchiamo", "domanda", "consiglio",
            "spiegare", "ciao", "grazie", "favore",
        ],
        "pt" => &[
            "quem", "alguém", "alguem", "pessoa", "especialista", "perito", "colega", "sabe",
            "sabem", "conhece", "conhecem", "experiência", "ajuda", "ajudar", "preciso",
            "precisa", "procuro", "procurando", "pergunta", "conselho", "explicar", "olá",
            "obrigado", "favor",
        ],
        "nl" => &[
            "wie", "iemand", "persoon", "expert", "deskundige", "specialist", "collega", "weet",
            "weten", "kent", "kennen", "ervaring", "helpen", "hulp", "nodig", "zoek", "zoeken",
            "vraag", "advies", "uitleggen", "hallo", "bedankt", "graag",
        ],
        "da" => &[
            "hvem", "nogen", "person", "ekspert", "specialist", "kollega", "ved", "kender",
            "kende", "erfaring", "hjælp", "hjælpe", "brug", "behov", "søger", "spørgsmål", "råd",
            "forklare", "hej", "tak",
        ],
        "sv" => &[
            "vem", "vilka", "någon", "person", "expert", "specialist", "kollega", "vet", "känner",
            "erfarenhet", "hjälp", "hjälpa", "behöver", "söker", "letar", "fråga", "råd",
            "förklara", "hej", "tack",
        ],
        "fi" => &[
            "kuka", "ketkä", "joku", "kukaan", "henkilö", "asiantuntija", "asiantuntijaa",
            "kollega", "tietää", "tuntee", "osaa", "kokemusta", "apua", "auttaa", "tarvitsen",
            "tarvitsee", "etsin", "kysymys", "neuvoa", "hei", "kiitos",
        ],
        "hu" => &[
            "ki", "kik", "valaki", "személy", "szakértő", "szakember", "kolléga", "tud", "tudja",
            "ismer", "ismeri", "ért", "tapasztalat", "segítség", "segíteni", "segít",
            "szükségem", "keresek", "kérdés", "tanács", "szia", "köszönöm",
        ],
        "ro" => &[
            "cine", "cineva", "persoană", "expert", "specialist", "coleg", "știe", "stie",
            "cunoaște", "cunoaste", "experiență", "ajutor", "ajuta", "ajute", "nevoie", "caut",
            "întrebare", "sfat", "explica", "salut", "mulțumesc",
        ],
        "ru" => &[
            "кто", "кто-нибудь", "кто-то", "человек", "эксперт", "специалист", "коллега",
            "знает", "знают", "разбирается", "разбираются", "опыт", "помочь", "поможет",
            "помощь", "нужен", "нужна", "нужно", "ищу", "вопрос", "совет", "объяснить",
            "привет", "спасибо",
        ],
        "tr" => &[
            "kim", "kimse", "biri", "birisi", "kişi", "uzman", "uzmanı", "meslektaş", "bilen",
            "bilir", "biliyor", "deneyim", "deneyimi", "yardım", "yardımcı", "lazım", "gerek",
            "arıyorum", "soru", "tavsiye", "açıklayabilir", "merhaba", "teşekkürler",
        ],
        _ => &[],
    }
}

/// How a word of a query can take part in a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// An asking word (it may be a function word too: "who").
    Asking,
    /// A function word that asks nothing ("with", "about", "the").
    Function,
    /// A word of the subject.
    Subject,
}

/// A word of a query and where it stands in it (byte offsets).
#[derive(Debug, Clone, Copy)]
struct Span<'a> {
    surface: &'a str,
    start: usize,
    part: Part,
}

/// Whether a character joins the letters on either side into one word
/// ("quelqu'un", "kto-nibud'", "who's").
fn joins(c: char) -> bool {
    matches!(c, '\'' | '’' | '-')
}

/// The words of `query`: runs of letters and digits, joined by an
/// apostrophe or a hyphen between two of them.
fn words(query: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = query.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_word = chars.peek().is_some_and(|(_, n)| n.is_alphanumeric());
        if c.is_alphanumeric() || (start.is_some() && joins(c) && next_is_word) {
            start.get_or_insert(at);
        } else if let Some(from) = start.take() {
            found.push((from, &query[from..at]));
        }
    }
    if let Some(from) = start {
        found.push((from, &query[from..]));
    }
    found
}

/// The part a word plays, by the rules of each of `languages`.
fn part(surface: &str, languages: &[&Rules]) -> Part {
    let lower = surface.to_lowercase().replace('’', "'");
    if languages.iter().any(|rules| rules.is_asking_word(&lower)) {
        Part::Asking
    } else if languages.iter().any(|rules| rules.is_stop_word(&lower)) {
        Part::Function
    } else {
        Part::Subject
    }
}

/// How many words of `spans` open a question: the run of asking and
/// function words at the start, when it holds an asking word and a
/// function word or a second asking word (or `asked`: the query ends with
/// a question mark), less the asking words it ends with after a function
/// word that asks nothing (they name the subject: "with help desks").
fn opening(spans: &[Span<'_>], asked: bool) -> usize {
    let run = spans
        .iter()
        .take_while(|s| s.part != Part::Subject)
        .count();
    let asking = spans[..run]
        .iter()
        .filter(|s| s.part == Part::Asking)
        .count();
    let function = run - asking;
    if asking == 0 || (function == 0 && asking < 2 && !asked) {
        return 0;
    }
    if run == spans.len() {
        return run;
    }
    // Asking words after the last function word that follows an asking
    // word belong to the subject.
    let first_asking = spans[..run]
        .iter()
        .position(|s| s.part == Part::Asking)
        .unwrap_or(run);
    match spans[first_asking..run]
        .iter()
        .rposition(|s| s.part == Part::Function)
    {
        Some(last) => first_asking + last + 1,
        None => run,
    }
}

/// `query` read as a question in `languages` (the query's own first).
pub fn read(query: &str, languages: &[&Rules]) -> (Vec<String>, String) {
    let spans: Vec<Span<'_>> = words(query)
        .into_iter()
        .map(|(start, surface)| Span {
            surface,
            start,
            part: part(surface, languages),
        })
        .collect();
    let asked = query.trim_end().ends_with('?');
    let opens = opening(&spans, asked);
    if opens == 0 && !asked {
        return (Vec::new(), query.trim().to_owned());
    }
    // The words that close a question: function and asking words after
    // the last word of the subject.
    let closes = spans[opens..]
        .iter()
        .rev()
        .take_while(|s| s.part != Part::Subject)
        .count();
    let subject_words = spans.len() - opens - closes;
    let from = spans.get(opens).map_or(query.len(), |s| s.start);
    let to = spans
        .get(opens + subject_words)
        .filter(|_| closes > 0)
        .map_or(query.len(), |s| s.start);
    let subject = query[from..to.max(from)]
        .trim()
        .trim_end_matches(|c: char| matches!(c, '?' | '!' | '.' | ',' | ';' | ':'))
        .trim()
        .to_owned();
    let asking = spans[..opens]
        .iter()
        .chain(&spans[opens + subject_words..])
        .map(|s| s.surface.to_owned())
        .collect();
    (asking, subject)
}

#[cfg(test)]
mod tests {
    use kenning_ports::TopicExtractor;

    use crate::KeyphraseExtractor;

    fn read_as(query: &str) -> (Vec<String>, String) {
        let question = KeyphraseExtractor::new().question(query);
        (question.asking, question.subject)
    }

    fn subject(query: &str) -> String {
        read_as(query).1
    }

    #[test]
    fn the_words_that_ask_for_a_person_are_the_question() {
        assert_eq!(
            read_as("who can help with GDPR"),
            (
                vec!["who".into(), "can".into(), "help".into(), "with".into()],
                "GDPR".into()
            )
        );
        assert_eq!(subject("I need help with payroll"), "payroll");
        assert_eq!(
            subject("Does anyone know about Kubernetes ingress?"),
            "Kubernetes ingress"
        );
        assert_eq!(
            subject("I need someone who knows tax returns"),
            "tax returns"
        );
        assert_eq!(subject("who is an expert in machine learning"), "machine learning");
        assert_eq!(subject("Who's good at C++?"), "C++");
    }

    #[test]
    fn questions_in_other_languages_are_read_too() {
        let (asking, german) = read_as("Wer kennt sich mit Datenschutz aus?");
        assert_eq!(german, "Datenschutz");
        assert_eq!(asking, ["Wer", "kennt", "sich", "mit", "aus"]);
        assert_eq!(subject("Quelqu'un sait configurer nginx ?"), "configurer nginx");
        assert_eq!(
            subject("Qui connaît la comptabilité analytique"),
            "comptabilité analytique"
        );
        assert_eq!(subject("¿Quién sabe de contabilidad?"), "contabilidad");
    }

    #[test]
    fn a_subject_alone_is_read_whole() {
        for query in ["help desk software", "GDPR", "people analytics"] {
            let (asking, whole) = read_as(query);
            assert!(asking.is_empty(), "{query}: {asking:?}");
            assert_eq!(whole, query);
        }
    }

    #[test]
    fn asking_words_after_a_preposition_name_the_subject() {
        assert_eq!(subject("who can help with help desk tickets"), "help desk tickets");
        assert_eq!(subject("who knows about people analytics"), "people analytics");
    }

    #[test]
    fn a_question_without_a_subject_asks_for_nothing() {
        let (asking, nothing) = read_as("who can help?");
        assert_eq!(asking, ["who", "can", "help"]);
        assert_eq!(nothing, "");
        assert_eq!(read_as(""), (Vec::new(), String::new()));
    }
}
