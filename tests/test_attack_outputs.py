"""Hostile output paths and numbers (issue 50, the smaller defects): refused in one line
before any work, nothing left behind; output folders are created the same way everywhere."""

from __future__ import annotations

import pytest

import cli


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("outputs")
    assert cli.main(["--data-dir", str(d), "solve", "--game", "holdem", "--abstraction",
                     "synthetic:3,6", "--max-bets", "2", "--iterations", "30", "--name", "h",
                     "--lbr-deals", "10", "--h2h-deals", "50"]) == 0
    return d


def one_line_error(capsys, needle: str) -> None:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err, err


def test_plot_range_into_a_folder_writes_inside_it_and_leaves_no_temp_file(data, tmp_path,
                                                                           capsys):
    out = tmp_path / "pictures"
    out.mkdir()
    assert cli.main(["--data-dir", str(data), "plot-range", "h", "--history", "rc/", "--board",
                     "7c8h9s", "--out", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == ["h-range.png"]
    assert [p.name for p in tmp_path.iterdir()] == ["pictures"]  # no temp file in the parent
    deep = tmp_path / "new" / "folder" / "r.png"  # missing folders are made, as elsewhere
    assert cli.main(["--data-dir", str(data), "plot-range", "h", "--out", str(deep)]) == 0
    assert deep.stat().st_size > 0
    capsys.readouterr()


@pytest.mark.parametrize("out, needle", [("/proc/range.png", "is not writable"),
                                         ("range.txt", "must name a .png file")])
def test_plot_range_refuses_where_it_cannot_write(data, capsys, out, needle):
    assert cli.main(["--data-dir", str(data), "plot-range", "h", "--out", out]) == 2
    one_line_error(capsys, needle)


def test_evaluate_refuses_absurd_counts_before_evaluating(data, capsys):
    assert cli.main(["--data-dir", str(data), "evaluate", "h", "--lbr-boards",
                     "99999999999999999999"]) == 2
    one_line_error(capsys, "--lbr-boards must be at most")
    assert capsys.readouterr().out == ""  # nothing was evaluated first


def test_compare_report_to_an_unwritable_folder_fails_before_any_work(data, capsys):
    assert cli.main(["--data-dir", str(data), "compare", "--game", "holdem", "h",
                     "--report", "/proc/report"]) == 2
    one_line_error(capsys, "is not writable")
