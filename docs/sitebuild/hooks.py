"""MkDocs hooks of the site (``hooks:`` in the generated ``mkdocs.yml``).

The home page (``index.md``) is outside the navigation; MkDocs then has no
home page and the site name in the top bar would link nowhere, so
:func:`on_nav` makes ``index.md`` the home page.
"""

from __future__ import annotations


def on_nav(nav, config, files):
    home = files.get_file_from_path("index.md")
    if home is not None and home.page is not None:
        nav.homepage = home.page
    return nav
