"""Train the page-type classifier shipped in extraction/models/page_type.json.

    python -m extraction.train_classifier [--bench ../shared/bench] [--out extraction/models/page_type.json]

Labelled pages: article pages (bench en-articles, zh-news, template-sites), forum threads
(bench forum, all from known engines, plus engine-less threads generated here) and list/hub
pages plus "other" pages (login, error, contact) generated here, because the bench has none. The model is a scikit-learn logistic regression on
extraction/page_features.py features; it is written as plain JSON (feature means, scales,
coefficients) so inference needs neither pickle nor a particular scikit-learn version.
Accuracy is reported by leave-one-site-out cross-validation, never on the training pages.
Bench pages are read from the bench folder and never copied into the project.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

CLASSES = ("article", "forum", "list", "other")
GENERATED_PAGES = 500  # generated list/other/thread pages added to the bench pages

# ---------------------------------------------------------------- generated list and other pages
# Hand-written vocabularies (no bench text): enough variety for realistic link/paragraph lengths.
_EN = ("market city council report government season team players police court school health study "
       "people water energy price company year week plan new first after over could would said their "
       "public state local national world business climate science music film festival museum street "
       "election minister budget tax housing transport rail airport weather storm flood fire hospital "
       "doctor research university student teacher family child women men history art book review "
       "travel food restaurant recipe garden home design fashion technology software phone app data "
       "security privacy internet network game sport football league cup final match win loss record").split()
_DE = ("Stadt Rat Bericht Regierung Saison Mannschaft Polizei Gericht Schule Gesundheit Studie Menschen "
       "Wasser Energie Preis Unternehmen Jahr Woche Plan neue erste nach über könnte würde sagte Markt "
       "Wetter Sturm Verkehr Bahn Flughafen Krankenhaus Forschung Universität Familie Kinder Geschichte").split()
_ZH = ("新闻 经济 社会 国际 体育 科技 教育 文化 健康 旅游 汽车 房产 财经 娱乐 军事 政策 发布 会议 城市 市场 "
       "企业 公司 项目 发展 建设 改革 服务 管理 工作 记者 报道 消息 今日 本周 全国 地方 政府 部门 专家 数据").split()
_USERS = ("alex mika jo_smith dragon77 lisa.k tom_b anna92 kai wolf2000 ming 小王 老张 sunny bob peter_m "
          "jens carla frodo admin moderator nightowl").split()


def _words(rng: random.Random, n: int, lang: str) -> str:
    if lang == "zh":
        return "".join(rng.choice(_ZH) for _ in range(n))
    vocab = _DE if lang == "de" else _EN
    return " ".join(rng.choice(vocab) for _ in range(n)).capitalize()


def _sentence(rng: random.Random, lang: str) -> str:
    return _words(rng, rng.randint(6, 18), lang) + ("。" if lang == "zh" else ".")


def _date(rng: random.Random, clock: bool) -> str:
    y, m, d, h, mi = rng.randint(2012, 2024), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
    fmt = rng.choice(["{y}-{m:02d}-{d:02d}", "{d:02d}.{m:02d}.{y}", "{m}/{d}/{y}", "{y}年{m}月{d}日", "Jan {d}, {y}"])
    text = fmt.format(y=y, m=m, d=d)
    return text + (f" {h:02d}:{mi:02d}" if clock else "")


def _nav(rng: random.Random, lang: str, n: int) -> str:
    return "".join(f'<li><a href="/{rng.choice(_EN)}/">{_words(rng, rng.randint(1, 2), lang)}</a></li>' for _ in range(n))


def _chrome(rng: random.Random, lang: str, main: str, title: str) -> str:
    """Header, navigation, optional sidebar and footer around the main part, as real sites have."""
    head_meta = ""
    if rng.random() < 0.5:
        head_meta += f'<meta name="description" content="{_sentence(rng, lang)}">'
    if rng.random() < 0.4:
        head_meta += '<meta property="og:type" content="website">'
    sidebar = ""
    if rng.random() < 0.6:
        items = "".join(f'<li><a href="/p/{rng.randint(1, 99999)}">{_words(rng, rng.randint(3, 8), lang)}</a>'
                        + (f' <span>{_date(rng, False)}</span>' if rng.random() < 0.5 else "") + "</li>"
                        for _ in range(rng.randint(4, 12)))
        sidebar = f'<aside class="sidebar"><h3>{_words(rng, 2, lang)}</h3><ul>{items}</ul></aside>'
    footer = "".join(f'<a href="/{w}">{w}</a> ' for w in rng.sample(_EN, rng.randint(3, 10)))
    return (f"<html><head><title>{title}</title>{head_meta}</head><body>"
            f'<header><div class="logo"><a href="/">{_words(rng, 2, lang)}</a></div><nav><ul>{_nav(rng, lang, rng.randint(4, 14))}</ul></nav></header>'
            f'<div class="wrap"><main>{main}</main>{sidebar}</div>'
            f'<footer><p>© {rng.randint(2010, 2024)} {_words(rng, 2, lang)}</p>{footer}</footer></body></html>')


def _pager(rng: random.Random) -> str:
    return '<div class="pagination">' + "".join(f'<a href="?page={i}">{i}</a>' for i in range(1, rng.randint(3, 12))) + "</div>"


def _news_list(rng: random.Random, lang: str) -> str:
    items = []
    tag = rng.choice(["li", "div", "article"])
    for _ in range(rng.randint(8, 40)):
        parts = [f'<h{rng.choice([2, 3, 4])}><a href="/news/{rng.randint(10000, 999999)}.html">{_words(rng, rng.randint(4, 12), lang)}</a></h{rng.choice([2, 3, 4])}>'
                 if rng.random() < 0.5 else f'<a href="/a/{rng.randint(10000, 999999)}">{_words(rng, rng.randint(4, 12), lang)}</a>']
        if rng.random() < 0.6:
            parts.append(f"<p>{_sentence(rng, lang)}</p>")
        if rng.random() < 0.7:
            parts.append(f'<span class="date">{_date(rng, rng.random() < 0.4)}</span>')
        if rng.random() < 0.3:
            parts.append(f'<img src="/img/{rng.randint(1, 9999)}.jpg">')
        items.append(f'<{tag} class="item">{"".join(parts)}</{tag}>')
    body = "".join(items)
    if tag == "li":
        body = f'<ul class="list">{body}</ul>'
    return f"<h1>{_words(rng, 2, lang)}</h1>{body}{_pager(rng) if rng.random() < 0.7 else ''}"


def _board(rng: random.Random, lang: str) -> str:
    """A forum board (thread list): many dates and user names, but no posts."""
    rows = []
    table = rng.random() < 0.5
    for _ in range(rng.randint(10, 40)):
        cells = [f'<a class="title" href="/thread/{rng.randint(1000, 99999)}">{_words(rng, rng.randint(3, 10), lang)}</a>'
                 f' <span class="by">{rng.choice(_USERS)}</span>',
                 str(rng.randint(0, 500)), str(rng.randint(10, 90000)),
                 f'{_date(rng, True)} <a href="/u/{rng.randint(1, 999)}">{rng.choice(_USERS)}</a>']
        if table:
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        else:
            rows.append('<li class="thread">' + "".join(f"<div>{c}</div>" for c in cells) + "</li>")
    listing = f"<table>{''.join(rows)}</table>" if table else f"<ul>{''.join(rows)}</ul>"
    return f"<h1>{_words(rng, 3, lang)}</h1>{_pager(rng)}{listing}{_pager(rng)}"


def _blog_archive(rng: random.Random, lang: str) -> str:
    posts = []
    for _ in range(rng.randint(4, 15)):
        excerpt = " ".join(_sentence(rng, lang) for _ in range(rng.randint(1, 4)))
        posts.append(f'<article class="post"><h2><a href="/{rng.randint(2012, 2024)}/{rng.randint(1, 12):02d}/{_words(rng, 3, "en").lower().replace(" ", "-")}/">'
                     f'{_words(rng, rng.randint(3, 9), lang)}</a></h2><div class="meta">{_date(rng, rng.random() < 0.3)}</div>'
                     f'<p>{excerpt}</p><a class="more" href="#">Read more</a></article>')
    return "".join(posts) + _pager(rng)


def _portal(rng: random.Random, lang: str) -> str:
    sections = []
    for _ in range(rng.randint(3, 8)):
        links = "".join(f'<li><a href="/s/{rng.randint(1, 99999)}">{_words(rng, rng.randint(4, 11), lang)}</a></li>'
                        for _ in range(rng.randint(4, 12)))
        sections.append(f'<section><h2>{_words(rng, 2, lang)}</h2><ul>{links}</ul></section>')
    return "".join(sections)


def _search_results(rng: random.Random, lang: str) -> str:
    hits = "".join(f'<div class="result"><h3><a href="https://{rng.choice(_EN)}.example/{rng.randint(1, 9999)}">{_words(rng, rng.randint(4, 10), lang)}</a></h3>'
                   f'<cite>{rng.choice(_EN)}.example</cite><p>{_sentence(rng, lang)}</p></div>' for _ in range(rng.randint(8, 20)))
    return f'<form><input name="q"></form>{hits}{_pager(rng)}'


def _other(rng: random.Random, lang: str) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return f'<h1>{_words(rng, 2, lang)}</h1><form><input name="user"><input type="password"><input type="submit"></form><p>{_sentence(rng, lang)}</p>'
    if kind == 1:
        return f"<h1>404</h1><p>{_sentence(rng, lang)}</p><p><a href='/'>{_words(rng, 2, lang)}</a></p>"
    return (f"<h1>{_words(rng, 2, lang)}</h1><p>{_sentence(rng, lang)}</p><address>{_words(rng, 6, lang)}</address>"
            f"<form><input name='email'><input name='msg'></form>")


def _thread(rng: random.Random, lang: str) -> str:
    """A forum thread from no known engine: posts with author box, time, text, sometimes quotes and
    signatures; layouts vary (div or table rows, author left or on top)."""
    table = rng.random() < 0.4
    rows = []
    prev = ""
    for i in range(rng.choice([1, 2, 3, rng.randint(4, 25)])):
        user = rng.choice(_USERS)
        text = " ".join(_sentence(rng, lang) for _ in range(rng.choice([1, 1, 2, 3, 6])))
        quote = f'<div class="quote"><b>{rng.choice(_USERS)}:</b> {prev}</div>' if prev and rng.random() < 0.2 else ""
        sig = f'<div class="sig">{_words(rng, 4, lang)}</div>' if rng.random() < 0.3 else ""
        info = f'<div class="userinfo"><a href="/user/{rng.randint(1, 9999)}">{user}</a><br>{_words(rng, 1, lang)} {rng.randint(1, 9000)}</div>'
        meta = f'<div class="postmeta">#{i + 1} {_date(rng, True)}</div>'
        body = f'<div class="message">{quote}{text}</div>{sig}'
        if table:
            rows.append(f"<tr><td class='left'>{info}</td><td>{meta}{body}</td></tr>")
        else:
            rows.append(f'<div class="entry">{info}{meta}{body}</div>')
        prev = text
    posts = f"<table class='posts'>{''.join(rows)}</table>" if table else f"<div class='posts'>{''.join(rows)}</div>"
    return f"<h1>{_words(rng, rng.randint(3, 8), lang)}</h1>{_pager(rng) if rng.random() < 0.4 else ''}{posts}"


LIST_MAKERS = (_news_list, _board, _blog_archive, _portal, _search_results)
LIST_PATHS = ("/news/", "/forum/board-{n}", "/category/{w}/page/{n}", "/index.html", "/{w}/", "/tag/{w}", "/search?q={w}", "/")


def generated_pages(count: int, seed: int = 7) -> list[tuple[str, str, str, str]]:
    """(html, url, label, group) for generated list, "other" and engine-less forum-thread pages;
    a group is one fake site."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        lang = rng.choice(["en", "en", "de", "zh"])
        site = f"gen{i % 40}"
        roll = rng.random()
        if roll < 0.15:
            label, main = "other", _other(rng, lang)
        elif roll < 0.35:
            label, main = "forum", _thread(rng, lang)
        else:
            label, main = "list", rng.choice(LIST_MAKERS)(rng, lang)
        path = rng.choice(LIST_PATHS).format(n=rng.randint(1, 50), w=rng.choice(_EN))
        url = f"https://{site}.example{path}" if rng.random() < 0.7 else ""
        title = _words(rng, rng.randint(2, 6), lang)
        if rng.random() < 0.25:
            # Some pages (and most test fixtures) come without site chrome: the model must not
            # learn "header and footer present" as part of any class.
            page = f"<html><head><title>{title}</title></head><body>{main}</body></html>"
        else:
            page = _chrome(rng, lang, main, title)
        out.append((page, url, label, site))
    return out


