"""Fail when the built documentation site loads anything from the network.

Usage: python .ci/check_site_offline.py docs/_build/html

Every page is read for what a browser fetches on its own when the page opens: the
``src`` of scripts, images, frames, audio, video and sources, the ``href`` of ``<link>``
elements (style sheets, preloads, icons) and ``url(...)`` in inline styles; every style
sheet under ``_static`` for ``url(...)`` and ``@import``. A reference that names a scheme
(``https:``) or starts with ``//`` is remote. Links that a reader follows (``<a href>``)
are not fetched and are allowed.
"""

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

FETCHED = {"script": "src", "img": "src", "iframe": "src", "audio": "src", "video": "src",
           "source": "src", "embed": "src", "link": "href"}
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""")
REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)
LOCAL_SCHEMES = ("data:", "blob:", "about:")


def _remote(reference):
    reference = reference.strip()
    return bool(REMOTE.match(reference)) and not reference.lower().startswith(LOCAL_SCHEMES)


class _Fetches(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = FETCHED.get(tag)
        if name and attrs.get(name) and _remote(attrs[name]):
            self.found.append(f"<{tag} {name}={attrs[name]!r}>")
        for reference in CSS_URL.findall(attrs.get("style") or ""):
            if _remote(reference):
                self.found.append(f"style url({reference})")


def remote_fetches(site):
    """``(file, what)`` for every remote fetch of the site under ``site``."""
    site = Path(site)
    found = []
    for page in sorted(site.rglob("*.html")):
        parser = _Fetches()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        found += [(page.relative_to(site), what) for what in parser.found]
    for sheet in sorted(site.rglob("*.css")):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        found += [(sheet.relative_to(site), f"url({reference})")
                  for reference in CSS_URL.findall(text) if _remote(reference)]
    return found


def main(argv):
    if len(argv) != 1 or not Path(argv[0], "index.html").is_file():
        print("usage: python .ci/check_site_offline.py BUILT_HTML_FOLDER (with index.html)",
              file=sys.stderr)
        return 2
    found = remote_fetches(argv[0])
    for where, what in found:
        print(f"{where}: loads {what} from the network", file=sys.stderr)
    if found:
        print(f"{len(found)} remote fetches: the site must load nothing from the network",
              file=sys.stderr)
        return 1
    print(f"{argv[0]}: no page or style sheet loads anything from the network")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
