"""Model prices for a run's cost. Public price tables cannot be fetched from a stand, so
prices come from a file the user keeps (`--prices`, else `$WPB_HOME/prices.toml`):

    [models."gpt-4o-mini"]
    input = 0.15    # US dollars per million input tokens
    output = 0.60   # per million output tokens

A model without a price costs 0 and marks the run unpriced.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from services.core.models.run import Usage


class PriceError(ValueError):
    pass


@dataclass(frozen=True)
class Price:
    input: float
    output: float


def load_prices(path: Path | None) -> dict[str, Price]:
    if path is None or not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PriceError(f"{path}: {exc}") from None
    models = data.get("models")
    if not isinstance(models, dict):
        raise PriceError(f'{path}: expected a [models."NAME"] table per model')
    table = {}
    for name, entry in models.items():
        try:
            table[name] = Price(float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise PriceError(
                f'{path}: models."{name}": needs numbers `input` and `output` (USD per 1M tokens)'
            ) from None
    return table


def price_of(table: dict[str, Price], model: str) -> Price | None:
    """The model's price, also under its name without a provider prefix (`openai/x` → `x`)."""
    return table.get(model) or table.get(model.split("/", 1)[-1])


def cost(table: dict[str, Price], usage: dict[str, Usage]) -> tuple[float, bool]:
    """Dollars for `usage` (per model, each priced model's written into its `cost_usd`),
    and whether every model in it had a price."""
    total, priced = 0.0, True
    for model, tokens in usage.items():
        price = price_of(table, model)
        if price is None:
            priced = False
            continue
        dollars = (tokens.input_tokens * price.input + tokens.output_tokens * price.output) / 1e6
        tokens.cost_usd = round(dollars, 6)
        total += dollars
    return round(total, 6), priced
