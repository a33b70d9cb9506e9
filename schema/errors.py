"""The one exception type that the CLI turns into a one-line error and a non-zero exit."""


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
