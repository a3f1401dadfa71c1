"""Write ``docs/case_reference.md`` and ``docs/case.schema.json`` from the case-file schema,
and the table of element kinds of ``docs/guide/bodies.md`` from their registry.

The page lists every table of a case file with its keys, their types and
ranges, and whether they are required, all read from the JSON Schema that
``fecontact schema`` prints (:func:`fecontact.case.types.case_schema`), and
the keys each friction law reads from the friction-law registry
(:mod:`fecontact.friction.registry`), so the page cannot drift from what
the reader accepts.  The user guide's table of element kinds is written
from :data:`fecontact.mesh.elements.KINDS` between marker comments
(:mod:`page_blocks`).  Tests regenerate all three in memory and compare.

Run from the repository root::

    python docs/make_case_reference.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fecontact.case.friction import DEFAULT_LAW
from fecontact.case.types import case_schema
from fecontact.friction import registry

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS))
from page_blocks import splice  # noqa: E402  (docs/page_blocks.py)

#: The page with the table of element kinds, and this script as its marker names it
BODIES_PAGE = DOCS / "guide" / "bodies.md"
SCRIPT = "docs/make_case_reference.py"
#: Where each table sits in a case file
PLACES = {
    "CaseFile": "top level", "BodyTable": "[[bodies]]", "MaterialTable": "[bodies.material] / materials.NAME",
    "MeshFile": "bodies.mesh (a file)", "HalfDisc": "bodies.mesh, generator = \"half_disc\"",
    "Rectangle": "bodies.mesh, generator = \"rectangle\"",
    "Hemisphere": "bodies.mesh, generator = \"hemisphere\"", "Box": "bodies.mesh, generator = \"box\"",
    "DirichletTable": "[[bodies.dirichlet]]", "CouplingTable": "[[bodies.coupling]]",
    "SpringTable": "[[bodies.spring]]", "TractionTable": "[[bodies.traction]]",
    "PressureTable": "[[bodies.pressure]]",
    "ContactTable": "[[contact]]", "SurfaceTable": "contact.slave / tie.slave / tie.master",
    "MasterTable": "contact.master", "FrictionTable": "contact.friction", "TieTable": "[[tie]]",
    "StepsTable": "[steps]", "DynamicsTable": "[dynamics]", "SolverTable": "[solver]",
    "OutputTable": "[output]", "ReferenceTable": "[reference]",
}


def _type(prop: dict) -> str:
    """A JSON Schema property as a short type with its range."""
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[1]
        return f"table ({PLACES.get(name, name)})"
    if "anyOf" in prop:
        return " or ".join(_type(p) for p in prop["anyOf"])
    if "enum" in prop:
        return "one of " + ", ".join(f"`{v}`" for v in prop["enum"])
    kind = prop.get("type", "any")
    text = {"number": "number", "integer": "whole number", "string": "string",
            "boolean": "boolean", "object": "table", "array": "array"}.get(kind, kind)
    if kind == "array":
        items = prop.get("items")
        if "prefixItems" in prop:
            text = "[" + ", ".join(_type(p) for p in prop["prefixItems"]) + "]"
        elif isinstance(items, dict):
            text = f"array of {_type(items)}"
    if kind == "object" and "additionalProperties" in prop:
        text = f"table of {_type(prop['additionalProperties'])}"
    bounds = []
    for key, op in (("exclusiveMinimum", ">"), ("minimum", ">="), ("exclusiveMaximum", "<"),
                    ("maximum", "<=")):
        if key in prop and abs(prop[key]) < 1e300:        # the finite range is said once
            bounds.append(f"{op} {prop[key]:g}")
    if prop.get("minItems") == prop.get("maxItems") and "minItems" in prop:
        if "prefixItems" not in prop:
            bounds.append(f"{prop['minItems']} entries")
    else:
        for key, op in (("minItems", ">="), ("maxItems", "<=")):
            if key in prop:
                bounds.append(f"{op} {prop[key]} entries")
    if "pattern" in prop:
        bounds.append(f"matching `{prop['pattern']}`")
    return text + (f" ({', '.join(bounds)})" if bounds else "")


def _key(p) -> str:
    """A law's key with what an absent key means."""
    if p.fallback is not None:
        return f"`{p.key}` (default `{p.fallback}`)"
    if p.default is None:
        return f"`{p.key}`"
    when = f", needed with {p.required_when[0]}" if p.required_when else ""
    return f"`{p.key}` (default {p.default:g}{when})"


