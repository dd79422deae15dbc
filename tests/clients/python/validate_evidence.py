"""Validates every line of an evidence log against the JSON schema that
docs/protocol.md documents (the ```json block after `<!-- evidence-schema -->`).

usage: validate_evidence.py PROTOCOL_MD LOG...
Prints one line per invalid record and exits 1 if there is any.
"""
import json
import sys

import jsonschema


def schema(protocol_md):
    text = open(protocol_md, encoding="utf-8").read()
    start = text.index("<!-- evidence-schema -->")
    block = text.index("```json", start) + len("```json")
    end = text.index("```", block)
    return json.loads(text[block:end])


def main():
    validator = jsonschema.Draft202012Validator(schema(sys.argv[1]))
    bad = 0
    count = 0
    for log in sys.argv[2:]:
        for number, line in enumerate(open(log, encoding="utf-8"), 1):
            count += 1
            for error in validator.iter_errors(json.loads(line)):
                bad += 1
                print(f"{log}:{number}: {error.json_path}: {error.message}")
    print(f"{count} record(s), {bad} error(s)")
    sys.exit(1 if bad or not count else 0)


main()
