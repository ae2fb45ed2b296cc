"""What every boundary model shares: reading a file into one, with the file and the field
named when it is malformed."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from services.core.errors import FieldError, field_path

Shape = TypeVar("Shape", bound="Boundary")
Value = TypeVar("Value")


class FileFormatError(ValueError):
    """A file that is not in the shape its model gives: which file, which field, why."""


def first_problem(error: ValidationError) -> tuple[str, str]:
    """The field (a dotted path) and the reason of the first problem `error` found."""
    first = error.errors()[0]
    return ".".join(str(part) for part in first["loc"]) or "(the whole value)", first["msg"]


def describe(error: ValidationError) -> str:
    """The first problem of `error` as `field.path: why`."""
    return "{}: {}".format(*first_problem(error))


def checked(shape: TypeAdapter[Value], value: object, where: str = "") -> Value:
    """A decoded JSON value (a request's body, or the part of it at `where`) as `shape`,
    strictly: JSON's types as they are ("5" is no number, 1 is no `true`). Otherwise a
    FieldError (422) naming the field as every refusal of a request names it, under `where`
    (`events[0].seq`)."""
    try:
        return shape.validate_python(value, strict=True)
    except ValidationError as exc:
        raise refusal(exc, value, where) from None


def refusal(error: ValidationError, value: object, where: str = "") -> FieldError:
    """The first problem of `value` (a request's body) as its refusal (see `checked`)."""
    first = error.errors()[0]
    loc = _in_value(first["loc"], value, missing=first["type"] == "missing")
    path = field_path((where, *loc) if where else loc)
    return FieldError(path or "body", first["msg"])


def _in_value(loc: tuple[int | str, ...], value: object, missing: bool) -> tuple[int | str, ...]:
    """The part of an error's location that is in the value: pydantic adds the member a
    union tried (`group.str`), which no field is; a missing field is named all the same."""
    for depth, part in enumerate(loc):
        in_list = isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value)
        if in_list or (isinstance(value, dict) and part in value):
            value = value[part]  # type: ignore[index]
        elif not (missing and depth == len(loc) - 1):
            return loc[:depth]
    return loc


class Boundary(BaseModel):
    """A shape that crosses a process. Fields a newer version adds are ignored by an older
    reader; fields an older writer lacks take their defaults."""

    model_config = ConfigDict(extra="ignore")

    @classmethod
    def read_lines(cls: type[Shape], path: Path) -> list[Shape]:
        """Every line of a JSON-lines file that a process appends to as it goes (steps,
        model calls); a line cut short by a kill, or not this shape, is skipped."""
        if not path.exists():
            return []
        lines = []
        for line in path.read_text("utf-8").splitlines():
            try:
                lines.append(cls.parse(line, str(path)))
            except FileFormatError:
                continue
        return lines

    @classmethod
    def parse(cls: type[Shape], text: str | bytes, source: str) -> Shape:
        """The JSON `text` as this model; FileFormatError naming `source` and the field."""
        try:
            return cls.model_validate_json(text)
        except ValidationError as exc:
            raise FileFormatError(f"{source}: {describe(exc)}") from None

    @classmethod
    def checked(cls: type[Shape], value: object) -> Shape:
        """A decoded JSON value (a request's body) as this model; FieldError (422) naming
        the field otherwise (`checked`)."""
        try:
            return cls.model_validate(value, strict=True)
        except ValidationError as exc:
            raise refusal(exc, value) from None

    @classmethod
    def read(cls: type[Shape], path: Path) -> Shape:
        """The file at `path` as this model; FileFormatError naming it (OSError if absent)."""
        return cls.parse(path.read_bytes(), str(path))

    @classmethod
    def read_if(cls: type[Shape], path: Path) -> Shape | None:
        """The file at `path` as this model; None where it is absent (an agent killed before
        its answer) or malformed."""
        try:
            return cls.read(path)
        except (OSError, FileFormatError):
            return None

    def dumps(self, indent: int | None = 1) -> str:
        return self.model_dump_json(indent=indent)

    def write(self, path: Path, indent: int | None = 1) -> None:
        """Written whole at once: a reader never sees half of it."""
        write_whole(path, self.dumps(indent))


def write_whole(path: Path, text: str) -> None:
    """`text` written to `path` at once: a reader never sees half of it."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
