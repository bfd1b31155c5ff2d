"""Exit codes, named in one place (CI relies on them)."""

from enum import IntEnum


class Exit(IntEnum):
    ALL_PLACED = 0       # every pod was placed (or there was nothing to place)
    NOT_ALL_PLACED = 1   # some pod stays pending, is rejected, or (check) a policy fails
    BAD_INPUT = 2        # unreadable or invalid input, bad configuration, bad usage
    INTERNAL_ERROR = 3   # a bug in kwhatif: reported on one line, never as a traceback
    INTERRUPTED = 130    # Ctrl-C (128 + SIGINT, as a shell reports it): no verdict, not bad input
