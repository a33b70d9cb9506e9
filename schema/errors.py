"""The exception types that the CLI turns into a one-line error and a non-zero exit: a
:class:`UserError`, and its :class:`ParameterError` that names the parameters at fault."""

import re


class UserError(Exception):
    """Bad input from the user: unknown name, bad path, damaged file, bad SQL, ...

    ``cli.py`` prints ``error: <message>`` on one line and exits with status 2.
    """


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (Arrow's and DuckDB's run over many lines), or its
    type name if it has none: what a one-line ``UserError`` quotes."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def typed_line(exc: BaseException) -> str:
    """``Type: first line`` of ``exc`` (a worker's error, where the type says much)."""
    first = first_line(exc)
    return first if first == type(exc).__name__ else f"{type(exc).__name__}: {first}"


#: How a message names a parameter of a library call: its Python name in backquotes.
_PARAMETER = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


class ParameterError(UserError):
    """A bad value of a library call's parameter(s) (``jobs``, ``max_size``, ...).

    The message names each parameter as its Python name in backquotes (``"`jobs` must be at
    least 1, got 0"``): what a caller from Python passed. The command line, which knows the
    option that sets each parameter, prints the message with the options instead
    (:meth:`naming`; ``cli.py`` maps them from the command's parser), so the library never
    spells a flag.
    """

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    @property
    def parameters(self) -> tuple[str, ...]:
        """The parameters the message names, in order."""
        return tuple(dict.fromkeys(_PARAMETER.findall(self.message)))

    def naming(self, name_of) -> str:
        """The message with each parameter ``p`` written ``name_of(p)`` (e.g. its flag), or
        left as it is where ``name_of`` returns None."""
        return _PARAMETER.sub(lambda m: name_of(m.group(1)) or m.group(0), self.message)
