"""Forum thread extraction: the engine's own structure when the page comes from a known
open-source forum engine, otherwise PEAN."""
from __future__ import annotations

from ..dom import Page
from ..result import Post
from .engines import ENGINES, Engine, extract_with_engine, recognise


def extract_posts(page: Page) -> tuple[list[Post], str]:
    """Posts of a thread page and the method that found them ("engine:<name>" or "pean")."""
    from .. import pean  # imported here: pean imports forums.common/times, not the other way round

    engine = recognise(page)
    if engine is not None:
        posts = extract_with_engine(page, engine)
        if posts:
            return posts, f"engine:{engine.name}"
    return pean.extract_posts(page), "pean"


__all__ = ["ENGINES", "Engine", "extract_posts", "extract_with_engine", "recognise"]
