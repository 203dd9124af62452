#!/usr/bin/python3
"""Checks the published JSON Schema of the policy file format against the project's fixtures.

Usage: check_schema.py SCHEMA SPEC_CONFORMANCE_DIR TESTS_DATA_DIR [--vendor-maps SCHEMA DIR]

  SCHEMA                 policies/schema/rebound-policy.schema.json
  SPEC_CONFORMANCE_DIR   the spec's conformance/ directory (valid *.yaml, invalid/*.yaml)
  TESTS_DATA_DIR         tests/data: valid/*.yaml|yml|json must pass, schema-invalid/*.yaml must fail

Checks, in order:
  1. the schema is a valid draft-07 schema (Draft7Validator.check_schema);
  2. every definition and every property of the schema has a description (a property that is
     only a $ref counts when the referenced definition has one);
  3. every valid fixture validates: the spec's conformance/*.yaml and tests/data/valid/*;
     together the files of tests/data/valid/ use every policy field, backoff type, jitter form
     and matcher form (so a schema branch cannot go untested);
  4. the spec's invalid/*.yaml whose mistake the schema can express fail validation, and those
     it cannot express (listed below with the reason) pass it: a new invalid vector must be
     classified here;
  6. with --vendor-maps: the vendor map schema is a valid draft-07 schema with a description
     everywhere, every shipped policies/vendors/*.yaml validates, and the rule mistakes listed in
     VENDOR_MAP_INVALID_RULES fail;
  5. every tests/data/schema-invalid/*.yaml fails validation. Each starts with a comment saying
     what is wrong, and a line `# at: PATH` (dotted, list items as numbers; `-` for the top)
     naming where the schema must report it.

YAML is read as YAML 1.2 (core schema), as yaml-cpp and yaml-language-server read it, not as
PyYAML's default YAML 1.1 (where `08` is not a number and `yes` is a boolean); duplicate keys
make a fixture unreadable. Run with Debian's /usr/bin/python3 and the packages python3-jsonschema
and python3-yaml. Exit code 0 when every check passes, 1 otherwise, 2 on a usage error.
"""

import json
import re
import sys
from pathlib import Path

try:
    import jsonschema
    import yaml
except ImportError as missing:  # pragma: no cover - depends on the machine
    sys.stderr.write(f"check_schema.py: {missing}; install python3-jsonschema and python3-yaml "
                     "(apt-get install -y python3-jsonschema python3-yaml) and run with "
                     "/usr/bin/python3\n")
    sys.exit(2)

# The spec's invalid vectors whose mistake a JSON Schema can express: they must fail.
SCHEMA_EXPRESSIBLE = {
    "attempts-and-retries.yaml": "max_attempts and max_retries together",
    "bad-duration.yaml": "a duration that is not a number with a unit",
    "multiplier-too-small.yaml": "an exponential multiplier of 1.0",
    "unknown-key.yaml": "an unknown policy key",
    "wrong-version.yaml": "rebound: 2",
}
# The ones it cannot express: they must pass the schema (rebound itself reports them).
NOT_EXPRESSIBLE = {
    "duplicate-key.yaml": "YAML loaders keep one of two equal keys before a schema sees the data",
    "extends-cycle.yaml": "a cycle spans several policies",
    "max-below-initial.yaml": "a comparison of two values",
    "unknown-policy.yaml": "a reference to another part of the file",
}

VALID_SUFFIXES = (".yaml", ".yml", ".json")


class Failures:
    def __init__(self):
        self.messages = []

    def add(self, message):
        self.messages.append(message)
        sys.stderr.write("FAIL: " + message + "\n")


# ---------------------------------------------------------------------------------------------
# Reading fixtures.

