"""The learned policy's model file: weights and a header, one .npz (numpy's zip of arrays).

Arrays: w1 float32[inputs, H], b1 float32[H], w2 float32[H], b2 float32[1] (kernels/learned.py:
value = b2 + w2 . relu(b1 + x w1)), and `header`, a JSON text:

    {"format": "wsim-learned-1",
     "features": {"version": FEATURES_VERSION, "inputs": ..., "names_sha256": ...},
     "rules": wsim.RULES_VERSION, "target": "margin", "hidden": H,
     "provenance": {"data_sha256": ..., "teacher": ..., "plan": {the options}, "iteration": ...,
                    "chosen_iteration": ..., "command": ..., "iterations": [...]}}

The header holds only what determines the weights (the command without --out, the iterations
without their wall-clock seconds): the same run gives the same bytes wherever it is written.
The features' names (kernels/observe.names, then each city's points) depend on the data file's
building names and boards: a model is refused, with the reason, when its format, features or rules
version differ from this engine's, or its names from the data file's. The data file it was trained
on is provenance only (an edited file with the same names, as `rebalance` plays, may use it). A
model file is read as an input file (wsim.inputfile): a regular file of at most max_model_bytes.
This module writes no file (the run layer's rule): wsim.agents.learn puts to_bytes() in place.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from wsim import RULES_VERSION, codes
from wsim.errors import WsimError, brief
from wsim.inputfile import TooLarge, read_regular
from wsim.kernels.layout import MAX_HIDDEN, MAX_SEATS
from wsim.kernels.learned import input_layout
from wsim.kernels.observe import names as observation_names, tables_layout
from wsim.kernels.schema import Model as KernelModel
from wsim.tables import Tables

FORMAT = "wsim-learned-1"
FEATURES_VERSION = 1  # bumped whenever the input vector's meaning changes (kernels/learned.py)
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "learned.npz"
# "shipped" names the model of the tables' edition (a data file's `edition`)
SHIPPED_BY_EDITION = {1: SHIPPED, 2: SHIPPED.with_name("learned-2e.npz")}
ARRAYS = ("w1", "b1", "w2", "b2")
HEADER_ROOM = 1 << 20  # bytes for the JSON header and the archive's records (20 iterations' header: about 12 kB)


class ModelError(WsimError):
    """A model file that cannot be used; the message names the file and the problem."""


def feature_names(tables: Tables) -> list:
    """The name of every entry of the model's input, for the tables' data file."""
    return observation_names(tables) + [f"city{k}:points" for k in range(MAX_SEATS)]


def names_digest(tables: Tables) -> str:
    return hashlib.sha256("\n".join(feature_names(tables)).encode()).hexdigest()


def features_header(tables: Tables) -> dict:
    return {"version": FEATURES_VERSION, "inputs": len(feature_names(tables)), "names_sha256": names_digest(tables)}


class Model:
    """A model's weights (float32 arrays), its header and the sha256 of the file it was read
    from ("" for a model made in memory)."""

    def __init__(self, w1, b1, w2, b2, header: dict, sha256: str = ""):
        self.w1 = np.ascontiguousarray(w1, np.float32)
        self.b1 = np.ascontiguousarray(b1, np.float32)
        self.w2 = np.ascontiguousarray(w2, np.float32)
        self.b2 = np.ascontiguousarray(np.reshape(b2, 1), np.float32)
        self.header = header
        self.sha256 = sha256

    def kernel_model(self, tables: Tables) -> KernelModel:
        """The record the kernels take (schema.Model, kernels/learned.py) holding this model alone."""
        return kernel_models([self], tables)

    def to_bytes(self) -> bytes:
        """The model file's bytes: equal weights and headers give equal bytes (the writers,
        wsim.agents.learn, put them in place whole)."""
        buf = io.BytesIO()
        np.savez(buf, header=np.array(json.dumps(self.header, sort_keys=True)),
                 **{k: getattr(self, k) for k in ARRAYS})
        return _canonical_zip(buf.getvalue())


def kernel_models(models: list, tables: Tables) -> KernelModel:
    """The record the kernels take (schema.Model, kernels/learned.py) holding `models`, model k
    the k-th, each padded with zero units to the widest (its own width in `units`), for the
    tables' data file."""
    for model in models:
        check_header(model.header, tables, "model")
    lay = input_layout(tables_layout(tables))
    k, width = len(models), max(m.b1.shape[0] for m in models)
    w1 = np.zeros((k, int(lay[-1]), width), np.float32)
    b1, w2 = np.zeros((k, width), np.float32), np.zeros((k, width), np.float32)
    for i, m in enumerate(models):
        units = m.b1.shape[0]
        w1[i, :, :units], b1[i, :units], w2[i, :units] = m.w1, m.b1, m.w2
    return KernelModel(lay, w1, b1, w2, np.array([m.b2[0] for m in models], np.float32),
                       np.array([m.b1.shape[0] for m in models], np.int64))


