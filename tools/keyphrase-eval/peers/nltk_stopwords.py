"""Gives NLTK its stop word lists without a download.

pke reads NLTK's stop words (nltk.corpus.stopwords) when it is imported, and
NLTK would fetch them from the network. The stop-words crate, which Kenning
already depends on, ships the same NLTK lists as files: this copies them to
<venv>/nltk_data/corpora/stopwords, a folder NLTK searches by itself
(sys.prefix/nltk_data). Run it with the venv's python and `cargo metadata
--format-version 1` on stdin, which says where Cargo keeps the crate.
"""

import json
import os
import shutil
import sys

from nltk.corpus import stopwords


def main():
    metadata = json.load(sys.stdin)
    crates = [p for p in metadata["packages"] if p["name"] == "stop-words"]
    if not crates:
        sys.exit("the stop-words crate is not among the workspace's dependencies")
    lists = os.path.join(os.path.dirname(crates[0]["manifest_path"]), "src", "nltk")
    target = os.path.join(sys.prefix, "nltk_data", "corpora", "stopwords")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    # Only the lists, one file per language: pke maps every file name NLTK
    # lists to a language code, and fails on an unknown one.
    names = [n for n in sorted(os.listdir(lists)) if n != "README" and n.isalpha()]
    for name in names:
        shutil.copyfile(os.path.join(lists, name), os.path.join(target, name))
    english = len(stopwords.words("english"))
    print(f"NLTK stop words: {len(names)} lists in {target} ({english} English words)")


if __name__ == "__main__":
    main()