class DuplicateKeyError(Exception):
    pass


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's booleans, integers and floats, and an error on
    duplicate keys."""


def _core_schema_resolvers():
    resolvers = {}
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept = [(tag, regexp) for tag, regexp in entries
                if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                               "tag:yaml.org,2002:float")]
        resolvers[first] = kept
    return resolvers


Yaml12Loader.yaml_implicit_resolvers = _core_schema_resolvers()
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+.0123456789"))


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # 08 and 01000 are decimal in YAML 1.2


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue  # the constructor below reports unhashable keys
        if key in seen:
            raise DuplicateKeyError(
                f"duplicate key {key!r} at line {key_node.start_mark.line + 1} "
                f"(first at line {seen[key]})")
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=True)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


def load_fixture(path):
    """The data of a fixture; raises ValueError with a readable message when it cannot be read."""
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".json":
            return json.loads(text)
        documents = list(yaml.load_all(text, Loader=Yaml12Loader))
    except (yaml.YAMLError, DuplicateKeyError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: cannot be read: {error}") from error
    if len(documents) != 1:
        raise ValueError(f"{path}: expected one YAML document, found {len(documents)}")
    return documents[0]


# ---------------------------------------------------------------------------------------------
# Schema checks.

def resolve(schema, ref):
    if not ref.startswith("#/"):
        raise ValueError(f"only local references are expected, got {ref}")
    node = schema
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def has_description(schema, subschema):
    if not isinstance(subschema, dict):
        return False
    if isinstance(subschema.get("description"), str) and subschema["description"].strip():
        return True
    if "$ref" in subschema:
        return has_description(schema, resolve(schema, subschema["$ref"]))
    return False


def missing_descriptions(schema):
    """Pointers of definitions and properties that have no description."""
    missing = []
    if not has_description(schema, schema):
        missing.append("#")
    for name, definition in schema.get("definitions", {}).items():
        if not has_description(schema, definition):
            missing.append(f"#/definitions/{name}")

    def walk(node, pointer):
        if isinstance(node, dict):
            for name, subschema in node.get("properties", {}).items():
                if not has_description(schema, subschema):
                    missing.append(f"{pointer}/properties/{name}")
            for key, value in node.items():
                if key in ("enum", "const", "default", "examples"):
                    continue  # values, not schemas
                walk(value, f"{pointer}/{key}")
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{pointer}/{index}")

    walk(schema, "#")
    return missing


def all_errors(validator, data):
    """Every error, with the errors inside oneOf/anyOf branches flattened."""
    pending = list(validator.iter_errors(data))
    found = []
    while pending:
        error = pending.pop()
        found.append(error)
        pending.extend(error.context or [])
    return found


def describe_errors(validator, data, limit=3):
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    lines = []
    for error in errors[:limit]:
        best = jsonschema.exceptions.best_match([error])
        where = "/".join(str(p) for p in best.absolute_path) or "(top level)"
        lines.append(f"    at {where}: {best.message}")
    if len(errors) > limit:
        lines.append(f"    ... and {len(errors) - limit} more")
    return "\n".join(lines)


def path_of(text):
    if text.strip() in ("", "-"):
        return []
    return [int(part) if part.isdigit() else part for part in text.strip().split(".")]


def header_of(path):
    """The leading comment lines of a fixture (without '#')."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    return lines


# ---------------------------------------------------------------------------------------------
# Coverage of tests/data/valid: every field and form appears in at least one file.

POLICY_FIELDS = ["extends", "max_attempts", "max_retries", "backoff", "jitter", "deadline",
                 "min_attempt_budget", "attempt_timeout", "retry_on", "never_retry_on",
                 "retry_if", "on_exhausted", "budget", "routes"]


def forms_used(documents):
    used = set()

    def duration_form(value):
        return "integer" if isinstance(value, int) else "text"

    def note_policy(fields):
        if not isinstance(fields, dict):
            used.add("policy:empty")
            return
        for key, value in fields.items():
            used.add("field:" + key)
            if key == "backoff":
                used.add("backoff:" + (value if isinstance(value, str) else f"{value.get('type')}"))
            elif key == "jitter":
                if isinstance(value, dict):
                    used.add("jitter:mapping:" + str(value.get("type")))
                elif value in ("none", "full", "equal", "decorrelated"):
                    used.add("jitter:" + value)
                else:
                    used.add("jitter:duration:" + duration_form(value))
            elif key in ("retry_on", "never_retry_on"):
                for matcher in value:
                    if isinstance(matcher, str):
                        used.add("matcher:category" if matcher != "transient"
                                 else "matcher:transient")
                    else:
                        kind = next(k for k in matcher if k != "vendor")
                        form = type(matcher[kind]).__name__
                        used.add(f"matcher:{kind}:{form}")
                        if kind == "native":
                            used.add("vendor:" + matcher["vendor"])
            elif key in ("deadline", "attempt_timeout", "min_attempt_budget"):
                used.add("duration:" + duration_form(value))

    for document in documents:
        for key in document:
            used.add("top:" + key)
        if isinstance(document.get("defaults"), dict):
            note_policy(document["defaults"])
        for fields in (document.get("policies") or {}).values():
            note_policy(fields)
        for binding in (document.get("handlers") or {}).values():
            if isinstance(binding, dict):
                used.add("handler:mapping")
                for key in ("idempotent", "calls", "redeliveries"):
                    if key in binding:
                        used.add("handler:mapping:" + key)
            else:
                used.add("handler:name")
        for key in document.get("handlers") or {}:
            used.add("handler-key:prefix" if key.endswith(".*") else "handler-key:exact")
    return used


