"""Exit codes, named in one place (CI relies on them)."""

import errno
import os
import sys
from enum import IntEnum


class Exit(IntEnum):
    ALL_PLACED = 0       # every pod was placed (or there was nothing to place)
    NOT_ALL_PLACED = 1   # some pod stays pending, is rejected, or (check) a policy fails
    BAD_INPUT = 2        # unreadable or invalid input, bad configuration, bad usage, unwritable output
    INTERNAL_ERROR = 3   # a bug in kwhatif: reported on one line, never as a traceback
    INTERRUPTED = 130    # Ctrl-C (128 + SIGINT, as a shell reports it): no verdict, not bad input


UNWRITABLE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""What writing the output can meet that is no bug of kwhatif's: a full disk or quota, a file too
big for its filesystem, a device failing."""


def unwritable(err: OSError) -> Exit:
    """The output could not be written: said on one line (exit 2: no verdict was delivered); the
    rest of it, still buffered, is dropped, so that the way out does not try to write it again."""
    sys.stderr.write(f"kwhatif: error: cannot write the output: {err.strerror or err}\n")
    sys.stdout = open(os.devnull, "w")
    return Exit.BAD_INPUT
