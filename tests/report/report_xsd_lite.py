"""A small XML Schema validator (stdlib only) for the subset of XSD that ``junit.xsd`` uses.

Supported: global ``xs:element`` (with ``type`` of a built-in simple type, or
an inline ``xs:complexType``), ``ref``, ``minOccurs``/``maxOccurs``,
``xs:sequence`` holding elements and ``xs:choice`` groups, ``xs:attribute``
(``name``, ``type``, ``use="required"``), ``xs:simpleContent`` with
``xs:extension`` of ``xs:string``, and the simple types xs:string,
xs:nonNegativeInteger, xs:decimal and xs:dateTime. Anything else in the
schema raises, so the validator never silently accepts what it cannot read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime

XS = "{http://www.w3.org/2001/XMLSchema}"
UNBOUNDED = 1 << 30

_SIMPLE = {
    "xs:string": lambda v: True,
    "xs:nonNegativeInteger": lambda v: re.fullmatch(r"\+?\d+", v.strip()) is not None,
    "xs:decimal": lambda v: re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", v.strip()) is not None,
    "xs:dateTime": lambda v: _is_datetime(v),
}


def _is_datetime(v: str) -> bool:
    try:
        datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
    except ValueError:
        return False
    return "T" in v


@dataclass
class Particle:
    kind: str  # element | choice
    ref: str = ""
    options: list[str] = field(default_factory=list)
    min: int = 1
    max: int = 1


@dataclass
class ElementDecl:
    name: str
    simple: str | None = None  # text-only element of this simple type
    attributes: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name -> (type, required)
    particles: list[Particle] = field(default_factory=list)
    text: bool = False  # simpleContent: text allowed


class SchemaError(Exception):
    pass


class ValidationError(Exception):
    pass


def _occurs(node: ET.Element) -> tuple[int, int]:
    lo = int(node.get("minOccurs", "1"))
    hi_raw = node.get("maxOccurs", "1")
    return lo, UNBOUNDED if hi_raw == "unbounded" else int(hi_raw)


def _attributes(parent: ET.Element, decl: ElementDecl) -> None:
    for a in parent.findall(f"{XS}attribute"):
        t = a.get("type", "xs:string")
        if t not in _SIMPLE:
            raise SchemaError(f"attribute type {t} not supported")
        decl.attributes[a.get("name", "")] = (t, a.get("use") == "required")


def load_schema(path: str) -> dict[str, ElementDecl]:
    root = ET.parse(path).getroot()
    decls: dict[str, ElementDecl] = {}
    for el in root.findall(f"{XS}element"):
        decl = ElementDecl(el.get("name", ""))
        if el.get("type"):
            if el.get("type") not in _SIMPLE:
                raise SchemaError(f"element type {el.get('type')} not supported")
            decl.simple = el.get("type")
        ctype = el.find(f"{XS}complexType")
        if ctype is not None:
            for child in ctype:
                if child.tag == f"{XS}sequence":
                    for p in child:
                        lo, hi = _occurs(p)
                        if p.tag == f"{XS}element":
                            decl.particles.append(Particle("element", ref=p.get("ref", ""), min=lo, max=hi))
                        elif p.tag == f"{XS}choice":
                            opts = [c.get("ref", "") for c in p.findall(f"{XS}element")]
                            decl.particles.append(Particle("choice", options=opts, min=lo, max=hi))
                        else:
                            raise SchemaError(f"{p.tag} inside a sequence is not supported")
                elif child.tag == f"{XS}attribute":
                    pass
                elif child.tag == f"{XS}simpleContent":
                    ext = child.find(f"{XS}extension")
                    if ext is None or ext.get("base") != "xs:string":
                        raise SchemaError("simpleContent must extend xs:string")
                    decl.text = True
                    _attributes(ext, decl)
                else:
                    raise SchemaError(f"{child.tag} in a complexType is not supported")
            _attributes(ctype, decl)
        decls[decl.name] = decl
    for decl in decls.values():
        for p in decl.particles:
            for ref in [p.ref] if p.kind == "element" else p.options:
                if ref not in decls:
                    raise SchemaError(f"reference to undeclared element {ref}")
    return decls


def _where(el: ET.Element, path: str) -> str:
    name = el.get("name")
    return f"{path}/{el.tag}" + (f"[@name={name!r}]" if name else "")


def _check(el: ET.Element, decls: dict[str, ElementDecl], path: str) -> None:
    where = _where(el, path)
    decl = decls.get(el.tag)
    if decl is None:
        raise ValidationError(f"{where}: element not declared in the schema")
    if decl.simple is not None:
        if len(el) or el.attrib:
            raise ValidationError(f"{where}: a {decl.simple} element has no children or attributes")
        if not _SIMPLE[decl.simple](el.text or ""):
            raise ValidationError(f"{where}: text is not a valid {decl.simple}")
        return
    for name, value in el.attrib.items():
        if name not in decl.attributes:
            raise ValidationError(f"{where}: attribute {name!r} is not declared")
        t, _ = decl.attributes[name]
        if not _SIMPLE[t](value):
            raise ValidationError(f"{where}: attribute {name}={value!r} is not a valid {t}")
    for name, (_, required) in decl.attributes.items():
        if required and name not in el.attrib:
            raise ValidationError(f"{where}: required attribute {name!r} is missing")
    if not decl.text and (el.text or "").strip():
        raise ValidationError(f"{where}: text is not allowed here")
    children = list(el)
    if decl.text and children:
        raise ValidationError(f"{where}: simple content has no child elements")
    i = 0
    for p in decl.particles:
        allowed = {p.ref} if p.kind == "element" else set(p.options)
        n = 0
        while i < len(children) and children[i].tag in allowed and n < p.max:
            i += 1
            n += 1
        if n < p.min:
            raise ValidationError(f"{where}: expected at least {p.min} of {sorted(allowed)}, found {n}")
    if i < len(children):
        raise ValidationError(f"{where}: unexpected element <{children[i].tag}> at position {i + 1}")
    for child in children:
        if (child.tail or "").strip():
            raise ValidationError(f"{where}: text between elements is not allowed")
        _check(child, decls, where)


def validate(xml_text: str, schema_path: str) -> None:
    """Raise ``ValidationError`` (with the failing element's path) unless ``xml_text`` is valid."""
    decls = load_schema(schema_path)
    root = ET.fromstring(xml_text.encode("utf-8"))
    _check(root, decls, "")
