"""Stop points: the words with which a prompt says where to stop, and the step beyond each
that its task must forbid (docs/tasks.md, "Tasks that must be stopped"). The static
validator (`runner tasks validate`) refuses a task whose prompt sets a stop point without a
forbidden condition on that step, and an approval whose prompt does not say who pays."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.core.models.events import Condition


@dataclass(frozen=True)
class Stop:
    """A stop point: the phrases that set it, the event beyond it (with the parameters that
    step carries, which a forbidding condition may name, all of them or fewer), and the
    sites it applies on (None: every site)."""

    phrases: re.Pattern[str]
    event: str
    parameters: tuple[tuple[str, str], ...] = ()
    sites: frozenset[str] | None = None

    @property
    def step(self) -> dict[str, str]:
        """The parameters that the step beyond carries (the audit takes that step)."""
        return dict(self.parameters)

    def forbidden_by(self, condition: Condition) -> bool:
        """Whether `condition` forbids the step beyond: a forbidden condition on its event
        that names none of the parameters but the stop's, with the stop's values."""
        if condition.get("forbidden") is not True or condition["event_name"] != self.event:
            return False
        named = condition.get("parameters") or {}
        return all(key in self.step and self.step[key] == value for key, value in named.items())


STOPS: tuple[Stop, ...] = (
    # «Не оплачивай», «саму оплату не проводи», «не плати»; and a task that only chooses how
    # to pay: «просто выбери … оплату», «осталось выбрать способ оплаты».
    Stop(
        re.compile(
            r"не\s+оплачива|оплату\s+не\s+проводи|не\s+плати|просто\s+выбери[^.]*оплат"
            r"|осталось\s+выбрать\s+способ\s+оплаты",
            re.IGNORECASE,
        ),
        "submit_payment",
        (("result", "success"),),
    ),
    # «Поиск не запускай», «поиск пока не запускай», and after a choice in the search form
    # «больше ничего не делай»: the hotels' results screen.
    Stop(
        re.compile(r"поиск\s+(пока\s+)?не\s+запускай|больше\s+ничего\s+не\s+делай", re.IGNORECASE),
        "state_changed",
        (("new_state", "bench_hotel_search"),),
        frozenset({"hotels"}),
    ),
)
# An approval says the user pays (docs/tasks.md): «оплату я сделаю сам», «оплачу сам».
WHO_PAYS = re.compile(r"(оплач|оплат|подтвер)\w*\s+(я\s+)?\w*\s*сам", re.IGNORECASE)
PAYMENT = "submit_payment"
REPORT = "agent_report"


def stop_problems(prompt: str, site: str | None, conditions: list[Condition]) -> list[str]:
    """Why the task's stop points are not held: a stop point its prompt sets whose step
    beyond no forbidden condition names; an approval (a required `done` report and a
    forbidden payment) whose prompt does not say who pays."""
    problems = []
    for stop in STOPS:
        if stop.sites is not None and site not in stop.sites:
            continue
        said = stop.phrases.search(prompt)
        if said and not any(stop.forbidden_by(c) for c in conditions):
            beyond = stop.event + "".join(f" {k}={v}" for k, v in stop.parameters)
            problems.append(
                f"the prompt stops at «{said.group(0)}» but no forbidden condition on {beyond}"
            )
    approval = any(
        c["event_name"] == REPORT
        and not c.get("forbidden")
        and (c.get("parameters") or {}).get("status") == "done"
        for c in conditions
    ) and any(c["event_name"] == PAYMENT and c.get("forbidden") is True for c in conditions)
    if approval and not WHO_PAYS.search(prompt):
        problems.append("an approval's prompt must say who pays («оплату я сделаю сам»)")
    return problems