REQUIRED_FORMS = (
    ["top:" + k for k in ("rebound", "service", "defaults", "policies", "handlers", "default")]
    + ["field:" + f for f in POLICY_FIELDS]
    + ["policy:empty"]
    + ["backoff:" + t for t in ("fixed", "linear", "exponential", "none")]
    + ["jitter:" + w for w in ("none", "full", "equal", "decorrelated")]
    + ["jitter:mapping:" + t for t in ("none", "full", "equal", "decorrelated", "bounded",
                                       "proportional")]
    + ["jitter:duration:text", "jitter:duration:integer", "duration:text", "duration:integer"]
    + ["matcher:category", "matcher:transient", "matcher:sqlstate:str", "matcher:sqlstate:int",
       "matcher:sqlstate_class:str", "matcher:sqlstate_class:int", "matcher:native:int",
       "matcher:error:str", "matcher:http:int", "matcher:http:str", "matcher:message:str"]
    + ["vendor:" + v for v in ("postgresql", "mysql", "sqlserver", "oracle", "db2", "sqlite",
                               "cockroachdb")]
    + ["handler:name", "handler:mapping", "handler:mapping:idempotent", "handler:mapping:calls",
       "handler:mapping:redeliveries", "handler-key:exact",
       "handler-key:prefix"]
)


# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# The vendor map schema (policies/schema/rebound-vendor-map.schema.json) and the shipped maps.

# Mistakes the vendor map schema must reject (each a rule of an otherwise valid map).
VENDOR_MAP_INVALID_RULES = {
    "unknown key": {"native": 1213, "categroy": "deadlock", "source": "ref"},
    "unknown category": {"native": 1213, "category": "deadlok", "source": "ref"},
    "SQLSTATE of four characters": {"sqlstate": "4000", "category": "deadlock", "source": "ref"},
    "lower-case SQLSTATE class": {"sqlstate_class": "hy", "category": "client_error", "source": "ref"},
    "two keys": {"native": 1213, "sqlstate": "40001", "category": "deadlock", "source": "ref"},
    "no key": {"category": "deadlock", "source": "ref"},
    "no category": {"native": 1213, "source": "ref"},
    "no source": {"native": 1213, "category": "deadlock"},
    "unquoted SQLSTATE": {"sqlstate": 40001, "category": "deadlock", "source": "ref"},
}


def check_vendor_maps(schema_path, maps_dir, failures):
    """Checks the vendor map schema and every shipped map; returns the number of files checked."""
    try:
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        jsonschema.Draft7Validator.check_schema(schema)
    except (OSError, json.JSONDecodeError, jsonschema.exceptions.SchemaError) as error:
        failures.add(f"{schema_path}: not a readable draft-07 schema: {error}")
        return 0
    for pointer in missing_descriptions(schema):
        failures.add(f"{schema_path}: {pointer} has no description")
    validator = jsonschema.Draft7Validator(schema)
    maps = sorted(maps_dir.glob("*.yaml"))
    if not maps:
        failures.add(f"no vendor maps found in {maps_dir}")
    for path in maps:
        try:
            data = load_fixture(path)
        except ValueError as error:
            failures.add(str(error))
            continue
        if not validator.is_valid(data):
            failures.add(f"{path}: a shipped vendor map fails the schema:\n"
                         + describe_errors(validator, data))
    base = {"rebound_vendor_map": 1, "vendor": "mysql", "sources": {"ref": "a reference"}}
    if not validator.is_valid(dict(base, rules=[{"native": 1, "category": "deadlock",
                                                 "source": "ref"}])):
        failures.add(f"{schema_path}: rejects a minimal valid vendor map")
    for mistake, rule in VENDOR_MAP_INVALID_RULES.items():
        if validator.is_valid(dict(base, rules=[rule])):
            failures.add(f"{schema_path}: accepts a vendor map rule with {mistake}")
    return len(maps)


