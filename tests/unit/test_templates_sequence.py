"""Tag sequences and repeat collapse."""
from __future__ import annotations

from extraction.dom import load_page
from extraction.templates.repeats import collapse, tandem_runs
from extraction.templates.tagseq import element_key, tag_sequence, token_code


def seq_of(html: str):
    return tag_sequence(load_page(html).body)


def test_formatting_and_void_tags_are_left_out_and_depth_counts_kept_ancestors():
    seq = seq_of("<html><body><div><p>a <b>bold</b> <a href='#'>link</a><br><img src='x'></p>"
                 "<span><p>inner</p></span></div></body></html>")
    assert seq.keys == ["body", "div", "p", "p"]
    assert seq.depths == [0, 1, 2, 2]  # the <p> inside <span> sits where the span was
    assert seq.parents == [-1, 0, 1, 1]
    assert seq.ends == [4, 4, 3, 4]


def test_class_names_with_digits_are_dropped_from_keys():
    page = load_page("<html><body><div class='post post-12345 entry'>x</div></body></html>")
    div = page.body[0]
    assert element_key(div) == "div.entry.post"
    assert element_key(div, with_class=False) == "div"


def test_codes_are_stable_numbers_of_key_and_depth():
    assert token_code("div.a", 3) == token_code("div.a", 3)
    assert token_code("div.a", 3) != token_code("div.a", 4)


def test_max_tokens_bounds_the_sequence():
    html = "<html><body>" + "<div><p>x</p></div>" * 500 + "</body></html>"
    assert len(tag_sequence(load_page(html).body, max_tokens=100)) == 100


def test_max_depth_stops_the_walk():
    seq = tag_sequence(load_page("<html><body><div><div><div><p>x</p></div></div></div></body></html>").body, max_depth=2)
    assert max(seq.depths) == 2


def test_tandem_runs_take_the_longest_cover_without_overlap():
    assert tandem_runs([1, 1, 1, 2]) == [(0, 1, 3)]
    assert tandem_runs([5, 1, 2, 1, 2, 1, 2, 7]) == [(1, 2, 3)]
    assert tandem_runs([1, 2, 3]) == []
    assert tandem_runs([]) == []


def test_lists_of_any_length_collapse_to_the_same_sequence():
    def page(n):
        items = "".join(f"<li><a href='#'>item {i}</a></li>" for i in range(n))
        return seq_of(f"<html><body><div class='nav'><ul>{items}</ul></div><p>text</p></body></html>")

    short, long = collapse(page(3)), collapse(page(30))
    assert short.codes == long.codes
    li = short.keys.index("li")
    assert long.repeats[li] == 30 and short.repeats[li] == 3


def test_two_element_records_and_nested_repeats_collapse():
    dl = "".join(f"<dt>t{i}</dt><dd><p>a</p><p>b</p><p>c</p></dd>" for i in range(4))
    seq = collapse(seq_of(f"<html><body><dl>{dl}</dl></body></html>"))
    assert seq.keys == ["body", "dl", "dt", "dd", "p"]
    assert seq.repeats == [1, 1, 4, 4, 3]


def test_repeats_do_not_span_subtrees():
    # two <div><p/></div> under different parents are not one run
    seq = collapse(seq_of("<html><body><section><div><p>a</p></div></section><aside><div><p>b</p></div></aside></body></html>"))
    assert seq.repeats == [1] * len(seq)


def test_collapsed_sequence_keeps_elements_and_tree_shape():
    seq = collapse(seq_of("<html><body><ul><li>a</li><li>b</li></ul><p>c</p></body></html>"))
    assert seq.keys == ["body", "ul", "li", "p"]
    assert seq.parents == [-1, 0, 1, 0]
    assert seq.ends == [4, 3, 3, 4]
    assert seq.elements[2].text == "a"
