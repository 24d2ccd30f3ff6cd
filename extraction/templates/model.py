"""The template data model, shared by induction, labelling, matching and the library (JSON-ready)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .tagseq import token_code

FIELDS = ("body", "headline", "date")


@dataclass
class Slot:
    """A labelled template node: which required node holds a field of the article."""

    field: str
    node: int  # index into the template's required nodes
    source: str = "auto"  # "auto" (from the extractors' agreement) or "manual" (a person's override)
    agreement: float = 0.0  # auto: share of the cluster's pages on which the extractors pointed here
    drop_lines: list[str] = field(default_factory=list)  # template text inside the slot (same on most pages)
    skip_keys: list[str] = field(default_factory=list)  # element keys inside the slot left out when reading
    typical_chars: int = 0  # shortest text of the slot on the labelled pages (0: unknown)
    keep_keys: list[str] = field(default_factory=list)  # element keys the generic furniture test would drop but that hold page content here
    start_node: int = -1  # body only: the article starts at this required node (its headline), -1: at `node`


@dataclass
class Template:
    """Tp = [ON0] EN1 ON1 ... ENn [ONn]: required nodes EN in order, optional nodes ON in the gaps.

    `keys/depths/parents/repeatable` describe the required nodes (parents index required nodes,
    -1 when the nearest required ancestor is the root). `optional` lists the gaps that hold content
    on some pages: {"gap": k (before required node k; n = after the last), "pages": share of pages,
    "alternatives": [{"keys": [...], "count": pages}], "groups": [{"count": pages, "required": [...]}]}
    where groups are the alternatives clustered and templated again (the self-similar step).
    """

    id: str
    site: str = ""
    keys: list[str] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    repeatable: list[bool] = field(default_factory=list)
    optional: list[dict[str, Any]] = field(default_factory=list)
    slots: dict[str, Slot] = field(default_factory=dict)
    pages: int = 0
    url_prefixes: dict[str, int] = field(default_factory=dict)  # "host/dir/dir" -> training pages under it
    threshold: float = 0.8  # minimum match score for extraction with this template

    def __post_init__(self) -> None:
        self._codes: list[int] | None = None
        self._code_set: frozenset[int] | None = None

    @property
    def codes(self) -> list[int]:
        if self._codes is None:
            self._codes = [token_code(k, d) for k, d in zip(self.keys, self.depths)]
        return self._codes

    @property
    def code_set(self) -> frozenset[int]:
        if self._code_set is None:
            self._code_set = frozenset(self.codes)
        return self._code_set

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_codes", None)
        data.pop("_code_set", None)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Template":
        if not isinstance(data, dict) or "id" not in data:
            raise ValueError("a template must be a JSON object with an 'id'")
        keys = list(data.get("keys", []))
        depths = [int(d) for d in data.get("depths", [])]
        parents = [int(p) for p in data.get("parents", [-1] * len(keys))]
        if not (len(keys) == len(depths) == len(parents)):
            raise ValueError(f"template {data['id']}: keys, depths and parents differ in length")
        slots = {}
        for name, s in (data.get("slots") or {}).items():
            slot = Slot(**s)
            if not 0 <= slot.node < len(keys):
                raise ValueError(f"template {data['id']}: slot {name} points at node {slot.node} of {len(keys)}")
            if not -1 <= slot.start_node < len(keys):
                raise ValueError(f"template {data['id']}: slot {name} starts at node {slot.start_node} of {len(keys)}")
            slots[name] = slot
        return cls(id=str(data["id"]), site=data.get("site", ""), keys=keys, depths=depths, parents=parents,
                   repeatable=[bool(r) for r in data.get("repeatable", [False] * len(keys))],
                   optional=list(data.get("optional", [])), slots=slots, pages=int(data.get("pages", 0)),
                   url_prefixes=_prefixes(data.get("url_prefixes")), threshold=float(data.get("threshold", 0.8)))

    def set_slot(self, field_name: str, node: int) -> None:
        """A person's label: it wins over automatic labelling, which never overwrites it."""
        if field_name not in FIELDS:
            raise ValueError(f"unknown field {field_name!r}; one of {', '.join(FIELDS)}")
        if not 0 <= node < len(self.keys):
            raise ValueError(f"node {node} out of range: template {self.id} has {len(self.keys)} required nodes")
        self.slots[field_name] = Slot(field=field_name, node=node, source="manual", agreement=1.0)


def _prefixes(value: Any) -> dict[str, int]:
    if not value:
        return {}
    if isinstance(value, dict):
        return {str(k): int(v) for k, v in value.items()}
    return {str(k): 1 for k in value}  # a plain list of prefixes, as a person might write it
