"""`wsim survey --reference FILE` reads the people's counts strictly (W9 of the
round-4 findings, issue 36): an unclosed quote was read as a field running on to the end
of the file (`3,"giza",A,10,"2` gave 2 wins), and a row of a wonder side no survey seat can get
(Manneken Pis without --manneken-pis) was accepted, its comparison rows empty."""

import pytest

from wsim import tables as tables_mod
from wsim.analysis.playtest import ReferenceError, read_reference
from wsim.run.settings import Settings

from clikit import last_error_line, run_cli

HEADER = "players,wonder,side,seats,wins\n"


@pytest.mark.parametrize("text, message", [
    (HEADER + '3,"giza",A,10,"2\n', "line 2: not CSV (unexpected end of data)"),
    (HEADER + '3,giza,A,10,3\n3,"giza",B,10,"2\n', "line 3: not CSV (unexpected end of data)"),
    (HEADER + '3,"giza"x,A,10,2\n', "line 2: not CSV ("),
])
def test_a_broken_quote_is_a_parse_error(tmp_path, text, message):
    ref = tmp_path / "people.csv"
    ref.write_text(text)
    with pytest.raises(ReferenceError, match=f"^--reference: {ref} {message}".replace("(", r"\(").replace(")", r"\)")):
        read_reference(str(ref), tables_mod.load(), 3)


def test_a_wonder_side_not_in_play_is_refused(tmp_path):
    t = tables_mod.load()
    ref = tmp_path / "people.csv"
    ref.write_text(HEADER + "3,giza,A,10,3\n3,manneken_pis,*,10,4\n5,manneken_pis,A,3,1\n")
    plain = Settings(players=3, policies=("random",) * 3)
    with pytest.raises(ReferenceError, match=r"line 3: manneken_pis \* is not in play in this survey"):
        read_reference(str(ref), t, 3, plain.boards_in_play(t))
    promo = Settings(players=3, policies=("random",) * 3, manneken_pis=True)
    assert len(read_reference(str(ref), t, 3, promo.boards_in_play(t))) == 2  # the 5-player row is set aside
    only_b = Settings(players=3, policies=("random",) * 3, sides="B", manneken_pis=True)
    ref.write_text(HEADER + "3,giza,A,10,3\n")
    with pytest.raises(ReferenceError, match="line 2: giza A is not in play"):
        read_reference(str(ref), t, 3, only_b.boards_in_play(t))


def test_the_survey_refuses_them_before_anything_is_written(tmp_path):
    ref = tmp_path / "people.csv"
    for text, message in ((HEADER + '3,"giza",A,10,"2\n', "not CSV"),
                          (HEADER + "3,manneken_pis,A,10,4\n", "manneken_pis A is not in play in this survey")):
        ref.write_text(text)
        result = run_cli("survey", "--players", "3", "--games", "10", "--population", "r=random", "--reference",
                         str(ref), "--out", str(tmp_path / "r"))
        assert result.exit_code == 2 and message in last_error_line(result), result.output
        assert not (tmp_path / "r").exists()
