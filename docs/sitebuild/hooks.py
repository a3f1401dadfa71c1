"""MkDocs hooks of the site (``hooks:`` in the generated ``mkdocs.yml``).

* The home page (``index.md``) is outside the navigation; MkDocs then has no
  home page and the site name in the top bar would link nowhere, so
  :func:`on_nav` makes ``index.md`` the home page.
* The theme's search runs in a Web Worker, which browsers refuse to start
  for a page opened from the disk (``file://``).  :func:`on_post_build`
  makes the search run in the page there instead, with the index loaded as a
  script (``search/search_index.js``) rather than fetched.  Served over HTTP,
  the Worker is used as before.  Either way every file comes from the site.
"""

from __future__ import annotations

import json
from pathlib import Path


def on_nav(nav, config, files):
    home = files.get_file_from_path("index.md")
    if home is not None and home.page is not None:
        nav.homepage = home.page
    return nav


#: the theme's start of the search Worker, and what replaces it
WORKER_START = """} else {
  // Wrap search in a web worker
  var searchWorker = new Worker(joinUrl(base_url, "search/worker.js"));"""
IN_PAGE_SEARCH = """} else if (window.location.protocol === "file:") {
  // A page opened from the disk may not start a Worker: search in the page,
  // with worker.js and the index loaded as scripts.
  var searchWorker = {postMessage: function (msg) {
    if (msg.query !== undefined) {
      onWorkerMessage({data: {results: search(msg.query)}});
    }
  }};
  (function load(urls) {
    if (urls.length === 0) {
      data = fecontactSearchIndex;
      onScriptsLoaded();
      onWorkerMessage({data: {config: data.config}});
      onWorkerMessage({data: {allowSearch: true}});
      return;
    }
    var script = document.createElement("script");
    script.src = joinUrl(base_url, urls[0]);
    script.onload = function () { load(urls.slice(1)); };
    document.head.appendChild(script);
  })(["search/search_index.js", "search/lunr.js", "search/worker.js"]);
""" + WORKER_START


def on_post_build(config):
    search = Path(config["site_dir"]) / "search"
    main, index = search / "main.js", search / "search_index.json"
    if not (main.is_file() and index.is_file()):
        return
    text = main.read_text()
    if WORKER_START not in text:
        raise RuntimeError("the theme's search/main.js changed: update sitebuild/hooks.py")
    main.write_text(text.replace(WORKER_START, IN_PAGE_SEARCH))
    data = json.loads(index.read_text())
    (search / "search_index.js").write_text(
        "var fecontactSearchIndex = " + json.dumps(data) + ";\n")
