"""A page held to a line budget: sections that say less, lowest value first, until it fits.

`kwhatif explain`'s summary promises one screen at any cluster size (docs/explain.md: at most 60
lines on an 80-column or wider terminal). Each section of the page comes with its renderings,
fullest first, each shorter than the one before and ending, when it leaves something out, with a
line that says where the rest is (-o wide, -o json); the page takes the fullest rendering of each
that fits, condensing the sections of the lowest `rank` first, one step at a time."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Section:
    """One part of a page: `renderings` fullest first; `rank`: the lower, the sooner it is
    condensed (the value of what a step leaves out)."""

    rank: int
    renderings: list[list[str]]
    shown: int = field(default=0, init=False)

    @property
    def lines(self) -> list[str]:
        return self.renderings[self.shown]

    def can_condense(self) -> bool:
        return self.shown + 1 < len(self.renderings)


def section(rank: int, renderings: list[list[str]]) -> Section:
    """A section whose renderings repeat none (a step that changes nothing is no step): the
    fullest first, and each other only when shorter than the last kept."""
    kept: list[list[str]] = []
    for lines in renderings:
        if not kept or len(lines) < len(kept[-1]):
            kept.append(lines)
    return Section(rank, kept)


def within(budget: int, fixed: int, sections: list[Section]) -> list[str]:
    """The sections' lines, in page order, condensed until they and the `fixed` lines (which are
    never condensed: the FailedScheduling message) fit in `budget` — or as short as they go."""
    while fixed + sum(len(s.lines) for s in sections) > budget:
        next_step = min((s for s in sections if s.can_condense()), key=lambda s: s.rank, default=None)
        if next_step is None:
            break
        next_step.shown += 1
    return [line for s in sections for line in s.lines]
