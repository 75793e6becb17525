"""The check of .ci/run that the built site loads nothing from the network."""

import subprocess
import sys
from pathlib import Path

CHECK = Path(__file__).resolve().parents[1] / ".ci" / "check_site_offline.py"


def _check(site):
    return subprocess.run([sys.executable, str(CHECK), str(site)], capture_output=True,
                          text=True, timeout=60)


def _site(tmp_path, head, css=""):
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "theme.css").write_text(css)
    (tmp_path / "index.html").write_text(
        f"<html><head>{head}</head><body><a href='https://example.org'>a link</a>"
        "<img src='_images/figure.png'></body></html>")
    return tmp_path


def test_a_site_of_local_files_passes(tmp_path):
    site = _site(tmp_path, "<script defer src='_static/mathjax/tex-svg.js'></script>"
                           "<link rel='stylesheet' href='_static/theme.css'>",
                 css="@font-face { src: url('../fonts/a.woff2'); }\n"
                     ".x { background: url(data:image/png;base64,AA) }")
    done = _check(site)
    assert done.returncode == 0, done.stderr


def test_remote_scripts_style_sheets_and_fonts_are_named(tmp_path):
    site = _site(tmp_path, "<script src='https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js'>"
                           "</script><link rel='stylesheet' href='//fonts.example.com/a.css'>",
                 css="@import 'https://fonts.example.com/b.css';")
    done = _check(site)
    assert done.returncode == 1
    assert "index.html: loads <script src='https://cdn.jsdelivr.net" in done.stderr
    assert "//fonts.example.com/a.css" in done.stderr
    assert "_static/theme.css: loads url(https://fonts.example.com/b.css)" in done.stderr


def test_a_folder_without_a_built_site_is_refused(tmp_path):
    done = _check(tmp_path)
    assert done.returncode == 2 and "index.html" in done.stderr
