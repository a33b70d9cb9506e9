"""The one exception type that the CLI turns into a one-line error and a non-zero exit."""


class UserError(Exception):
    """Bad input from the user: unknown name, bad path, damaged file, bad SQL, ...

    ``cli.py`` prints ``error: <message>`` on one line and exits with status 2.
    """
