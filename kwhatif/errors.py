"""The one exception type for bad input, and how it reads on one line.

Every input problem names where it was found (file, document, line), which object
(`Kind/namespace/name`) and which field, so that a user can fix it without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """Where an object came from: the file (`stdin` for standard input), its document index
    (0-based, within a multi-document file), its index among a List's items, and, when the
    parser knows it, its line."""

    file: str
    doc: int | None = 0
    """None: the file as a whole (it cannot be read, or is no prepared snapshot), no document."""
    line: int | None = None
    item: int | None = None

    @classmethod
    def whole(cls, file: str) -> Source:
        return cls(file, None)

    def __str__(self) -> str:
        if self.doc is None:
            return self.file
        where = f"{self.file}#{self.doc}"
        if self.item is not None:
            where += f".items[{self.item}]"
        return f"{where}:{self.line}" if self.line is not None else where


def located(source: Source | None) -> str:
    """The `file#doc:line: ` that starts a message about an object, or nothing when it has no source."""
    return f"{source}: " if source else ""


class InputError(Exception):
    """Bad input: the CLI prints `str(err)` on one line and exits 2."""

    def __init__(
        self,
        message: str,
        source: Source | None = None,
        obj: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.obj = obj
        self.field = field

    def __reduce__(self) -> tuple[type, tuple]:
        """Pickled whole (a forked decoder sends its error back): Exception's own reduction
        would keep only the message."""
        return (type(self), (self.message, self.source, self.obj, self.field))

    def __str__(self) -> str:
        parts = [str(self.source)] if self.source else []
        if self.obj:
            parts.append(one_line(self.obj))
        if self.field:
            parts.append(one_line(self.field))
        parts.append(" ".join(self.message.split()))
        return ": ".join(parts)


def one_line(text: str) -> str:
    """Map keys land in field paths as written (`metadata.labels.<key>`); a key holding a newline
    or another control character (a terminal escape) is escaped so that the error stays one line
    and prints as written."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
