//! The words a question for a person is made of, per language: read by
//! [`crate::question`] through each language's [`crate::language::Rules`].

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
