"""A page written by `-o html`, parsed with the standard library for the tests to look into."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

EXTERNAL = ("http://", "https://", "//", "url(", "@import")
LOADING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "video", "audio", "source"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""  # the text directly inside, up to the next tag


@dataclass
class Page(HTMLParser):
    elements: list[Element] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    style: str = ""

    def __post_init__(self) -> None:
        HTMLParser.__init__(self, convert_charrefs=True)

    current: Element | None = None  # the element whose text is being read (None after its end tag)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current = Element(tag, {k: v or "" for k, v in attrs})
        self.elements.append(self.current)

    def handle_endtag(self, tag: str) -> None:
        self.current = None

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self.current is not None:
            self.current.text += data
            if self.current.tag == "style":
                self.style += data

    def cells(self, **wanted: str) -> list[Element]:
        """The elements whose attributes include every `wanted` one (`data_phase` is `data-phase`)."""
        attrs = {k.replace("_", "-"): v for k, v in wanted.items()}
        return [e for e in self.elements if all(e.attrs.get(k) == v for k, v in attrs.items())]

    def heat_rows(self) -> list[str]:
        """The heat map's row labels, top to bottom."""
        return [e.text for e, after in zip(self.elements, self.elements[1:])
                if e.tag == "td" and "heat" not in e.attrs.get("class", "") and "heat" in after.attrs.get("class", "")]

    def heat(self, row_label: str) -> dict[tuple[str, str], str]:
        """The heat map row of `row_label`: (resource, phase) -> the percentage shown (`–` when none)."""
        rows = [i for i, e in enumerate(self.elements) if e.tag == "td" and e.text == row_label]
        assert len(rows) == 1, f"{row_label!r}: {len(rows)} rows"
        out = {}
        for e in self.elements[rows[0] + 1:]:
            if "heat" not in e.attrs.get("class", ""):
                break
            out[(e.attrs["data-resource"], e.attrs["data-phase"])] = e.attrs.get("data-percent", e.text)
        return out

    def external_references(self) -> list[str]:
        """Whatever would make the browser fetch something: loading tags, src/href attributes,
        URLs in attributes or in the style sheet."""
        found = [e.tag for e in self.elements if e.tag in LOADING_TAGS]
        found += [f"{e.tag} {k}" for e in self.elements for k in e.attrs if k in ("src", "href", "srcset")]
        found += [v for e in self.elements for v in e.attrs.values() if any(x in v for x in EXTERNAL)]
        found += [x for x in EXTERNAL if x in self.style]
        return found


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page
