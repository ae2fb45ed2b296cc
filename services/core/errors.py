"""Bad input, named by where it is: one error type for every reader of the contract (tasks,
conditions, variant keys, events) and one for a form with several wrong fields."""

from __future__ import annotations


class FieldError(ValueError):
    """`field` (a dotted path: `task.test_data.conditions[2].match`) holds a bad value;
    `message` says why; `status` is the HTTP answer (422 bad value, 404 no such thing, 409
    not now, 402 declined). `str()` is "field: message". A service answers it as JSON
    `{"detail", "field", "message"}`; a shop may render it as a page."""

    def __init__(self, field: str, message: str, status: int = 422) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.status = status


class FormError(ValueError):
    """A submitted form with wrong fields: `errors` maps each field to its message, in the
    form's order, so a page can show every one beside its field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def field_path(parts: tuple[object, ...] | list[object]) -> str:
    """Where a value sits in a request, as every error names it: keys joined by dots, list
    indices in brackets (`("events", 0, "seq")` -> `events[0].seq`); "" for the whole."""
    path = ""
    for part in parts:
        if isinstance(part, int):
            path = f"{path}[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path
