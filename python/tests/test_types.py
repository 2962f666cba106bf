"""The committed dataclasses are exactly what python/gen_types.py makes of the binary's schema."""

import json
import subprocess
import sys
from pathlib import Path

import git_llm_apply
from git_llm_apply import types

GEN = Path(__file__).resolve().parents[1] / "gen_types.py"


def schema_of_the_binary(tmp_path):
    binary = git_llm_apply.find_binary()
    assert binary is not None, "no git-llm-apply to read the schema from"
    out = subprocess.run([binary, "--json-schema"], check=True, capture_output=True).stdout
    path = tmp_path / "schema.json"
    path.write_bytes(out)
    return path


def test_types_match_the_binarys_json_schema(tmp_path):
    schema = schema_of_the_binary(tmp_path)
    generated = subprocess.run(
        [sys.executable, str(GEN), str(schema)], check=True, capture_output=True, text=True
    ).stdout
    committed = Path(types.__file__).read_text(encoding="utf-8")
    assert generated == committed, "run: python/gen_types.py > python/git_llm_apply/types.py"


def test_every_definition_of_the_schema_has_a_type(tmp_path):
    defs = json.loads(schema_of_the_binary(tmp_path).read_text())["$defs"]
    missing = [name for name in defs if not hasattr(types, name)]
    assert missing == []
    assert types.SCHEMA_VERSION == 1
