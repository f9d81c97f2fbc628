#!/usr/bin/env python3
"""Every relative link in the README and the docs pages names a file that exists.

    readme_links_test.py [SOURCE_DIR]     (default: the checkout this file is in)

Checks README.md, docs/*.md and the folder READMEs the README sends readers to
(workloads/README.md, bench/README.md, reports/baselines/README.md): each Markdown link
`[text](target)` or `[text]: target` whose target is a relative path (docs/..., ../README.md,
workloads/README.md, scripts/..., a folder) must name a file or folder that exists, relative
to the page that links it. A `#anchor` is optional; when given on a Markdown page (or alone,
for the same page) it must be one of that page's headings, as GitHub spells anchors.
Links to http(s), mailto and the like are not checked. Code blocks are skipped.

Exit 0 when every link resolves, 1 listing each broken one (page:line: target: why), 2 on
bad usage.
"""
import pathlib
import re
import sys
import urllib.parse

PAGES = ["README.md", "docs/*.md", "workloads/README.md", "bench/README.md", "reports/baselines/README.md"]

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) outside fenced code blocks, inline code spans blanked."""
    fenced = None
    for number, line in enumerate(text.split("\n"), 1):
        fence = FENCE.match(line)
        if fence:
            if fenced is None:
                fenced = fence.group(1)
            elif fence.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            # `[x](y)` inside backticks is code, not a link: blank code spans first
            yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", lambda m: " " * len(m.group(0)), line)


def github_anchor(heading):
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        seen, anchors = {}, set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            heading = HEADING.match(line)
            if not heading:
                continue
            anchor = github_anchor(heading.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            anchors.add(anchor if count == 0 else f"{anchor}-{count}")
        cache[path] = anchors
    return cache[path]


def links_of(text):
    for number, line in prose_lines(text):
        for match in INLINE.finditer(line):
            yield number, match.group(1)
        reference = REFERENCE.match(line)
        if reference:
            yield number, reference.group(1)


def check_page(root, page):
    problems = []
    for number, target in links_of(page.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # http(s), mailto: not a file of this checkout
        path_part, _, anchor = target.partition("#")
        path_part = urllib.parse.unquote(path_part)
        where = f"{page.relative_to(root)}:{number}: {target}"
        if path_part.startswith("/"):
            problems.append(f"{where}: an absolute path; link relative to the page")
            continue
        linked = (page.parent / path_part).resolve() if path_part else page.resolve()
        if not linked.exists():
            problems.append(f"{where}: no such file or folder ({linked})")
            continue
        try:
            linked.relative_to(root.resolve())
        except ValueError:
            problems.append(f"{where}: outside the checkout")
            continue
        if anchor and linked.is_file() and linked.suffix == ".md":
            if urllib.parse.unquote(anchor).lower() not in anchors_of(linked):
                problems.append(f"{where}: no heading with anchor #{anchor} in {linked.relative_to(root.resolve())}")
    return problems


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1] if len(argv) == 2 else pathlib.Path(__file__).resolve().parents[2])
    if not (root / "README.md").is_file():
        print(f"readme_links_test: {root} has no README.md", file=sys.stderr)
        return 2
    pages = sorted({page for pattern in PAGES for page in root.glob(pattern) if page.is_file()})
    problems, links = [], 0
    for page in pages:
        links += sum(1 for _ in links_of(page.read_text(encoding="utf-8")))
        problems += check_page(root, page)
    for problem in problems:
        print(problem)
    print(f"readme_links_test: {len(pages)} pages, {links} links, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
