"""`mcrawl templates mine/show/label` and `mcrawl extract --templates`, with SQLite and MariaDB stores."""
from __future__ import annotations

import json
import uuid

import pytest

from crawler.cli import main
from crawler.templates_cli import library_from_store, save_to_store
from extraction.templates.library import TemplateLibrary
from tests.unit.test_templates_pages import blog_page, news_page


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    pages = root / "pages"
    pages.mkdir()
    urls, labels = {}, {}
    for i in range(6):
        (pages / f"n{i}.html").write_text(news_page(i)[0], encoding="utf-8")
        urls[f"n{i}"] = {"url": f"http://town.example/news/story-{i}.html"}
        labels[f"n{i}"] = "news"
    for i in range(4):
        (pages / f"b{i}.html").write_text(blog_page(i)[0], encoding="utf-8")
        urls[f"b{i}"] = {"url": f"http://town.example/blog/post-{i}"}
        labels[f"b{i}"] = "blog"
    (root / "urls.json").write_text(json.dumps(urls))
    (root / "labels.json").write_text(json.dumps(labels))
    return root


@pytest.fixture(scope="module")
def mined_file(site_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "lib.json"
    rc = main(["templates", "mine", str(site_dir / "pages"), "--site", "town", "--urls", str(site_dir / "urls.json"),
               "--labels", str(site_dir / "labels.json"), "--out", str(out)])
    assert rc == 0
    return out


def test_mine_prints_clusters_purity_and_templates(site_dir, tmp_path, capsys):
    out = tmp_path / "lib.json"
    db = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    rc = main(["templates", "mine", str(site_dir / "pages"), "--site", "town", "--urls", str(site_dir / "urls.json"),
               "--labels", str(site_dir / "labels.json"), "--out", str(out), "--db", db])
    text = capsys.readouterr().out
    assert rc == 0
    assert "10 pages, 2 clusters, purity 1.000" in text
    assert "required nodes" in text and "optional nodes" in text and "body=node" in text
    assert len(TemplateLibrary.load(out)) == 2
    stored = library_from_store(db, "town")
    assert sorted(t.id for t in stored) == sorted(t.id for t in TemplateLibrary.load(out))


def test_show_and_manual_label(mined_file, capsys):
    lib = TemplateLibrary.load(mined_file)
    news = next(t for t in lib if any(p.endswith("/news") for p in t.url_prefixes))
    node = news.keys.index("div.byline")
    assert main(["templates", "label", str(mined_file), "--template", news.id, "--field", "headline", "--node", str(node)]) == 0
    capsys.readouterr()
    assert main(["templates", "show", str(mined_file), "--nodes"]) == 0
    text = capsys.readouterr().out
    assert f"headline=node {node} <div.byline> (manual" in text
    assert "h1.headline" in text  # the node listing


def test_extract_uses_the_templates(mined_file, tmp_path, capsys):
    page = tmp_path / "new.html"
    html, meta = news_page(99)
    page.write_text(html, encoding="utf-8")
    assert main(["extract", "--templates", str(mined_file), "--url", "http://town.example/news/story-99.html", str(page)]) == 0
    row = json.loads(capsys.readouterr().out.strip())
    assert row["method"] == "template"
    assert meta["paragraphs"][0] in row["articleBody"]


def test_bad_inputs_are_clear(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["templates", "mine", str(empty), "--site", "x"]) == 1
    assert "no page files" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main(["templates", "show", str(bad)]) == 1
    assert "not a template library" in capsys.readouterr().err
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.html").write_bytes(b"")
    assert main(["templates", "mine", str(junk), "--site", "x"]) == 1
    err = capsys.readouterr().err
    assert "skipped a" in err and "no readable pages" in err


def test_templates_round_trip_through_mariadb(mined_file, mysql_url):
    from crawler.store import open_store

    site = f"test-{uuid.uuid4().hex[:8]}"
    lib = TemplateLibrary.load(mined_file)
    ids = save_to_store(lib, mysql_url, site)
    try:
        assert len(ids) == len(lib)
        again = library_from_store(mysql_url, site)
        assert sorted(t.to_dict()["keys"] for t in again) == sorted(t.to_dict()["keys"] for t in lib)
        # saving again replaces the rows (same site and prefix), it does not add new ones
        assert sorted(save_to_store(lib, mysql_url, site)) == sorted(ids)
    finally:
        store = open_store(mysql_url)
        for i in ids:
            store.delete_template(i)
