"""The trajectory's metadata has two forms: the API's model (`TrajectoryMeta`, validated
where it crosses HTTP) and the kit's typed dict (`Meta`, read on every site request from the
cache). They name the same fields, and what the hub stores reads back as the model."""

from __future__ import annotations

from typing import get_type_hints

from services.core.models.api import InfraFault, TrajectoryMeta
from services.hub.trajectories import stored_form
from services.kit.trajectory import Fault, Meta


def test_the_stored_form_and_the_model_name_the_same_fields() -> None:
    assert set(get_type_hints(Meta)) == set(TrajectoryMeta.model_fields)
    assert set(get_type_hints(Fault)) == set(InfraFault.model_fields)


def test_what_the_hub_stores_reads_back_as_the_model() -> None:
    meta = TrajectoryMeta(
        trajectory_id="a" * 32,
        task_id=None,
        status="open",
        created_at=1.5,
        today="2026-12-01",
        date_shift_days=7,
        url="http://127.0.0.1:8000/t/x/",
        prompt="Открой …",
        first_domain=None,
        conditions=[{"event_name": "basket_add"}],
        ui_taxonomy=None,
        ui_variants={},
    )
    stored = stored_form(meta)
    # Set to None, still there (readers index it); never set, left out.
    assert stored["task_id"] is None and stored["first_domain"] is None
    assert "closed_at" not in stored and "infra_faults" not in stored
    assert TrajectoryMeta.model_validate(stored) == meta
