#!/usr/bin/env python3
"""Every page `gpubench --help` (and each subcommand's --help) sends a reader to exists.

    help_pages_test.py GPUBENCH_EXE SOURCE_DIR

Flags whose behaviour needs more than a line name their page (docs/measurement.md, ...).
Exit 0 when each named page exists and the top-level help names at least one; 1 listing
the missing ones.
"""
import pathlib
import re
import subprocess
import sys

PAGE = re.compile(r"\b((?:docs|workloads|bench|reports)/[\w./-]*?\.md)\b")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, source = sys.argv[1], pathlib.Path(sys.argv[2])
    named, missing = set(), []
    for command in ([], ["compare"], ["report"], ["tune"]):
        text = subprocess.run([exe, *command, "--help"], capture_output=True, text=True, check=True).stdout
        # CLI11 wraps long help strings: rejoin a path broken at a line end.
        text = re.sub(r"\n\s+", " ", text)
        for page in PAGE.findall(text):
            named.add(page)
            if not (source / page).is_file():
                missing.append(f"gpubench {' '.join(command)} --help names {page}, which does not exist")
    if not named:
        missing.append("gpubench --help names no page at all")
    for line in missing:
        print(line)
    print(f"{len(named)} pages named: {', '.join(sorted(named))}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