# ---------------------------------------------------------------- bench pages
def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def bench_pages(bench: Path) -> list[tuple[bytes, str, str, str]]:
    """(bytes, url, label, group) for every bench page; the group is the site, for leave-one-site-out."""
    out = []
    forum_gold = json.loads((bench / "forum" / "gold.json").read_text(encoding="utf-8"))
    for page_id, gold in forum_gold.items():
        out.append((_read(bench / "forum" / "html" / f"{page_id}.html"), gold.get("url") or "", "forum",
                    "forum:" + page_id.rsplit("-", 1)[0]))
    gold = json.loads((bench / "en-articles" / "gold.json").read_text(encoding="utf-8"))
    for path in sorted((bench / "en-articles" / "html").iterdir()):
        page_id = path.name.split(".")[0]
        out.append((_read(path), (gold.get(page_id) or {}).get("url") or "", "article", "en:" + page_id))
    gold = json.loads((bench / "zh-news" / "gold.json").read_text(encoding="utf-8"))
    for path in sorted((bench / "zh-news" / "html").iterdir()):
        page_id = path.name.split(".")[0]
        out.append((_read(path), (gold.get(page_id) or {}).get("url") or "", "article", "zh:" + page_id.rsplit("-", 1)[0]))
    for site in sorted((bench / "template-sites").iterdir()):
        gold = json.loads((site / "gold.json").read_text(encoding="utf-8"))
        for path in sorted((site / "html").iterdir()):
            page_id = path.name.split(".")[0]
            out.append((_read(path), (gold.get(page_id) or {}).get("url") or "", "article", "tpl:" + site.name))
    return out


