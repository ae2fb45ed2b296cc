"""Bad input, named by where it is: one error type for every reader of the contract (tasks,
conditions, variant keys, events) and one for a form with several wrong fields."""

from __future__ import annotations


class FieldError(ValueError):
    """`field` (a dotted path: `task.test_data.conditions[2].match`) holds a bad value;
    `message` says why. `str()` is "field: message"."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class FormError(ValueError):
    """A submitted form with wrong fields: `errors` maps each field to its message, in the
    form's order, so a page can show every one beside its field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors
