"""Typed build options (issue 48): every abstraction method declares its options as a dataclass
(``METHODS[m].Options``) that checks itself before any work, with errors naming the
parameter; ``build-abstraction``'s flags are generated from those fields, and its errors name
the flag."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass

import pytest

import cli
from abstraction import commands
from abstraction import games as card_games
from abstraction.build import build, method_options, option_fields
from abstraction.features import EquityFeature
from abstraction.methods import (METHODS, ExpectationBased, OpponentClusterHandStrength,
                                 PotentialAware)
from abstraction.options import MethodOptions, OptionError, option


def test_a_bad_option_names_the_parameter_before_anything_is_written(tmp_path):
    data = tmp_path / "data"
    with pytest.raises(OptionError) as exc:
        build("rhode-island", "pa", PotentialAware.Options(buckets=(5, 3, 125)), data_dir=data)
    assert str(exc.value) == "buckets: round 1 has 3 buckets, fewer than round 0 (5)"
    assert exc.value.spelled(commands.flag) == ("--buckets: round 1 has 3 buckets, fewer than "
                                                "round 0 (5)")
    assert not data.exists()


@pytest.mark.parametrize("make, library, command_line", [
    (lambda: MethodOptions(buckets="13,x,125"),
     "buckets must be comma-separated integers, got '13,x,125'",
     "--buckets must be comma-separated integers, got '13,x,125'"),
    (lambda: method_options("eb", buckets="13,25,125", opponent_clusters=4),
     "opponent_clusters applies to method ochs, not eb",
     "--opponent-clusters applies to --method ochs, not eb"),
    (lambda: method_options("eb", intermediate=",,40"),
     "intermediate applies to the potential-aware methods (pa, pa-emd, ochs), not eb",
     "--intermediate applies to the potential-aware methods (pa, pa-emd, ochs), not eb"),
    (lambda: PotentialAware.Options(buckets=(13, 25, 125), recall="imperfect").check(
        card_games.get("rhode-island"), "pa"),
     "recall imperfect is built for method eb, pa-emd, ochs, not pa",
     "--recall imperfect is built for --method eb, pa-emd, ochs, not pa"),
])
def test_library_errors_name_parameters_the_cli_names_flags(make, library, command_line):
    with pytest.raises(OptionError) as exc:
        make()
    assert str(exc.value) == library
    assert exc.value.spelled(commands.flag) == command_line


def test_text_values_parse_and_braces_in_values_stay():
    assert MethodOptions(buckets="13,25,125").buckets == (13, 25, 125)
    assert PotentialAware.Options(intermediate=",,200").intermediate == (None, None, 200)
    assert MethodOptions(buckets=[1, 2]).buckets == (1, 2)
    err = OptionError("{buckets} must be comma-separated integers, got '{x}'", "buckets")
    assert err.spelled(commands.flag) == "--buckets must be comma-separated integers, got '{x}'"


def test_build_takes_typed_options_not_a_namespace():
    params = inspect.signature(build).parameters
    assert list(params)[:3] == ["game", "method", "options"]
    assert params["data_dir"].kind is inspect.Parameter.KEYWORD_ONLY
    assert OpponentClusterHandStrength.Options is not PotentialAware.Options
    assert issubclass(OpponentClusterHandStrength.Options, PotentialAware.Options)
    assert all(dataclasses.is_dataclass(cls.Options) for cls in METHODS.values())


def test_every_field_is_a_flag_with_its_help_and_default(capsys):
    with pytest.raises(SystemExit):
        cli.main(["build-abstraction", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for field in option_fields():
        assert commands.flag(field.name) in help_text
        assert "{" + field.name + "}" not in help_text  # parameters in help spelled as flags
    assert "(GS4, --from-strategy)" in help_text


@dataclass(frozen=True)
class PowerOptions(MethodOptions):
    """A toy method's own option, declared beside it."""

    power: int = option(3, "eb-power: the power of the equity clustered (default 3)", type=int)

    def check(self, game, method):
        super().check(game, method)
        if self.power < 1:
            raise OptionError(f"{{power}} must be at least 1, got {self.power}", "power")

    def model_kwargs(self, *args, **kwargs):
        return {**super().model_kwargs(*args, **kwargs), "power": self.power}

    def fingerprint(self):
        return {**super().fingerprint(), "power": self.power}


class ExpectationPowered(ExpectationBased):
    """A toy method: k-means on a power of the equity."""

    method = "eb-power"
    Options = PowerOptions

    def __init__(self, buckets, power: int = 3, **kwargs):
        super().__init__(buckets, **kwargs)
        self.power = power

    def _features(self, hands, buckets):
        return EquityFeature(hands, self.power)


def test_a_method_with_its_own_option_gets_its_flag(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(METHODS, "eb-power", ExpectationPowered)  # the one registry line
    argv = ["--data-dir", str(tmp_path), "build-abstraction", "--game", "rhode-island",
            "--buckets", "5,10,20", "--n-init", "1"]
    assert cli.main(argv + ["--method", "eb-power", "--power", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: --power must be at least 1, got 0"
    assert cli.main(argv + ["--method", "eb", "--power", "2"]) == 2
    assert capsys.readouterr().err.strip() == ("error: --power applies to --method eb-power, "
                                               "not eb")
    assert cli.main(argv + ["--method", "eb-power", "--power", "2", "--name", "p2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("p2: eb-power on rhode-island, buckets 5,10,20")
