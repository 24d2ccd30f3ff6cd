"""Small hand-written forum pages for the PEAN/MiBAT/engine tests (no bench pages)."""
from __future__ import annotations

NAMES = ["alice", "bob_42", "carla", "dieter", "erik"]
TEXTS = [
    "I have the same problem with my router since the last firmware update, any ideas?",
    "Try resetting it to factory settings first, that fixed it for me last week.",
    "Thanks, that worked. The connection is stable again after the reset.",
    "Good to hear. Remember to back up your configuration before the next update.",
    "Marking this as solved then, thanks everybody for the quick help here.",
]


def post_block(i: int, name: str, text: str, when: str, extra: str = "", cls: str = "post") -> str:
    return (f'<div class="{cls}" id="p{i}"><div class="head"><a class="username" href="/member/{name}">{name}</a>'
            f' <span class="when">{when}</span></div><div class="body">{extra}<p>{text}</p></div>'
            f'<div class="signature">-- sent from my phone, {name}</div></div>')


def thread_page(n: int = 5, sidebar: str = "", first: str | None = None, quotes: bool = False) -> str:
    posts = []
    for i in range(n):
        extra = ""
        if quotes and i > 0:
            extra = f'<blockquote class="quote"><cite>{NAMES[i - 1]} wrote:</cite>{TEXTS[i - 1]}</blockquote>'
        posts.append(post_block(i + 1, NAMES[i], TEXTS[i], f"2021-03-0{i + 1} 1{i}:2{i}", extra))
    if first is not None:
        posts[0] = first
    return (f'<html><head><title>Router problem - Example Board</title></head><body>'
            f'<div id="top"><a href="/">Board</a> <a href="/forum/3">Networking</a></div>'
            f'<h1>Router problem</h1><div class="main"><div class="thread">{"".join(posts)}</div>{sidebar}</div>'
            f'<div id="foot">Powered by nothing</div></body></html>')