def main(argv):
    argv = list(argv)
    vendor_schema = vendor_maps = None
    if "--vendor-maps" in argv:
        at = argv.index("--vendor-maps")
        if at + 2 >= len(argv):
            sys.stderr.write("usage: --vendor-maps SCHEMA DIR\n")
            return 2
        vendor_schema, vendor_maps = Path(argv[at + 1]), Path(argv[at + 2])
        del argv[at:at + 3]
    if len(argv) != 4:
        sys.stderr.write("usage: check_schema.py SCHEMA SPEC_CONFORMANCE_DIR TESTS_DATA_DIR\n")
        return 2
    schema_path, conformance_dir, data_dir = (Path(a) for a in argv[1:])
    for directory in (conformance_dir, data_dir):
        if not directory.is_dir():
            sys.stderr.write(f"check_schema.py: {directory} is not a directory\n")
            return 2
    failures = Failures()
    checked = 0

    # 1. The schema itself.
    try:
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        sys.stderr.write(f"check_schema.py: cannot read the schema {schema_path}: {error}\n")
        return 1
    try:
        jsonschema.Draft7Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        failures.add(f"{schema_path} is not a valid draft-07 schema: {error.message} "
                     f"(at {'/'.join(str(p) for p in error.absolute_path)})")
        return report(failures, checked)
    if schema.get("$schema") != "http://json-schema.org/draft-07/schema#":
        failures.add(f"{schema_path}: $schema must be http://json-schema.org/draft-07/schema#")
    validator = jsonschema.Draft7Validator(schema)

    # 2. Descriptions.
    for pointer in missing_descriptions(schema):
        failures.add(f"{schema_path}: {pointer} has no description")

    # 3. Valid fixtures.
    # The version-2 vectors (06-resilience: breakers, server_delay, calls) are not in the schema
    # yet; they join this check when the project implements version 2.
    valid_files = sorted(p for p in conformance_dir.glob("*.yaml")
                         if not p.name.startswith("06-resilience"))
    own_valid = sorted(p for p in (data_dir / "valid").glob("*") if p.suffix in VALID_SUFFIXES)
    if not valid_files:
        failures.add(f"no valid vectors found in {conformance_dir}")
    if not own_valid:
        failures.add(f"no valid fixtures found in {data_dir / 'valid'}")
    own_documents = []
    for path in valid_files + own_valid:
        checked += 1
        try:
            data = load_fixture(path)
        except ValueError as error:
            failures.add(str(error))
            continue
        if path in own_valid and isinstance(data, dict):
            own_documents.append(data)
        if not validator.is_valid(data):
            failures.add(f"{path}: a valid file fails the schema:\n"
                         + describe_errors(validator, data))
    try:
        missing_forms = [form for form in REQUIRED_FORMS if form not in forms_used(own_documents)]
    except (AttributeError, StopIteration, TypeError) as error:
        missing_forms = []
        failures.add(f"{data_dir / 'valid'}: cannot survey the fixtures ({error})")
    if missing_forms:
        failures.add(f"{data_dir / 'valid'}: no fixture uses " + ", ".join(missing_forms))

    # 4. The spec's invalid vectors.
    for path in sorted((conformance_dir / "invalid").glob("*.yaml")):
        checked += 1
        try:
            data = load_fixture(path)
        except ValueError as error:
            if path.name in NOT_EXPRESSIBLE:
                continue  # duplicate-key.yaml cannot be loaded by a strict loader at all
            failures.add(str(error))
            continue
        if path.name in SCHEMA_EXPRESSIBLE:
            if validator.is_valid(data):
                failures.add(f"{path}: passes the schema, but its mistake "
                             f"({SCHEMA_EXPRESSIBLE[path.name]}) must be reported")
        elif path.name in NOT_EXPRESSIBLE:
            if not validator.is_valid(data):
                failures.add(f"{path}: its mistake ({NOT_EXPRESSIBLE[path.name]}) was believed "
                             "beyond the schema, but the schema rejects the file; check the "
                             "schema is not stricter than rebound, then move the file to "
                             "SCHEMA_EXPRESSIBLE in check_schema.py:\n"
                             + describe_errors(validator, data))
        else:
            failures.add(f"{path}: new invalid vector; classify it in check_schema.py "
                         "(SCHEMA_EXPRESSIBLE or NOT_EXPRESSIBLE)")

    # 6. The vendor map schema and the shipped vendor maps (with --vendor-maps SCHEMA DIR).
    if vendor_schema is not None:
        checked += check_vendor_maps(vendor_schema, vendor_maps, failures)

    # 5. The project's own schema-invalid fixtures.
    own_invalid = sorted((data_dir / "schema-invalid").glob("*.yaml"))
    if not own_invalid:
        failures.add(f"no fixtures found in {data_dir / 'schema-invalid'}")
    for path in own_invalid:
        checked += 1
        header = header_of(path)
        at_lines = [line[3:] for line in header if line.startswith("at:")]
        what = [line for line in header if line and not line.startswith("at:")]
        if not what or len(at_lines) != 1:
            failures.add(f"{path}: must start with a comment saying what is wrong and one "
                         "'# at: PATH' line")
            continue
        try:
            data = load_fixture(path)
        except ValueError as error:
            failures.add(str(error) + " (a schema-invalid fixture must be readable YAML)")
            continue
        errors = all_errors(validator, data)
        if not errors:
            failures.add(f"{path}: passes the schema, but {what[0]}")
            continue
        expected = path_of(at_lines[0])
        if not any(list(error.absolute_path) == expected for error in errors):
            places = sorted({"/".join(str(p) for p in e.absolute_path) or "-" for e in errors})
            failures.add(f"{path}: fails, but not at {at_lines[0].strip()}; errors at: "
                         + ", ".join(places))

    return report(failures, checked)


def report(failures, checked):
    if failures.messages:
        sys.stderr.write(f"check_schema.py: {len(failures.messages)} problem(s)\n")
        return 1
    print(f"check_schema.py: schema OK; {checked} fixture(s) checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
