"""The UI-variant keys with their implementations (docs/tasks.md, "Variants"): what each
site declares (`SiteDescriptor.controls`, `registry().controls`), selected and resolved."""

from __future__ import annotations

from typing import Any

from services.core.errors import FieldError
from services.core.models.task import DomainConfig, Selection, TestData
from services.core.sites import registry


def defaults(domain: str) -> dict[str, str]:
    controls = registry().site_controls.get(domain, {})
    return {key: implementations[0] for key, implementations in controls.items()}


def check_selection(selection: Any, field: str, domain: str | None = None) -> dict[str, str]:
    """A `{key: implementation}` map whose keys and implementations exist (for `domain`)."""
    if not isinstance(selection, dict):
        raise FieldError(field, "must be an object of key -> implementation")
    controls = registry().controls
    for key, impl in selection.items():
        per_domain = controls.get(key)
        if per_domain is None:
            raise FieldError(f"{field}.{key}", f"unknown variant key; known: {sorted(controls)}")
        domains = [domain] if domain else list(per_domain)
        if domain and domain not in per_domain:
            raise FieldError(f"{field}.{key}", f"the key does not apply to domain {domain!r}")
        if not any(impl in per_domain[d] for d in domains):
            known = sorted({i for d in domains for i in per_domain[d]})
            raise FieldError(f"{field}.{key}", f"unknown implementation {impl!r}; known: {known}")
    return dict(selection)


def resolve(
    test_data: TestData,
    domain_configs: dict[str, DomainConfig],
    override: Selection | None = None,
) -> dict[str, Selection]:
    """Every domain's effective selection.

    Order of precedence: the trajectory's override, then `domain_configs[domain].ui_variants`,
    then `test_data.ui_variants`, then the default. A key that another domain implements
    differently (``date``) only applies where the implementation exists.
    """
    task_level = check_selection(test_data.get("ui_variants") or {}, "test_data.ui_variants")
    override = check_selection(override or {}, "ui_variants")
    controls = registry().controls
    resolved: dict[str, dict[str, str]] = {}
    for domain in registry().captions:
        config = (domain_configs.get(domain) or {}).get("ui_variants") or {}
        domain_level = check_selection(config, f"domain_configs.{domain}.ui_variants", domain)
        chosen = defaults(domain)
        for layer in (task_level, domain_level, override):
            for key, impl in layer.items():
                if impl in controls[key].get(domain, []):
                    chosen[key] = impl
        resolved[domain] = chosen
    return resolved
