"""Sites, their tabs, and the UI-variant keys with their implementations (docs/tasks.md,
"Variants")."""

from __future__ import annotations

from typing import Any

from services.core.errors import FieldError

# Domain key -> tab caption, in tab order.
DOMAINS: dict[str, str] = {
    "shop": "Маркет",
    "books": "Книги",
    "grocery": "Продукты",
    "rail": "Поезда",
    "hotels": "Отели",
    "files": "Файлы",
}

# Domain key -> the package of its site service (`services.<package>`).
SITE_PACKAGES: dict[str, str] = {
    "shop": "market",
    "books": "books",
    "grocery": "grocery",
    "rail": "rail",
    "hotels": "hotels",
    "files": "files",
}

# key -> domain -> implementations, default first.
VARIANTS: dict[str, dict[str, list[str]]] = {
    "date": {
        "hotels": ["split_popup", "inline_calendar", "text_input", "single_popup"],
        "rail": ["popup_grid", "native_input", "text_input"],
    },
    "select_city": {"hotels": ["autocomplete", "native_select"]},
    "select_station": {"rail": ["typeahead", "native_select"]},
    "counter_guests": {
        "hotels": ["rooms_popup", "inline_stepper", "compact_select", "pill_buttons"]
    },
    "text_search": {
        domain: ["standard", "outlined", "filled", "underlined", "pill", "large"]
        for domain in ("shop", "books")
    },
    "collections": {"files": ["cards", "list", "tree", "compact"]},
    "years": {"files": ["select", "buttons", "radio"]},
    "buttons": {"files": ["outline", "solid", "icon", "split"]},
    "theme": {domain: ["light", "dark"] for domain in DOMAINS},
}


def defaults(domain: str) -> dict[str, str]:
    return {key: impls[domain][0] for key, impls in VARIANTS.items() if domain in impls}


def check_selection(selection: Any, field: str, domain: str | None = None) -> dict[str, str]:
    """A `{key: implementation}` map whose keys and implementations exist (for `domain`)."""
    if not isinstance(selection, dict):
        raise FieldError(field, "must be an object of key -> implementation")
    for key, impl in selection.items():
        per_domain = VARIANTS.get(key)
        if per_domain is None:
            raise FieldError(f"{field}.{key}", f"unknown variant key; known: {sorted(VARIANTS)}")
        domains = [domain] if domain else list(per_domain)
        if domain and domain not in per_domain:
            raise FieldError(f"{field}.{key}", f"the key does not apply to domain {domain!r}")
        if not any(impl in per_domain[d] for d in domains):
            known = sorted({i for d in domains for i in per_domain[d]})
            raise FieldError(f"{field}.{key}", f"unknown implementation {impl!r}; known: {known}")
    return dict(selection)


def resolve(
    test_data: dict[str, Any],
    domain_configs: dict[str, Any],
    override: dict[str, str] | None = None,
) -> dict[str, dict[str, str]]:
    """Every domain's effective selection.

    Order of precedence: the trajectory's override, then `domain_configs[domain].ui_variants`,
    then `test_data.ui_variants`, then the default. A key that another domain implements
    differently (``date``) only applies where the implementation exists.
    """
    task_level = check_selection(test_data.get("ui_variants") or {}, "test_data.ui_variants")
    override = check_selection(override or {}, "ui_variants")
    resolved: dict[str, dict[str, str]] = {}
    for domain in DOMAINS:
        config = (domain_configs.get(domain) or {}).get("ui_variants") or {}
        domain_level = check_selection(config, f"domain_configs.{domain}.ui_variants", domain)
        chosen = defaults(domain)
        for layer in (task_level, domain_level, override):
            for key, impl in layer.items():
                if impl in VARIANTS[key].get(domain, []):
                    chosen[key] = impl
        resolved[domain] = chosen
    return resolved
