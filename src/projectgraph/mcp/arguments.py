"""Tool arguments: one declaration per parameter gives both the JSON schema a client lists and the
check a call goes through, so the two cannot drift.

The check refuses what the schema refuses (an unknown argument, a missing one, a value of the wrong
type or out of range) with a message that names the tool, the argument and what it accepts; nothing
is ignored or coerced (``true`` and ``"3"`` are not integers; ``2.0`` is one, as in JSON Schema,
``2.5`` is not).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

STRING = "string"
INTEGER = "integer"
BOOLEAN = "boolean"
STRINGS = "array"  # a list of non-empty strings


class ArgumentError(ValueError):
    """A tool call whose arguments the tool's schema refuses."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    description: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    min_items: int = 0
    max_items: int | None = None  # a list's cap: one call may not hold the server for minutes

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.type == STRING:
            schema["minLength"] = 1
        if self.type == STRINGS:
            schema["items"] = {"type": STRING, "minLength": 1}
            if self.min_items:
                schema["minItems"] = self.min_items
            if self.max_items is not None:
                schema["maxItems"] = self.max_items
        if self.choices:
            schema["enum"] = list(self.choices)
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.default is not None:
            schema["default"] = self.default
        return schema

    def check(self, tool: str, value: Any) -> Any:
        """The value if this parameter accepts it, else an ``ArgumentError`` that says why."""
        where = f"{tool}: argument {self.name!r}"
        if self.type == STRING:
            if not isinstance(value, str):
                raise ArgumentError(f"{where} must be a string (got {_shown(value)})")
            if not value.strip():
                raise ArgumentError(f"{where} must not be empty")
            if self.choices and value not in self.choices:
                raise ArgumentError(f"{where} must be one of {', '.join(self.choices)} (got {value!r})")
        elif self.type == INTEGER:
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # JSON has one number type: 2.0 is the integer 2, as the schema says
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArgumentError(f"{where} must be an integer (got {_shown(value)})")
            low = self.minimum if self.minimum is not None else None
            high = self.maximum if self.maximum is not None else None
            if (low is not None and value < low) or (high is not None and value > high):
                bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
                raise ArgumentError(f"{where} must be {bounds} (got {value})")
        elif self.type == BOOLEAN:
            if not isinstance(value, bool):
                raise ArgumentError(f"{where} must be true or false (got {_shown(value)})")
        elif self.type == STRINGS:
            if not isinstance(value, list):
                raise ArgumentError(f"{where} must be a list of strings (got {_shown(value)})")
            for item in value:
                if not isinstance(item, str) or not item.strip():
                    raise ArgumentError(f"{where} must hold non-empty strings (got {_shown(item)})")
            if len(value) < self.min_items:
                raise ArgumentError(f"{where} needs at least {self.min_items} item(s)")
            if self.max_items is not None and len(value) > self.max_items:
                raise ArgumentError(
                    f"{where} holds {len(value)} items, more than the {self.max_items} one call takes: "
                    "split them over several calls, or use a '//*' prefix"
                )
        return value


def _shown(value: Any) -> str:
    kind = {bool: "boolean", int: "integer", float: "number", str: "string", list: "list", dict: "object"}
    name = "null" if value is None else kind.get(type(value), type(value).__name__)
    text = repr(value)
    return f"{name} {text[:40]}{'...' if len(text) > 40 else ''}"


def input_schema(params: Sequence[Param]) -> dict[str, Any]:
    """The JSON schema of a tool's arguments: an object with exactly these properties."""
    return {
        "type": "object",
        "properties": {p.name: p.schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def check_arguments(
    tool: str, params: Sequence[Param], arguments: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The call's arguments with defaults filled in; an ``ArgumentError`` for anything refused."""
    given = dict(arguments or {})
    known = {p.name: p for p in params}
    unknown = sorted(set(given) - set(known))
    if unknown:
        accepted = ", ".join(known) or "none"
        raise ArgumentError(
            f"{tool}: unknown argument{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)} (accepted: {accepted})"
        )
    checked: dict[str, Any] = {}
    for param in params:
        if param.name not in given:
            if param.required:
                raise ArgumentError(f"{tool}: argument {param.name!r} is required ({param.description})")
            checked[param.name] = param.default
            continue
        checked[param.name] = param.check(tool, given[param.name])
    return checked
