"""The one result type every extractor returns."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# Page types the classifier and the extractors agree on.
PAGE_TYPES = ("article", "blog", "forum", "list", "other")


@dataclass
class Post:
    """One post (floor) of a forum thread."""

    author: str | None = None
    datePublished: str | None = None
    content: str = ""
    floor: int | None = None


@dataclass
class ExtractionResult:
    url: str | None = None
    page_type: str = "other"
    headline: str | None = None
    datePublished: str | None = None  # ISO 8601, with time zone offset when known
    author: str | None = None
    source: str | None = None
    articleBody: str = ""
    images: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    posts: list[Post] = field(default_factory=list)
    lang: str | None = None
    method: str = "none"  # which extractor produced the result, e.g. "cevc", "pean", "template"
    valid: bool = False
    reasons: list[str] = field(default_factory=list)  # why the result is invalid (empty when valid)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, **extra: Any) -> str:
        data = self.to_dict()
        data.update(extra)
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def failure(cls, reason: str, url: str | None = None) -> "ExtractionResult":
        """A result for a page that could not be read at all (bad bytes, too big, not HTML)."""
        return cls(url=url, valid=False, reasons=[reason], method="none")
