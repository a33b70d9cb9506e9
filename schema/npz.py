"""Reading a NumPy ``.npz`` archive that may come from elsewhere (a progress file carried
between machines): no pickles, and no array larger than the archive really holds.

``numpy.load`` trusts an archive's headers: a file that only begins like a zip archive raises
``zipfile.BadZipFile`` (not ``ValueError``), a non-archive is tried as a pickle, and an array
header may claim any shape, which ``numpy.lib.format.read_array`` allocates before it finds the
data missing. :func:`read_npz` reads the named arrays only after checking the archive's
directory (its members' sizes against a bound) and each array's header (a plain dtype, a shape
whose bytes are exactly the member's data), and raises one ``ValueError`` with a one-line
reason for anything else.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

import numpy as np
from numpy.lib import format as npy

#: the most bytes the named members of an archive may hold together, unless the caller says
MAX_BYTES = 1 << 28


def read_npz(path: str | Path, names: tuple[str, ...],
             max_bytes: int = MAX_BYTES) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the ``.npz`` archive ``path`` (other members are not read).

    Raises:
        ValueError: ``path`` is not such an archive (not a zip archive, a member missing or
            damaged, a pickled or object array, a header whose shape does not match its
            data, or more than ``max_bytes`` in the named members); the message is one line.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError("a directory, not a .npz archive")
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ValueError("not a .npz archive") from None
    except OSError as exc:
        raise ValueError(f"unreadable ({exc.strerror or exc})") from None
    try:
        with zf:
            members = {i.filename: i for i in zf.infolist()}
            missing = [n for n in names if f"{n}.npy" not in members]
            if missing:
                raise ValueError(f"no array {missing[0]!r}")
            size = sum(members[f"{n}.npy"].file_size for n in names)
            if size > max_bytes:
                raise ValueError(f"its arrays claim {size:,} bytes, more than {max_bytes:,}")
            return {n: read_npy(zf.read(members[f"{n}.npy"]), n) for n in names}
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError,
            zlib.error) as exc:  # a bad CRC, a truncated member, an unknown compression
        raise ValueError(f"damaged archive ({exc})".replace("\n", " ")) from None


def read_npy(data: bytes, name: str = "") -> np.ndarray:
    """The array of a ``.npy`` file's bytes ``data``, its header checked against them (``name``
    names it in errors).

    Raises:
        ValueError: not such a file (a bad header, a pickled or object array, a shape whose
            bytes are not exactly the data); the message is one line.
    """
    what = f"array {name!r}" if name else "array"
    fh = io.BytesIO(data)
    try:
        version = npy.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"format version {version}")
        read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, fortran, dtype = read_header(fh)
    except (ValueError, TypeError, SyntaxError) as exc:
        raise ValueError(f"{what}: bad header ({exc})".replace("\n", " ")) from None
    if dtype.hasobject:
        raise ValueError(f"{what} holds Python objects")
    if any(int(d) < 0 for d in shape):
        raise ValueError(f"{what}: its header claims the shape {shape}")
    count = 1
    for d in shape:
        count *= int(d)
    if count * dtype.itemsize != len(data) - fh.tell():
        raise ValueError(f"{what}: its header claims {count * dtype.itemsize:,} bytes, "
                         f"the file holds {len(data) - fh.tell():,}")
    a = np.frombuffer(data, dtype, count, offset=fh.tell())
    return a.reshape(shape, order="F" if fortran else "C").copy()
