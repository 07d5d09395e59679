"""Reading YAML (and JSON) input files safely: the data file, scenario files, weights.

docs/interfaces.md §0: an input file must be a regular file of at most 16 MiB, and YAML aliases
that expand a document beyond that size are an error, never a hang. Everything here raises
`YamlFileError` with a message that does not name the file; callers convert it into their own
exception (DataError, ScenarioError) and put the file name in front. Values in messages go
through `wsim.errors.brief`, so a huge or deeply nested value never becomes megabytes of text.
"""

from __future__ import annotations

import os

import yaml

from wsim.errors import WsimError, brief
from wsim.inputfile import NotRegularFile, open_regular

MAX_BYTES = 16 * 1024 * 1024
_LIMIT = f"{MAX_BYTES >> 20} MiB"

# libyaml parses about ten times faster than the pure-Python parser.
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlFileError(WsimError):
    """An input file that cannot be read or parsed; the message says why, without the file name."""


# ---------------------------------------------------------------------------------------------
# Reading the bytes

def read_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """The content of `path`, which must be a regular file of at most MAX_BYTES bytes.

    `what` names the file in messages ("cannot read the data file (...)"). A directory, FIFO,
    device or socket is refused without reading from it (wsim.inputfile); an unreadable path
    (missing, no permission, name too long) gives the system's reason.
    """
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            # One byte past the limit, since some files (/proc) report a size of 0.
            raw = f.read(MAX_BYTES + 1) if size <= MAX_BYTES else b""
    except NotRegularFile as e:
        raise YamlFileError(f"the {what} is {e}") from None
    except OSError as e:
        raise YamlFileError(f"cannot read the {what} ({e.strerror or e})") from None
    except ValueError as e:  # a NUL character in the path
        raise YamlFileError(f"cannot read the {what} ({e})") from None
    if size > MAX_BYTES or len(raw) > MAX_BYTES:
        raise YamlFileError(f"the {what} is larger than {_LIMIT}")
    return raw


# ---------------------------------------------------------------------------------------------
# Parsing

MAX_NUMBER_CHARS = 100  # a number's text: YAML 1.1 reads 0x..., 0b... and 1:2:3 (base 60) too,
#                        and converting a long one takes quadratic time or fails past 4300 digits


class _Loader(_BASE_LOADER):
    """The safe loader, refusing a key given twice in one mapping (PyYAML would keep the last)
    and numbers written with more than MAX_NUMBER_CHARS characters."""

    def construct_yaml_int(self, node):
        if len(node.value) > MAX_NUMBER_CHARS:
            raise YamlFileError(f"a number of {len(node.value):,} characters at line {node.start_mark.line + 1} "
                                f"(at most {MAX_NUMBER_CHARS})")
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node):
        if len(node.value) > MAX_NUMBER_CHARS:
            raise YamlFileError(f"a number of {len(node.value):,} characters at line {node.start_mark.line + 1} "
                                f"(at most {MAX_NUMBER_CHARS})")
        return super().construct_yaml_float(node)

    def construct_mapping(self, node, deep=False):
        pairs = node.value
        mapping = super().construct_mapping(node, deep=deep)
        # Fast path: no `<<` merge (which replaces node.value) and one entry per key.
        if node.value is pairs and len(mapping) == len(pairs):
            return mapping
        seen = set()
        for key_node, _ in pairs:
            if key_node.tag == _MERGE_TAG:  # merged keys may be overridden on purpose
                continue
            key = self.construct_object(key_node, deep=deep)  # memoised: no second construction
            if key in seen:
                raise YamlFileError(f"key {brief(key)} given twice in one mapping "
                                    f"(line {key_node.start_mark.line + 1})")
            seen.add(key)
        return mapping


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


def parse(raw: bytes) -> object:
    """The document in `raw` (YAML, or JSON, which is YAML), loaded with the safe loader.

    Refused: text over MAX_BYTES, invalid YAML (with its line and column), a key given twice in
    one mapping, a value Python cannot hold (an integer of over 4300 digits, a 13th month), and
    a document whose aliases expand it beyond MAX_BYTES.
    """
    if len(raw) > MAX_BYTES:
        raise YamlFileError(f"the document is larger than {_LIMIT}")
    try:
        doc = yaml.load(raw, Loader=_Loader)
    except YamlFileError:
        raise
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or "cannot be parsed"
        raise YamlFileError(f"not valid YAML{where}: {problem}") from None
    except RecursionError:  # the pure-Python parser on deep nesting (libyaml caps the depth itself)
        raise YamlFileError("not valid YAML: nested too deeply") from None
    except ValueError as e:  # raised by int(), date() and the like inside the constructor
        raise YamlFileError(f"not valid YAML: a value cannot be read ({e})") from None
    # Every alias starts with '*' (also in UTF-16 text); without one, the document is no
    # larger than its text, which is within the limit already.
    if b"*" in raw and expanded_size(doc) > MAX_BYTES:
        raise YamlFileError(f"YAML aliases expand the document beyond {_LIMIT}")
    return doc


_CONTAINERS = (list, dict, set)  # what YAML sequences, mappings and !!set become


def expanded_size(doc, limit: int = MAX_BYTES) -> int:
    """About how many bytes `doc` takes written out with every alias expanded, capped at
    `limit + 1`: the length of each scalar plus a byte per bracket, separator and colon.

    An alias makes two places of the document the same Python object, so each distinct list or
    mapping is sized once and its size reused: the walk is linear in the distinct nodes, even
    for a billion-laughs document. A document that contains itself is infinite (`limit + 1`).
    """
    sizes: dict = {}  # id(container) -> expanded size; None while its children are being sized
    stack = [(doc, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            items = [x for pair in node.items() for x in pair] if isinstance(node, dict) else node
            total = 2 + len(items)
            for x in items:
                total += sizes[id(x)] if isinstance(x, _CONTAINERS) else _scalar_size(x)
            sizes[id(node)] = min(total, limit + 1)  # keeps the numbers small for a bomb
            continue
        if not isinstance(node, _CONTAINERS) or id(node) in sizes:
            continue
        sizes[id(node)] = None
        stack.append((node, True))
        for child in (node.values() if isinstance(node, dict) else node):
            if isinstance(child, _CONTAINERS):
                if id(child) in sizes and sizes[id(child)] is None:  # an ancestor: a cycle
                    return limit + 1
                stack.append((child, False))
    return sizes[id(doc)] if isinstance(doc, _CONTAINERS) else _scalar_size(doc)


def _scalar_size(x) -> int:
    if isinstance(x, (str, bytes)):
        return len(x)
    if x is None or isinstance(x, bool):
        return 1
    if isinstance(x, int):  # an int from 0x... or 1:2:3 may be far too long to print: estimate
        return x.bit_length() // 3 + 1
    return len(str(x))  # float, date, datetime: short
