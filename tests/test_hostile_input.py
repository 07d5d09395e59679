"""Hostile and careless input files (docs/interfaces.md §0, reliability findings F6, F7, F8, F12).

Data, scenario and other YAML inputs must be regular files of at most 16 MiB; YAML aliases that
expand a document beyond that size are an error, never a hang; a wrong type where a name is
expected is an error message, never a traceback. The billion-laughs cases below would hang for
minutes (and eat gigabytes) if any code turned the expanded value into text, so they guard
against that simply by finishing.
"""

import os
import time

import pytest
import yaml

from clikit import last_error_line, run_cli
from wsim import scenario, yamlfile
from wsim.compiler import DataError
from wsim.errors import brief
from wsim.tables import compile_text, data_path, load

LUMBER = "  - name: Lumber Yard\n    age: 1\n"
STONE = "  - name: Stone Pit\n"

# 9 ** 9 (387 million) leaves of "lol" in about 300 bytes of YAML.
BOMB = "[&a [lol,lol,lol,lol,lol,lol,lol,lol,lol]" + "".join(
    f", &{y} [" + ",".join([f"*{x}"] * 9) + "]" for x, y in zip("abcdefghi", "bcdefghij")) + "]"

SEATS = "  - {wonder: olympia, side: B}\n  - {wonder: giza, side: A}\n"


@pytest.fixture(scope="module")
def data_text():
    """The packaged data file's text, to break by string replacement."""
    return data_path().read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def seat0(fields: str) -> str:
    """A three-seat scenario whose first seat has these flow-mapping fields."""
    return f"players:\n  - {{{fields}}}\n" + SEATS


def data_error(text: str) -> str:
    with pytest.raises(DataError) as err:
        compile_text(text, source="hostile.yaml")
    message = str(err.value)
    assert message.startswith("hostile.yaml: ")
    return message


def scenario_error(path, tables_) -> str:
    with pytest.raises(scenario.ScenarioError) as err:
        scenario.load(path, tables_)
    message = str(err.value)
    assert message.startswith(f"{path}: ")
    return message


