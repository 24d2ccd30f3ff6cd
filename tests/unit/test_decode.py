"""Charset decoding: declared, mislabelled and undeclared Chinese pages must all come out right."""
import codecs

import pytest

from extraction.decode import decode_html, normalize_charset
from extraction.dom import load_page

SIMPLIFIED = ("<html><head><title>经济新闻</title></head><body><p>这是一个关于中国经济发展的新闻报道，"
              "记者从国家统计局获悉，今年前三季度国内生产总值同比增长百分之六。</p></body></html>")
TRADITIONAL = ("<html><head><title>經濟新聞</title></head><body><p>這是一篇關於臺灣經濟發展的新聞報導，"
               "記者從主計處獲悉，今年前三季國內生產毛額較去年同期成長。</p></body></html>")


def with_meta(html: str, charset: str) -> str:
    return html.replace("<head>", f'<head><meta http-equiv="Content-Type" content="text/html; charset={charset}">')


def test_gbk_declared_in_meta():
    d = decode_html(with_meta(SIMPLIFIED, "gbk").encode("gbk"))
    assert "国家统计局" in d.text and d.encoding == "gb18030" and d.how == "meta"


def test_gb2312_label_with_characters_outside_gb2312():
    # 镕 and 堃 are GBK-only: a strict gb2312 decode would fail, the superset must be used.
    page = with_meta(SIMPLIFIED.replace("经济发展", "朱镕基与王堃谈经济发展"), "gb2312").encode("gbk")
    d = decode_html(page)
    assert "朱镕基与王堃" in d.text


def test_gb18030_four_byte_characters():
    page = with_meta(SIMPLIFIED.replace("增长", "增长𠀀€"), "gb18030").encode("gb18030")
    assert "增长𠀀€" in decode_html(page).text


def test_big5_declared_and_undeclared():
    assert "主計處" in decode_html(with_meta(TRADITIONAL, "big5").encode("big5")).text
    d = decode_html(TRADITIONAL.encode("big5"))
    assert "主計處" in d.text and d.how == "detected"


def test_undeclared_gbk_page():
    d = decode_html(SIMPLIFIED.encode("gbk"))
    assert "国家统计局" in d.text


@pytest.mark.parametrize("text, codec", [("<p>中文新闻报道</p>", "gbk"), ("<p>中文新聞報導</p>", "big5")])
def test_short_undeclared_chinese_is_not_confused(text, codec):
    # Statistical detection alone guesses on a few bytes; everyday-character share settles it.
    assert text in decode_html(text.encode(codec)).text


def test_utf8_page_with_wrong_gb2312_meta():
    d = decode_html(with_meta(SIMPLIFIED, "gb2312").encode("utf-8"))
    assert "国家统计局" in d.text and d.encoding == "utf-8"


def test_gbk_page_with_wrong_utf8_meta():
    d = decode_html(with_meta(SIMPLIFIED, "utf-8").encode("gbk"))
    assert "国家统计局" in d.text


def test_utf8_page_labelled_latin1_is_utf8():
    page = with_meta("<html><head></head><body><p>Café déjà vu — naïve</p></body></html>", "iso-8859-1")
    assert "Café déjà vu — naïve" in decode_html(page.encode("utf-8")).text


def test_latin1_page_labelled_latin1():
    page = with_meta("<html><head></head><body><p>Café olé</p></body></html>", "iso-8859-1")
    d = decode_html(page.encode("latin-1"))
    assert "Café olé" in d.text and d.how == "meta"


@pytest.mark.parametrize("bom, codec", [(codecs.BOM_UTF8, "utf-8"), (b"", "utf-16"), (b"", "utf-32")])
def test_bom_wins_over_meta(bom, codec):
    data = bom + with_meta(SIMPLIFIED, "gbk").encode(codec)  # Python's utf-16/32 codecs write a BOM
    d = decode_html(data)
    assert "国家统计局" in d.text and d.how == "bom"


def test_http_header_charset_is_used():
    d = decode_html(SIMPLIFIED.encode("gbk"), "text/html; charset=GBK")
    assert "国家统计局" in d.text and d.how == "header"


def test_header_charset_checked_before_trusted():
    # The server says big5, the bytes are GBK (and not valid big5): the meta/detection path wins.
    d = decode_html(with_meta(SIMPLIFIED, "gbk").encode("gbk"), "text/html; charset=big5")
    assert "国家统计局" in d.text


def test_utf16_label_without_bom_is_ignored():
    d = decode_html(with_meta("<html><head></head><body><p>plain text</p></body></html>", "utf-16").encode("ascii"))
    assert "plain text" in d.text


def test_a_few_bad_bytes_keep_the_declared_charset():
    data = bytearray(with_meta(SIMPLIFIED, "gbk").encode("gbk"))
    data[-20] = 0xFF  # one corrupt byte near the end
    d = decode_html(bytes(data))
    assert d.encoding == "gb18030" and "国家统计局" in d.text


def test_truncated_utf8_page():
    data = ("<html><body><p>" + "这是中文新闻报道。" * 30).encode("utf-8")[:-1]
    d = decode_html(data)
    assert d.encoding == "utf-8" and "这是中文新闻报道。" in d.text


def test_normalize_charset_widens_legacy_labels():
    assert normalize_charset("GB2312") == "gb18030"
    assert normalize_charset('"gbk"') == "gb18030"
    assert normalize_charset("big5") == "big5hkscs"
    assert normalize_charset("no-such-charset") is None


def test_gbk_page_through_load_page():
    page = load_page(with_meta(SIMPLIFIED, "gb2312").encode("gbk"))
    assert page.title == "经济新闻"
    assert "国家统计局" in page.root.text_content()