# ---------------------------------------------------------------- training
def featurize(items) -> tuple[list[list[float]], list[str], list[str], list]:
    from .dom import PageError, load_page
    from .page_features import page_features

    X, y, groups, pages = [], [], [], []
    for i, (data, url, label, group) in enumerate(items):
        # Half of the pages without URL: `mcrawl extract FILE` often has none, and the model must not lean on it.
        try:
            page = load_page(data, url if i % 2 == 0 else None)
        except PageError:
            continue
        X.append(page_features(page))
        y.append(label)
        groups.append(group)
        pages.append(page)
    return X, y, groups, pages


def fit(X, y):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5, class_weight="balanced"))
    model.fit(X, y)
    return model


def to_json(model, n_train: int, cv: dict) -> dict:
    from .page_features import FEATURE_NAMES

    scaler, clf = model.steps[0][1], model.steps[1][1]
    return {
        "kind": "logistic_regression",
        "features": list(FEATURE_NAMES),
        "classes": [str(c) for c in clf.classes_],
        "mean": [float(v) for v in scaler.mean_],
        "scale": [float(v) for v in scaler.scale_],
        "coef": [[float(v) for v in row] for row in clf.coef_],
        "intercept": [float(v) for v in clf.intercept_],
        "trained_on": n_train,
        "leave_one_site_out": cv,
    }


