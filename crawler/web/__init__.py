"""The web console (`mcrawl serve`): search, channel management and crawl status pages.

`create_app(settings)` builds the Flask app; `serve_in_thread(settings, host, port)` runs it in
a background thread and returns its URL (used by `mcrawl demo`).
"""
