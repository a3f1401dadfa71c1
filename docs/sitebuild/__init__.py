"""The parts of the documentation site's builder (``docs/build_site.py``).

* :mod:`sitebuild.structure`: the navigation (eight top-level sections) and
  the pages it discovers (friction laws, examples, decision records);
* :mod:`sitebuild.api_pages`: the API reference, one page per concept group
  of the public names;
* :mod:`sitebuild.markup`: the Markdown preprocessor that turns the reST of
  numpydoc docstrings (math, cross-reference roles) into site Markdown;
* :mod:`sitebuild.hooks`: MkDocs hooks (the home page outside the nav).
"""
