"""The Python yake package as `make eval-topics` runs it.

Reads {"language": ISO 639-1, "texts": [...]} on stdin and prints
{"systems": {"python yake": {"keyphrases": [[...], ...], "seconds": [...]}}}:
the ten best phrases of each text and the wall time spent extracting them,
or {"unavailable": reason}. Settings as yake-rust's in the harness: up to
three words, yake's own stop words for the language, its other defaults.
"""

import json
import sys
import time


def main():
    request = json.load(sys.stdin)
    try:
        import yake
    except ImportError:
        return {"unavailable": "the yake package is not installed"}
    extractor = yake.KeywordExtractor(lan=request["language"], n=3, top=10)
    keyphrases, seconds = [], []
    for text in request["texts"]:
        start = time.perf_counter()
        keywords = extractor.extract_keywords(text)
        seconds.append(time.perf_counter() - start)
        keyphrases.append([k for k, _ in keywords])
    return {"systems": {"python yake": {"keyphrases": keyphrases, "seconds": seconds}}}


if __name__ == "__main__":
    print(json.dumps(main()))
