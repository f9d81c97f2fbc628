#!/usr/bin/env python3
"""Reads a JUnit XML file with junitparser (a real JUnit reader, as CI tools use) and
prints what it understood as JSON: per suite its counts, per case its outcome and message.
Exit 2 when junitparser is missing, 1 when the file does not parse."""
import json
import sys

try:
    import junitparser
except ImportError:
    print("junitparser is not installed (pip install junitparser)", file=sys.stderr)
    sys.exit(2)


def outcome(case):
    for result in case.result:
        kind = type(result).__name__.lower()  # Failure, Skipped, Error
        return kind, result.message, result.type, result.text
    return "passed", None, None, None


def system_err(suite):
    element = suite._elem.find("system-err")  # junitparser has no accessor for a suite's
    return element.text if element is not None else None


def main(path):
    xml = junitparser.JUnitXml.fromfile(path)
    suites = xml if isinstance(xml, junitparser.JUnitXml) else [xml]
    out = {"tests": xml.tests, "failures": xml.failures, "skipped": xml.skipped, "errors": xml.errors, "suites": []}
    for suite in suites:
        cases = []
        for case in suite:
            kind, message, kind_type, text = outcome(case)
            cases.append({"classname": case.classname, "name": case.name, "outcome": kind, "message": message,
                          "type": kind_type, "text": text, "system_out": case.system_out})
        properties = {p.name: p.value for p in suite.properties()}
        out["suites"].append({"name": suite.name, "tests": suite.tests, "failures": suite.failures,
                              "skipped": suite.skipped, "errors": suite.errors, "properties": properties,
                              "system_err": system_err(suite), "cases": cases})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except Exception as error:  # a file junitparser cannot read: the test shows why
        print(f"junitparser could not read {sys.argv[1]}: {error!r}", file=sys.stderr)
        sys.exit(1)