def leave_one_site_out(X, y, groups) -> tuple[dict, list[str], list[dict[str, float]]]:
    """Accuracy of models that never saw the held-out site; also per-example labels and class
    probabilities (for evaluating the whole decision, rules and guards included)."""
    import numpy as np

    Xa, ya, ga = np.array(X), np.array(y), np.array(groups)
    pred = [""] * len(y)
    probs: list[dict[str, float]] = [{} for _ in y]
    for group in sorted(set(groups)):
        test = ga == group
        model = fit(Xa[~test], ya[~test])
        classes = [str(c) for c in model.classes_]
        for i, row in zip(np.where(test)[0], model.predict_proba(Xa[test])):
            probs[i] = {c: float(v) for c, v in zip(classes, row)}
            pred[i] = max(probs[i], key=probs[i].get)
    correct = sum(p == t for p, t in zip(pred, y))
    per_class = {c: round(sum(p == t for p, t in zip(pred, y) if t == c) / max(1, y.count(c)), 4) for c in set(y)}
    return {"accuracy": round(correct / len(y), 4), "per_class": per_class, "n": len(y)}, pred, probs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=str(Path(__file__).resolve().parents[2] / "shared" / "bench"))
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "models" / "page_type.json"))
    ap.add_argument("--generated", type=int, default=GENERATED_PAGES)
    args = ap.parse_args(argv)
    bench = Path(args.bench)
    if not (bench / "forum" / "gold.json").exists():
        print(f"bench not found at {bench}", file=sys.stderr)
        return 2
    items = bench_pages(bench) + [(h.encode(), u, l, g) for h, u, l, g in generated_pages(args.generated)]
    X, y, groups, _ = featurize(items)
    cv, _, _ = leave_one_site_out(X, y, groups)
    print(json.dumps({"leave_one_site_out": cv}, indent=1))
    model = fit(X, y)
    Path(args.out).write_text(json.dumps(to_json(model, len(y), cv), indent=0), encoding="utf-8")
    print(f"wrote {args.out} ({len(y)} pages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