def cli_error(*args) -> str:
    result = run_cli(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    line = last_error_line(result)
    assert line.startswith("Error:")
    return line


# ---------------------------------------------------------------------------------------------
# Billion laughs

@pytest.mark.parametrize("where", ["age", "aliases", "unknown key"])
def test_bomb_in_the_data_file(data_text, where):
    text = {
        "age": edit(data_text, LUMBER, f"  - name: Lumber Yard\n    age: {BOMB}\n"),
        "aliases": edit(data_text, LUMBER, f"{LUMBER}    aliases: {BOMB}\n"),
        "unknown key": data_text + f"junk: {BOMB}\n",  # never looked at by the compiler
    }[where]
    start = time.perf_counter()
    assert "YAML aliases expand the document beyond 16 MiB" in data_error(text)
    assert time.perf_counter() - start < 1


@pytest.mark.parametrize("field", ["coins", "wonder"])
def test_bomb_in_a_scenario(tables, tmp_path, field):
    path = tmp_path / "bomb.yaml"
    path.write_text(seat0(f"wonder: babylon, side: A, {field}: {BOMB}" if field == "coins"
                          else f"wonder: {BOMB}, side: A"))
    start = time.perf_counter()
    assert "YAML aliases expand the document beyond 16 MiB" in scenario_error(path, tables)
    assert time.perf_counter() - start < 1


def test_bomb_via_the_cli(data_text, tmp_path):
    data = tmp_path / "bomb-data.yaml"
    data.write_text(edit(data_text, LUMBER, f"  - name: Lumber Yard\n    age: {BOMB}\n"))
    assert "bomb-data.yaml: YAML aliases expand" in cli_error("--data", str(data), "cards")
    sc = tmp_path / "bomb-sc.yaml"
    sc.write_text(seat0(f"wonder: babylon, side: A, coins: {BOMB}"))
    assert "YAML aliases expand" in cli_error("score", str(sc))


def test_a_document_that_contains_itself(tables, tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text(seat0("wonder: babylon, side: A, cards: &c [Altar, *c]"))
    assert "YAML aliases expand" in scenario_error(path, tables)


def test_small_aliases_still_load(tables, data_text, tmp_path):
    text = edit(data_text, "    players: [3, 4]\n", "    players: &p34 [3, 4]\n")
    text = edit(text, "  - name: Ore Vein\n    age: 1\n    color: brown\n    players: [3, 4]\n",
                "  - name: Ore Vein\n    age: 1\n    color: brown\n    players: *p34\n")
    t = compile_text(text)
    assert t.card_players[t.card_id("Ore Vein")] == (3, 4)
    path = tmp_path / "anchors.yaml"
    path.write_text("players:\n  - &seat {wonder: giza, side: A, coins: 5}\n  - *seat\n  - *seat\n")
    assert [city.coins for city in scenario.load(path, tables).cities] == [5, 5, 5]


# ---------------------------------------------------------------------------------------------
# Special files, size, path names

def test_dev_zero(tables):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with pytest.raises(DataError, match="^/dev/zero: the data file is a character device, not a regular file"):
        load("/dev/zero")
    assert "the file is a character device" in scenario_error("/dev/zero", tables)
    assert "character device" in cli_error("--data", "/dev/zero", "cards")
    assert "character device" in cli_error("score", "/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_blocking(tables, tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="the data file is a FIFO"):
        load(fifo)
    assert "is a FIFO (named pipe), not a regular file" in scenario_error(fifo, tables)
    assert "pipe.yaml: the data file is a FIFO" in cli_error("--data", str(fifo), "cards")
    assert "FIFO" in cli_error("score", str(fifo))


def test_directory(tables, tmp_path):
    with pytest.raises(DataError, match="the data file is a directory, not a regular file"):
        load(tmp_path)
    assert "the file is a directory, not a regular file" in scenario_error(tmp_path, tables)
    # through --data or WSIM_DATA alike, the message names the path (not the option)
    expected = f"{tmp_path}: the data file is a directory, not a regular file"
    assert expected in cli_error("--data", str(tmp_path), "cards")
    result = run_cli("cards", env={"WSIM_DATA": str(tmp_path)})
    assert result.exit_code == 2 and last_error_line(result) == f"Error: {expected}"


def test_size_limit(data_text, tables, tmp_path):
    limit = yamlfile.MAX_BYTES
    assert limit == 16 * 1024 * 1024
    pad = limit - len(data_text.encode())
    exact = tmp_path / "exact.yaml"
    exact.write_text(data_text + "#" + "x" * (pad - 2) + "\n")  # comment padding, 16 MiB exactly
    assert exact.stat().st_size == limit
    assert load(exact).n_cards == 78
    big = tmp_path / "big.yaml"
    big.write_text(data_text + "#" + "x" * (pad - 1) + "\n")
    assert big.stat().st_size == limit + 1
    with pytest.raises(DataError, match="big.yaml: the data file is larger than 16 MiB"):
        load(big)
    assert "big.yaml: the data file is larger than 16 MiB" in cli_error("--data", str(big), "cards")
    assert "the file is larger than 16 MiB" in scenario_error(big, tables)
    with pytest.raises(DataError, match="the document is larger than 16 MiB"):
        compile_text(big.read_bytes())


def test_files_that_misreport_their_size():
    # /proc files say they hold 0 bytes: the reader must read them, not trust st_size.
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")
    assert os.stat("/proc/self/status").st_size == 0
    assert b"Name:" in yamlfile.read_bytes("/proc/self/status")


def test_path_name_too_long(tables, tmp_path):
    path = str(tmp_path / ("a" * 300 + ".yaml"))
    with pytest.raises(DataError, match=r"cannot read the data file \(File name too long\)"):
        load(path)
    assert "cannot read the file (File name too long)" in scenario_error(path, tables)
    assert "cannot read the data file (File name too long)" in cli_error("--data", path, "cards")
    assert "cannot read the file (File name too long)" in cli_error("score", path)


def test_nul_in_a_path_name(tables):
    assert "cannot read the file" in scenario_error("a\0b.yaml", tables)


# ---------------------------------------------------------------------------------------------
# aliases in the data file

@pytest.mark.parametrize("value", ["5", "Timber", "{a: 1}", "[Timber, 3]"])
def test_aliases_must_be_a_list_of_names(data_text, value):
    message = data_error(edit(data_text, LUMBER, f"{LUMBER}    aliases: {value}\n"))
    assert "card 'Lumber Yard': field 'aliases': expected a list of other spellings" in message


def test_alias_taking_another_buildings_name(data_text):
    message = data_error(edit(data_text, LUMBER, f"{LUMBER}    aliases: [Stone Pit]\n"))
    assert "card 'Lumber Yard': field 'aliases': alias 'Stone Pit' is already the name of another " \
           "building, 'Stone Pit'" in message


def test_alias_taking_a_later_cards_name(data_text):
    message = data_error(edit(data_text, LUMBER, f"{LUMBER}    aliases: [LOOM]\n"))
    assert "card 'Lumber Yard': field 'aliases': alias 'LOOM' is already the name of another " \
           "building, 'Loom'" in message


def test_alias_taken_twice(data_text):
    text = edit(data_text, LUMBER, f"{LUMBER}    aliases: [Timber]\n")
    message = data_error(edit(text, STONE, f"{STONE}    aliases: [timber]\n"))
    assert "card 'Stone Pit': field 'aliases': alias 'timber' is already an alias of 'Lumber Yard'" in message


def test_alias_without_letters(data_text):
    message = data_error(edit(data_text, LUMBER, f"{LUMBER}    aliases: ['--']\n"))
    assert "field 'aliases': alias '--' has no letter or digit" in message


def test_legitimate_aliases(data_text):
    text = edit(data_text, LUMBER, f"{LUMBER}    aliases: [Timber, lumber-yard, Timber]\n")
    # A building in two ages is one building: an alias on its Age II entry names it too.
    text = edit(text, "  - name: Loom\n    age: 2\n", "  - name: Loom\n    age: 2\n    aliases: [Weaver, loom]\n")
    t = compile_text(text)
    assert t.card_id("timber") == t.card_id("Lumber Yard") == 0
    assert t.card_id("weaver") == t.card_id("Loom")
    assert t.card_age[t.card_id("weaver")] == 1
    assert len(t.names) == 75 and list(t.card_name_id[:3]) == [0, 1, 2]


def test_alias_via_the_cli(data_text, tmp_path):
    path = tmp_path / "clash.yaml"
    path.write_text(edit(data_text, LUMBER, f"{LUMBER}    aliases: [Stone Pit]\n"))
    assert "clash.yaml: card 'Lumber Yard': field 'aliases'" in cli_error("--data", str(path), "cards")
    path.write_text(edit(data_text, LUMBER, f"{LUMBER}    aliases: 5\n"))
    assert "field 'aliases': expected a list" in cli_error("--data", str(path), "cards")


# ---------------------------------------------------------------------------------------------
# A list or mapping where a name is expected

def test_scope_given_as_a_nested_list(data_text):
    message = data_error(edit(data_text, "in: [left, self, right]", "in: [[self, left]]"))
    assert "field 'coins_per': unknown scope ['self', 'left'] (one of: self left right)" in message


@pytest.mark.parametrize("value, shown", [("[wood]", "['wood']"), ("{a: 1}", "{'a': 1}"), ("3", "3")])
def test_produces_unit_not_a_name(data_text, value, shown):
    message = data_error(edit(data_text, "    produces: [wood]\n", f"    produces: [{value}]\n"))
    assert f"card 'Lumber Yard': field 'produces': expected resource names such as wood or wood/clay, " \
           f"got {shown}" in message


def test_wonder_name_not_text(data_text):
    message = data_error(edit(data_text, "    name: The Colossus of Rhodes\n", "    name: [Colossus]\n"))
    assert "wonder 'rhodes': field 'name': expected the wonder's name as text, got ['Colossus']" in message


@pytest.mark.parametrize("value, shown", [("[left]", "['left']"), ("{a: 1}", "{'a': 1}")])
def test_copy3_not_a_name(tables, tmp_path, value, shown):
    path = tmp_path / "c3.yaml"
    path.write_text(seat0(f"wonder: manneken_pis, side: A, stages: 3, copy3: {value}"))
    assert f"players[0]: copy3: must be left or right, got {shown}" in scenario_error(path, tables)
    assert "copy3: must be left or right" in cli_error("score", str(path))


# ---------------------------------------------------------------------------------------------
# Keys given twice, values Python cannot hold

def test_duplicate_key_in_the_data_file(data_text):
    message = data_error(edit(data_text, LUMBER, f"{LUMBER}    age: 2\n"))
    line = data_text.splitlines().index("  - name: Lumber Yard") + 3
    assert message == f"hostile.yaml: key 'age' given twice in one mapping (line {line})"


def test_duplicate_key_in_a_scenario(tables, tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text(seat0("wonder: babylon, side: A, wonder: giza"))
    assert scenario_error(path, tables) == f"{path}: key 'wonder' given twice in one mapping (line 2)"
    assert "key 'wonder' given twice" in cli_error("score", str(path))


def test_merge_keys_may_override(tables, tmp_path):
    path = tmp_path / "merge.yaml"
    path.write_text("players:\n  - &s {wonder: giza, side: A}\n  - {<<: *s, side: B}\n  - *s\n")
    assert [city.side for city in scenario.load(path, tables).cities] == [0, 1, 0]


def test_integer_too_long_for_python(tables, tmp_path):
    """Decimal or hex, a number's text is capped (yamlfile.MAX_NUMBER_CHARS) before Python converts it."""
    path = tmp_path / "digits.yaml"
    for number in ("9" * 5000, "-0x" + "f" * 5000):
        path.write_text(seat0("wonder: babylon, side: A, coins: " + number))
        assert "characters at line 2 (at most 100)" in scenario_error(path, tables)


# ---------------------------------------------------------------------------------------------
# brief() and expanded_size()

def test_brief_is_repr_for_ordinary_values():
    for value in ["Baths", "it's", 7, -1, 2.5, True, None, [1, "a"], {"b": 1, "a": [2]}, ""]:
        assert brief(value) == repr(value)


def test_brief_is_bounded():
    assert len(brief("x" * 10_000_000)) <= 60
    assert len(brief(list(range(10_000)))) < 60
    assert brief([[[[[1]]]]]) == "[[[[...]]]]"
    loop = []
    loop.append(loop)
    assert len(brief(loop)) < 20
    assert brief(16 ** 5000) == "<a whole number of about 6021 digits>"
    layer = ["lol"] * 9
    for _ in range(9):
        layer = [layer] * 9
    start = time.perf_counter()
    assert len(brief(layer)) < 200
    assert time.perf_counter() - start < 1


def test_expanded_size():
    assert yamlfile.expanded_size(yamlfile.parse(b"[ab, cd]")) == 2 + 2 + 2 + 2
    assert yamlfile.expanded_size(yamlfile.parse(b"{a: 1}")) == 2 + 2 + 1 + 1
    shared = yamlfile.parse(b"[&x [abc, abc], *x, *x]")
    assert yamlfile.expanded_size(shared) == 2 + 3 + 3 * (2 + 2 + 3 + 3)
    start = time.perf_counter()
    bomb = yaml.load(BOMB, Loader=yaml.SafeLoader)  # nodes shared, as every YAML loader does
    assert yamlfile.expanded_size(bomb) == yamlfile.MAX_BYTES + 1
    assert time.perf_counter() - start < 1


@pytest.mark.parametrize("number", ["0x" + "f" * 200_000, "1:" * 100_000 + "1", "9" * 101, "1." + "5" * 120])
def test_numbers_of_over_100_characters_are_refused_fast(tmp_path, number):
    """YAML 1.1 reads hex and base-60 numbers; converting a huge one takes quadratic time or
    fails past 4300 digits: a number longer than 100 characters is an error, at once."""
    path = tmp_path / "s.yaml"
    path.write_text(f"players:\n  - {{wonder: giza, side: A, coins: {number}}}\n"
                    "  - {wonder: rhodes, side: A}\n  - {wonder: babylon, side: A}\n")
    result = run_cli("score", str(path))
    assert result.exit_code == 2
    assert "characters at line 2 (at most 100)" in last_error_line(result)
