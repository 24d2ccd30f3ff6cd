"""Page classification: article, blog, forum thread, list/hub page, or other.

Rules first, because they are exact where they fire: forum-engine markup, schema.org/Open Graph
types, and for hub pages the link-text ratio with the list-noise coefficient Cn (the share of
text sitting in link-dominated blocks). What the rules leave open goes to the trained model
(extraction/models/page_type.json, trained by extraction/train_classifier.py), evaluated here
with plain Python so no pickle or scikit-learn version is involved at run time.

The crawler uses `is_detail_page(page)` to tell detail pages from list pages when a channel
has no URL regex.
"""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from .dom import Page, jsonld_types
from .page_features import FEATURE_NAMES, hub_figures, page_features

MODEL_PATH = Path(__file__).resolve().parent / "models" / "page_type.json"
_BLOG_HINT = re.compile(r"(?:^|[./-])blogs?(?:[./-]|$)|wordpress|blogspot|medium\.com|substack", re.I)
_BLOG_GENERATOR = re.compile(r"wordpress|blogger|ghost|hexo|jekyll|hugo|typepad|movable type", re.I)
_ARTICLE_LD = {"newsarticle", "article", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
               "opinionnewsarticle", "techarticle", "scholarlyarticle"}
_LIST_LD = {"itemlist", "collectionpage", "searchresultspage"}
# Hub-page rule: most text is link text and most text blocks are link blocks (Cn), no long paragraph.
HUB_LINK_RATIO = 0.6
HUB_CN = 0.55
HUB_MAX_PARAGRAPHS = 300  # characters of paragraph text in one container: an article has more
HUB_MIN_TEXT = 800  # a tiny page (login, error) is "other", not a hub
# A page that declares itself an article (meta/JSON-LD) and shows at most this many dates is one
# dated item, not a list of dated items, however link-heavy its chrome around a short text is.
ARTICLE_MAX_TIMES = 2
MIN_CONFIDENCE = 0.5  # below this the model's answer is "other"
# Thread evidence from PEAN's records (see _thread_evidence); on the generated training pages it
# fires for 1 % of list pages and about half of the engine-less threads.
THREAD_MIN_RECORDS = 3
THREAD_MIN_TEXT = 60
THREAD_MAX_LINK_RATIO = 0.15
THREAD_MIN_SHARE = 0.6
THREAD_EVIDENCE_SCORE = 0.6


class ModelError(ValueError):
    """The shipped model file is missing or does not fit the feature extractor."""


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_PATH)) -> dict:
    try:
        model = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read page-type model {path}: {exc}") from exc
    if model.get("features") != list(FEATURE_NAMES):
        raise ModelError(f"page-type model {path} was trained on other features; retrain with "
                         "python -m extraction.train_classifier")
    return model


def predict_proba(features: list[float], model: dict) -> dict[str, float]:
    """Multinomial logistic regression: softmax over classes of w·standardised(x) + b."""
    z = [(x - m) / (s or 1.0) for x, m, s in zip(features, model["mean"], model["scale"])]
    scores = [sum(w * v for w, v in zip(row, z)) + b for row, b in zip(model["coef"], model["intercept"])]
    if len(scores) == 1:  # binary models store one row
        p = 1 / (1 + math.exp(-scores[0]))
        return dict(zip(model["classes"], (1 - p, p)))
    top = max(scores)
    exp = [math.exp(s - top) for s in scores]
    total = sum(exp)
    return {c: e / total for c, e in zip(model["classes"], exp)}


def _article_kind(page: Page, types: set[str]) -> str:
    host_path = urlsplit(page.url or "").netloc + urlsplit(page.url or "").path
    if "blogposting" in types or _BLOG_HINT.search(host_path) or _BLOG_GENERATOR.search(page.meta.get("generator", "")):
        return "blog"
    return "article"


def classify_rules(page: Page, features: list[float] | None = None) -> tuple[str, float] | None:
    """The rule layer alone: (page_type, confidence) when a rule fires, else None."""
    from .forums import recognise

    if recognise(page, strict=True) is not None:
        return "forum", 0.99
    types = jsonld_types(page)
    if any("discussionforumposting" in t for t in types):
        return "forum", 0.95
    # The hub rule needs only block statistics; the full feature vector (time strings, PEAN
    # records) is left to pages that reach the model.
    f = dict(zip(FEATURE_NAMES, features)) if features is not None else hub_figures(page)
    declared_article = bool(types & _ARTICLE_LD or (page.meta.get("og:type") or "").lower() == "article"
                            or page.meta.get("article:published_time"))
    if (f["link_text_ratio"] >= HUB_LINK_RATIO and f["cn_text"] >= HUB_CN
            and f["log_para_container"] <= math.log1p(HUB_MAX_PARAGRAPHS) and f["log_links"] >= math.log1p(20)
            and f["log_text"] >= math.log1p(HUB_MIN_TEXT)
            and not (declared_article and _time_strings(page) <= ARTICLE_MAX_TIMES)):
        return "list", 0.9
    if types & _LIST_LD and not types & _ARTICLE_LD:
        return "list", 0.85
    if declared_article:
        return _article_kind(page, types), 0.9
    return None


def _time_strings(page: Page) -> int:
    """Date/time strings in the page text (the same reading as the model's time features)."""
    from .forums.times import find_times

    text = " ".join(page.body.itertext())[:30_000]
    return len(find_times(text, None, limit=ARTICLE_MAX_TIMES + 1))


def classify(page: Page, model: dict | None = None) -> tuple[str, float]:
    """(page_type, confidence) with page_type one of article, blog, forum, list, other."""
    ruled = classify_rules(page)
    if ruled is not None:
        return ruled
    features = page_features(page)
    label, score = decide(features, predict_proba(features, model or load_model()))
    if label == "article":
        return _article_kind(page, jsonld_types(page)), score
    return label, score


def _thread_evidence(f: dict[str, float]) -> bool:
    """PEAN found a run of records that read like posts: several, each with its own text beside
    its time line, little of it links, and together most of the page's text."""
    return (f["log_pean_records"] >= math.log1p(THREAD_MIN_RECORDS)
            and f["log_pean_text_per_record"] >= math.log1p(THREAD_MIN_TEXT)
            and f["pean_record_link_ratio"] <= THREAD_MAX_LINK_RATIO
            and f["pean_record_text_share"] >= THREAD_MIN_SHARE)


def decide(features: list[float], probs: dict[str, float]) -> tuple[str, float]:
    """The model's answer with two guards: no thread without a single clock time, and a
    "list" whose records read like posts is a thread (the model has seen forum threads mostly
    from known engines, list pages only generated)."""
    f = dict(zip(FEATURE_NAMES, features))
    probs = dict(probs)
    if f["log_clock_times"] == 0:
        # Every forum post shows when it was written: a page without a single clock time is no
        # thread. The other classes keep their odds (probabilities given "not a thread"), so a
        # page the model took for a thread is not left below MIN_CONFIDENCE and called "other".
        dropped = probs.pop("forum", 0.0)
        if 0 < dropped < 1:
            probs = {c: p / (1 - dropped) for c, p in probs.items()}
    label = max(probs, key=probs.get)
    score = probs[label]
    if label == "list" and _thread_evidence(f):
        return "forum", THREAD_EVIDENCE_SCORE
    if score < MIN_CONFIDENCE:
        return "other", score
    return label, score


def is_detail_page(page: Page) -> bool:
    """True for pages that carry one item (article, blog post, forum thread), False for hubs."""
    page_type, _ = classify(page)
    return page_type in ("article", "blog", "forum")