def _canonical_zip(raw: bytes) -> bytes:
    """The same archive with fixed member dates, so that equal weights give equal bytes."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def check_header(header: dict, tables: Tables, where: str):
    """ModelError unless the header's format, features and rules fit this engine and data file."""
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ModelError(f"{where}: not a {FORMAT} model (its header says format {brief(header.get('format') if isinstance(header, dict) else header)})")
    features = header.get("features") or {}
    if features.get("version") != FEATURES_VERSION:
        raise ModelError(f"{where}: made for features version {brief(features.get('version'))}, this wsim computes "
                         f"version {FEATURES_VERSION}: train it again with wsim learn")
    if header.get("rules") != RULES_VERSION:
        raise ModelError(f"{where}: made for rules version {brief(header.get('rules'))}, this wsim plays version "
                         f"{RULES_VERSION}: train it again with wsim learn")
    edition = header.get("edition", 1)  # absent: a first-edition model (learn writes it for the others)
    if edition != tables.edition:
        name = codes.EDITION_NAMES.get(edition, f"edition {brief(edition)}") if isinstance(edition, int) else brief(edition)
        raise ModelError(f"{where}: a model of the {name}; the data file {tables.source} is of the "
                         f"{tables.edition_name} (train one with `wsim --edition {tables.edition} learn`)")
    if features.get("names_sha256") != names_digest(tables):
        raise ModelError(f"{where}: its features name other buildings or boards than the data file "
                         f"{tables.source} (a model fits the names it was trained on; a card replaced or renamed is "
                         "a building it never saw: train one on that data with `wsim --data FILE learn`)")


def uses_learned(policies, params) -> bool:
    """Whether a seat plays learned or bases a rollout on it (policies: the seats' ids, params:
    their rows)."""
    from wsim.kernels.policy import POLICY_LEARNED, POLICY_ROLLOUT, R_BASE_ID

    policies, params = np.asarray(policies), np.asarray(params)
    return bool(((policies == POLICY_LEARNED)
                 | ((policies == POLICY_ROLLOUT) & (params[:, R_BASE_ID] == POLICY_LEARNED))).any())


def model_sets(files) -> tuple:
    """(the distinct model files of `files`, one per seat, "" none, in seat order; each seat's
    index in them, -1 for none): the models of a run's record and the index each seat's
    parameter row carries (kernels/policy.L_MODEL)."""
    distinct = list(dict.fromkeys(f for f in files if f))
    return tuple(distinct), tuple(distinct.index(f) if f else -1 for f in files)


def seats_model(tables: Tables, model_files, policies, params, digests=()):
    """The kernels' model record when the seats use learned (uses_learned), else None (the family
    then compiles no learned code). model_files: per seat the model file its learned play uses
    ("" none; model_sets orders them as the seats' rows name them), or one file for every learned
    seat ("" the shipped one); digests: the sha256 recorded for each seat ("" none), which its
    file must have."""
    from wsim.kernels.policy import POLICY_LEARNED

    if not uses_learned(policies, params):
        return None
    if isinstance(model_files, str):
        model_files = [model_files or "shipped"] * len(policies)
    files, index = model_sets(model_files)
    models = [read_model(f, tables) for f in files or ("shipped",)]
    for s, d in enumerate(digests):
        if d and policies[s] == POLICY_LEARNED and d != models[max(index[s], 0)].sha256:
            raise ModelError(f"model file {brief(model_files[s])}: its sha256 is not the one these seats were set to "
                             "play (the file changed)")
    return kernel_models(models, tables)


