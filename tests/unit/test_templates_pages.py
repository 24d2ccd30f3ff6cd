"""Small synthetic sites for the template tests: two page layouts ("news" and "blog") with varying
articles, sidebars and list lengths. Written here, never copied from the bench."""
from __future__ import annotations

import random

from extraction.dom import load_page

WORDS = ("the city council said that it would consider a new plan for the river park and the "
         "people who live near it are worried about noise but the mayor is sure this is a good "
         "idea for all of us because we need more green space in the town").split()


def paragraph(rng: random.Random, words: int = 40) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def news_page(seed: int, paragraphs: int | None = None, related: int | None = None) -> tuple[str, dict]:
    rng = random.Random(seed)
    title = f"Story number {seed} about the river park plan"
    paras = [paragraph(rng) for _ in range(paragraphs or rng.randint(3, 8))]
    nav = "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(6))
    side = "".join(f"<li><a href='/r{seed}-{i}'>Related story {seed}-{i}</a></li>" for i in range(related or rng.randint(3, 7)))
    html = f"""<html><head><title>{title} - Town News</title></head><body>
<div class="header"><div class="logo">Town News</div><ul class="nav">{nav}</ul></div>
<div class="main"><div class="story"><h1 class="headline">{title}</h1>
<div class="byline">By Reporter {seed % 3}</div>
<div class="story-body">{''.join(f'<p>{p}</p>' for p in paras)}
<div class="share">Share this story on Facebook and Twitter</div></div></div>
<div class="sidebar"><h3>Most read</h3><ul class="most-read">{side}</ul></div></div>
<div class="footer"><p>Copyright Town News, all rights reserved.</p><p>Contact us</p></div>
</body></html>"""
    return html, {"headline": title, "paragraphs": paras}


def blog_page(seed: int) -> tuple[str, dict]:
    rng = random.Random(1000 + seed)
    title = f"Weekend notes {seed} from the garden"
    paras = [paragraph(rng) for _ in range(rng.randint(3, 6))]
    comments = "".join(f"<tr><td class='who'>guest{i}</td><td class='said'>{paragraph(rng, 8)}</td></tr>"
                       for i in range(rng.randint(1, 4)))
    html = f"""<html><head><title>{title}</title></head><body><table class="layout"><tr>
<td class="left"><span class="brand">My Garden Blog</span><br><a href='/'>home</a> <a href='/about'>about</a></td>
<td class="content"><h2 class="post-title">{title}</h2><section class="entry">{''.join(f'<p>{p}</p>' for p in paras)}</section>
<table class="comments">{comments}</table></td></tr></table></body></html>"""
    return html, {"headline": title, "paragraphs": paras}


def parsed(html: str, url: str | None = None):
    return load_page(html, url)


def test_news_pages_differ_in_content_but_share_layout():
    a, meta_a = news_page(1)
    b, meta_b = news_page(2)
    assert meta_a["paragraphs"] != meta_b["paragraphs"]
    assert 'class="story-body"' in a and 'class="story-body"' in b
