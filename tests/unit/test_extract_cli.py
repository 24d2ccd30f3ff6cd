"""`mcrawl extract` on bad input: every file gets a JSON line, bad ones valid:false with a reason,
no traceback, and the run goes on to the next file."""
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PARAS = [
    "The city council voted on Tuesday to expand the bus network, a decision that will add twelve new routes by the end of next year.",
    "Officials said the plan had been in the works for more than two years and would be paid for with a mix of state grants and fares.",
    "Residents who spoke at the meeting were mostly in favour, although several asked why their neighbourhoods had been left out.",
    "The first of the new routes, linking the university with the main railway station, is due to open in March.",
    "A spokesman for the transport department said timetables would be published online a month before each route opens.",
]
ARTICLE = ("<html><head><meta charset='utf-8'><title>Council expands the city bus network</title></head><body>"
           "<nav><a href='/'>Home</a><a href='/news'>News</a></nav><div class='story'>"
           "<h1>Council expands the city bus network</h1><p class='byline'>By Jane Doe, 12 June 2019</p>"
           + "".join(f"<p>{p}</p>" for p in PARAS) + "</div></body></html>")


def run_extract(*paths: Path) -> tuple[list[dict], subprocess.CompletedProcess]:
    proc = subprocess.run([sys.executable, "-m", "crawler.cli", "extract", "--quiet", *map(str, paths)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return lines, proc


@pytest.fixture(scope="module")
def bad_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("pages")
    (d / "a-good.html").write_text(ARTICLE, encoding="utf-8")
    (d / "b-broken.html").write_bytes(b"<html><body><div><p>unclosed <b>tags <table><tr><td>cell</div></p")
    (d / "c-empty.html").write_bytes(b"")
    (d / "d-binary.html").write_bytes(bytes(range(256)) * 64)
    with open(d / "e-huge.html", "wb") as fh:  # 50 MB, written in chunks
        fh.write(b"<html><body>")
        chunk = b"<p>" + b"word " * 2000 + b"</p>"
        for _ in range(50 * 1024 * 1024 // len(chunk) + 1):
            fh.write(chunk)
    (d / "f-zipped.html.gz").write_bytes(gzip.compress(ARTICLE.encode("utf-8")))
    (d / "g-corrupt.html.gz").write_bytes(gzip.compress(ARTICLE.encode("utf-8"))[:40] + b"\x00garbage" * 10)
    (d / "h-gzip-binary.html.gz").write_bytes(gzip.compress(bytes(range(256)) * 16))
    return d


@pytest.fixture(scope="module")
def results(bad_dir):
    lines, proc = run_extract(bad_dir)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return {line["id"]: line for line in lines}


def test_every_file_gets_one_line_with_its_id(results):
    assert sorted(results) == ["a-good", "b-broken", "c-empty", "d-binary", "e-huge", "f-zipped", "g-corrupt",
                               "h-gzip-binary"]


def test_good_and_gzipped_pages_are_extracted(results):
    for pid in ("a-good", "f-zipped"):
        body = results[pid]["articleBody"]
        assert all(p in body for p in PARAS)
        assert "Home" not in body


@pytest.mark.parametrize("pid, reason", [
    ("c-empty", "empty"),
    ("d-binary", "binary"),
    ("e-huge", "too_large"),
    ("g-corrupt", "gzip"),
    ("h-gzip-binary", "binary"),
])
def test_bad_files_are_invalid_with_a_reason(results, pid, reason):
    line = results[pid]
    assert line["valid"] is False
    assert any(reason in r for r in line["reasons"]), line["reasons"]


def test_broken_html_is_invalid_with_reasons(results):
    line = results["b-broken"]
    assert line["valid"] is False and line["reasons"]


def test_missing_file_does_not_stop_the_run(tmp_path):
    good = tmp_path / "ok.html"
    good.write_text(ARTICLE, encoding="utf-8")
    lines, proc = run_extract(tmp_path / "no-such.html", good)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert [line["id"] for line in lines] == ["no-such", "ok"]
    assert lines[0]["valid"] is False and "unreadable" in lines[0]["reasons"][0]
    assert "The city council" in lines[1]["articleBody"]


def test_no_page_files_is_an_error_exit(tmp_path):
    lines, proc = run_extract(tmp_path)
    assert lines == [] and proc.returncode == 1 and "no page files" in proc.stderr


def test_bad_template_library_is_a_clear_error_not_a_traceback(tmp_path):
    page = tmp_path / "a.html"
    page.write_text(ARTICLE, encoding="utf-8")
    for name, content in (("missing.json", None), ("not-a-library.json", '{"x": 1}'), ("broken.json", "{nope")):
        lib = tmp_path / name
        if content is not None:
            lib.write_text(content)
        proc = subprocess.run([sys.executable, "-m", "crawler.cli", "extract", "--templates", str(lib), str(page)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, (name, proc.stderr)
        assert "cannot load templates" in proc.stderr and "Traceback" not in proc.stderr
