"""check_sarif.py LOG.sarif SCHEMA.json [--relative | --absolute]

Validates a SARIF log against the SARIF 2.1.0 JSON schema (draft 2020-12,
jsonschema.Draft202012Validator) and checks what GitHub code scanning's
upload needs: version "2.1.0", $schema, runs[].tool.driver.name and rules,
each result with ruleId (a rule of the driver), message.text, a location
whose artifactLocation.uri is relative (no leading '/', no file:) with
uriBaseId when --relative, region.startLine >= 1, partialFingerprints.
--absolute: no source root, so file URIs must be absolute file:///.
Prints each problem; exit 0 when there is none, 1 otherwise.
"""
import json
import sys

import jsonschema


def main():
    path, schema_path = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    problems = []
    with open(schema_path) as f:
        schema = json.load(f)
    with open(path) as f:
        log = json.load(f)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for e in validator.iter_errors(log):
        problems.append("schema: %s at %s" % (e.message, "/".join(map(str, e.absolute_path))))

    if log.get("version") != "2.1.0":
        problems.append("version is not 2.1.0")
    if "$schema" not in log:
        problems.append("no $schema")
    for run in log.get("runs", []):
        driver = run.get("tool", {}).get("driver", {})
        if not driver.get("name"):
            problems.append("no tool.driver.name")
        rule_ids = [r.get("id") for r in driver.get("rules", [])]
        if not rule_ids:
            problems.append("no rules")
        bases = run.get("originalUriBaseIds", {})
        for base, loc in bases.items():
            if not loc.get("uri", "").endswith("/"):
                problems.append("originalUriBaseIds.%s.uri does not end with '/'" % base)
        for i, r in enumerate(run.get("results", [])):
            where = "results[%d]" % i
            if r.get("ruleId") not in rule_ids:
                problems.append("%s: ruleId %r is not a rule" % (where, r.get("ruleId")))
            if not r.get("message", {}).get("text"):
                problems.append("%s: no message.text" % where)
            if not r.get("partialFingerprints"):
                problems.append("%s: no partialFingerprints" % where)
            locs = r.get("locations", [])
            if not locs:
                problems.append("%s: no locations" % where)
            for loc in locs + r.get("relatedLocations", []):
                phys = loc.get("physicalLocation", {})
                art = phys.get("artifactLocation", {})
                uri = art.get("uri", "")
                region = phys.get("region")
                if region is not None and region.get("startLine", 0) < 1:
                    problems.append("%s: startLine < 1" % where)
                if mode == "--relative" and art.get("uriBaseId") is not None:
                    if uri.startswith("/") or uri.startswith("file:") or "://" in uri:
                        problems.append("%s: uri %r is not relative" % (where, uri))
                    if art["uriBaseId"] not in bases:
                        problems.append("%s: uriBaseId %r not in originalUriBaseIds" % (where, art["uriBaseId"]))
                elif mode == "--relative" and region is not None:
                    problems.append("%s: source uri %r has no uriBaseId" % (where, uri))
                if mode == "--absolute" and region is not None and not uri.startswith("file:///"):
                    problems.append("%s: uri %r is not an absolute file URI" % (where, uri))
                if uri.startswith("/"):
                    problems.append("%s: uri %r is a bare absolute path" % (where, uri))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