def max_model_bytes(inputs: int, hidden: int = MAX_HIDDEN) -> int:
    """The most bytes a model file of `inputs` inputs and `hidden` units takes: its float32
    weights and HEADER_ROOM. A larger file is not a model (read_model reads no further)."""
    return 4 * (inputs * hidden + 2 * hidden + 1) + HEADER_ROOM


def _named(path, tables: Tables) -> tuple:
    """(the Path, how messages name it) of a model file argument ("shipped": the shipped model
    of the tables' edition)."""
    path = SHIPPED_BY_EDITION[tables.edition] if str(path) == "shipped" else Path(path)
    return path, f"model file {brief(str(path))}"


def model_file_bytes(path, tables: Tables) -> bytes:
    """The bytes of model file `path` ("shipped": the shipped model), read as an input file
    (docs/interfaces.md §0: a regular file, here of at most max_model_bytes for the tables'
    inputs); ModelError naming the file otherwise."""
    path, where = _named(path, tables)
    limit = max_model_bytes(len(feature_names(tables)))
    try:
        return read_regular(path, limit)
    except TooLarge:
        raise ModelError(f"{where}: not a model file (larger than {limit:,} bytes, the most a model of this data "
                         f"file's inputs and up to {MAX_HIDDEN} hidden units takes)") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL character in the path
        raise ModelError(f"{where}: cannot be read ({getattr(e, 'strerror', None) or e})") from None


class NotAnArchive(ValueError):
    """Bytes that are not an .npz of at most the bytes a reader takes (npz_arrays)."""


def npz_arrays(raw: bytes, limit: int) -> dict:
    """{name: array} of the .npz `raw`, refused (NotAnArchive) when it is no such archive, holds
    pickled objects, or its arrays unpack to more than `limit` bytes (a compressed bomb)."""
    try:
        members = zipfile.ZipFile(io.BytesIO(raw)).infolist()
        if sum(m.file_size for m in members) > limit:
            raise NotAnArchive(f"its arrays unpack to more than {limit:,} bytes")
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            return {name: np.array(z[name]) for name in z.files}
    except NotAnArchive:
        raise
    # EOFError: np.load of an empty file, which click would take for Ctrl-D (an interrupt)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise NotAnArchive(str(e)) from None


def read_model(path, tables: Tables) -> Model:
    """The model in file `path` ("shipped": the shipped model), checked against the tables."""
    raw = model_file_bytes(path, tables)
    where = _named(path, tables)[1]
    try:
        stored = npz_arrays(raw, max_model_bytes(len(feature_names(tables))))
        header = json.loads(str(stored["header"]))
        arrays = {k: stored[k] for k in ARRAYS}
    except (NotAnArchive, ValueError, KeyError) as e:
        raise ModelError(f"{where}: not a model file ({brief(str(e))})") from None
    check_header(header, tables, where)
    w1, b1, w2, b2 = (arrays[k] for k in ARRAYS)
    inputs = len(feature_names(tables))
    hidden = b1.shape[0] if b1.ndim == 1 else -1
    if (w1.shape != (inputs, hidden) or w2.shape != (hidden,) or b2.size != 1 or not 1 <= hidden <= MAX_HIDDEN
            or not all(np.isfinite(a).all() for a in arrays.values())):
        raise ModelError(f"{where}: weights of the wrong shape or not finite (expected w1 {inputs} x H, b1 and w2 H, "
                         f"b2 1, with 1 <= H <= {MAX_HIDDEN})")
    return Model(w1, b1, w2, b2, header, hashlib.sha256(raw).hexdigest())