def laws_table() -> list:
    """Lines of the table of the registered friction laws and the keys each reads."""
    lines = ["### Friction laws", "",
             f"`law` names one of these (default `{DEFAULT_LAW}`); each reads the keys listed "
             "(the others are ignored).", "",
             "| law | keys | |", "|---|---|---|"]
    for entry in registry.laws():
        page = DOCS / "friction" / f"{entry.name}.md"
        name = f"[`{entry.name}`](friction/{page.name})" if page.is_file() else f"`{entry.name}`"
        summary = entry.summary.replace("``", "`").replace("|", "\\|")
        keys = ", ".join(_key(p) for p in entry.parameters) or "–"
        lines.append(f"| {name} | {keys} | {summary} |")
    return lines + [""]


def references_table() -> list:
    """Lines of the table of the reference types and the keys each reads."""
    from fecontact.references.parameters import REFERENCE_PARAMETERS

    lines = ["### Reference types", "",
             "`type` names one of these; each reads the keys listed (required ones in bold) and "
             "refuses the others. `fecontact check` and `run` check them against the case before "
             "solving: the analysis and dimension, the pairs and springs named, and what the type "
             "reads from them.", "",
             "| type | analysis | keys | needs | compares |", "|---|---|---|---|---|"]
    for name, spec in REFERENCE_PARAMETERS.items():
        keys = ", ".join(f"**`{k}`**" if k in spec.required else f"`{k}`" for k in spec.keys) or "–"
        needs = (["friction (mu > 0)"] if spec.friction else []) + \
            (["a rigid line or plane master"] if spec.rigid_master else []) + \
            ([f"a law with {', '.join(spec.law)}"] if spec.law else [])
        dims = "/".join(f"{d}D" for d in spec.dims) + (", axisymmetric 2D" if spec.axisymmetric else "")
        lines.append(f"| `{name}` | {spec.kind}, {dims} | {keys} | {'; '.join(needs) or '–'} "
                     f"| {spec.summary} |")
    return lines + [""]


def render(schema: dict) -> str:
    """The Markdown reference page of a case-file JSON Schema."""
    lines = ["# Case-file reference", "",
             "Generated by `docs/make_case_reference.py` from the schema the reader checks "
             "(`fecontact schema`, also in [case.schema.json](case.schema.json)); do not edit. "
             "[Case files](guide/case-files.md) explains the tables with examples.", "",
             "Every number is finite and at most 1e300 in magnitude. A violation is one line "
             "naming the file and the dotted key (exit status 2) before anything is built.", ""]
    for name, table in schema["$defs"].items():
        lines += [f"## {PLACES.get(name, name)}", "", table.get("description", ""), "",
                  "| key | type | required | description |", "|---|---|---|---|"]
        required = set(table.get("required", ()))
        for key, prop in table.get("properties", {}).items():
            text = prop.get("description", "")
            kind = _type(prop).replace("|", "\\|")
            lines.append(f"| `{key}` | {kind} | {'yes' if key in required else ''} | {text} |")
        lines.append("")
        if name == "FrictionTable":
            lines += laws_table()
        if name == "ReferenceTable":
            lines += references_table()
    return "\n".join(lines)


def element_table() -> str:
    """The Markdown table of the registered element kinds (name, meshes, elements, VTK cells)."""
    from fecontact.mesh.elements import KINDS

    def names(types):
        return ", ".join(f"`{t.__name__}`" for t in types)

    lines = ["| element | what it is | meshes | scikit-fem elements | result-file cells "
             "| the default on |", "|---|---|---|---|---|---|"]
    for kind in KINDS.values():
        cells = list(kind.cells)
        also = "".join(f" (or `\"{alias}\"`)" for alias in kind.aliases)
        lines.append(f"| `\"{kind.name}\"`{also} | {kind.description} | {names(c.mesh for c in cells)} "
                     f"| {names(c.element for c in cells)} | {', '.join(c.vtk for c in cells)} "
                     f"| {names(t for c in cells for t in c.defaults)} |")
    return "\n".join(lines)


def main() -> None:
    schema = case_schema()
    (DOCS / "case.schema.json").write_text(json.dumps(schema, indent=2) + "\n")
    (DOCS / "case_reference.md").write_text(render(schema))
    BODIES_PAGE.write_text(splice(BODIES_PAGE.read_text(), SCRIPT, {"element-kinds": element_table()}))


if __name__ == "__main__":
    main()
