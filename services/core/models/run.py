"""A run folder as `runner eval` (or `runner import`) writes it: `manifest.json` (what was
run, how and where), `records.jsonl` (one record per attempt) and `summary.json` (means
over the scored records, overall and by facet). docs/results.md describes each field."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, computed_field

from services.core.models.base import Boundary
from services.core.models.task import RELEASED

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
SUMMARY = "summary.json"
EPISODES = "episodes"
# Beside an episode's steps: every model call, as the runner's proxy saw it return.
CALLS = "calls.jsonl"
# Beside them: the trajectory as the stand held it once checked (api.RecordedTrajectory).
RECORDED = "recorded.json"
# And the episode as an ATIF trajectory (runner/run/atif.py); an episode of a run before the
# ATIF file held the stand's record under this name (`RecordedTrajectory.kept` reads it).
ATIF = "trajectory.json"


class Status(StrEnum):
    """How an attempt ended. The last two are never scored: neither is the agent's failure."""

    OK = "ok"
    TIMEOUT = "timeout"
    STEP_LIMIT = "step_limit"
    AGENT_ERROR = "agent_error"
    INFRA_ERROR = "infra_error"
    TASK_ERROR = "task_error"

    @property
    def scored(self) -> bool:
        return self not in (Status.INFRA_ERROR, Status.TASK_ERROR)


# What an agent said at the end (protocol 2, docs/harnesses.md): it did the task, the task
# cannot be done (what it asks does not exist or cannot be had), the task needs the user
# (ambiguous, or an approval), or it stopped without either.
ReportStatus = Literal["done", "infeasible", "needs_input", "gave_up"]


class Usage(Boundary):
    """One model's token counts and calls in an episode (or summed over a run)."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    # Its cost in US dollars where the model has a price (None: unknown).
    cost_usd: float | None = None


class MatchedEvent(Boundary):
    seq: int | None
    type: str | None
    params: dict[str, JsonValue]


class ConditionReport(Boundary):
    """One entry of check()'s `conditions`: the condition, whether it held, and the event
    that satisfied it (for a forbidden one, the event that broke it). `group` and
    `forbidden` appear in check()'s answer only where the condition has them."""

    event_name: str
    parameters: dict[str, JsonValue]
    group: str | int | None = None
    forbidden: bool = False
    success: bool
    matched_event: MatchedEvent | None


# What an attempt can leave behind on a site (docs/tasks.md, "Side effects").
Effect = Literal["cart", "favorites", "download", "booking", "payment"]


class SideEffect(Boundary):
    """A state change no condition of the task asked for (docs/tasks.md, "Side effects"):
    something the attempt left behind on a site (`effect`) that the task does not name
    (`unrequested`) or one more of what it asks for (`duplicate`), with the events that made
    it."""

    site: str
    effect: Effect
    kind: Literal["unrequested", "duplicate"]
    reason: str
    events: list[MatchedEvent]


class LostAttempt(Boundary):
    """An attempt lost to the stand (infrastructure), run again on a new trajectory."""

    trajectory_id: str | None = None
    error: str


# Why a scored attempt failed (services/core/failure.py, docs/results.md "Failure classes").
FailureClass = Literal[
    "forbidden_action",
    "agent_error",
    "looped",
    "timeout",
    "step_limit",
    "wrong_target",
    "false_success",
    "premature_stop",
    "never_reached",
]


class Point(Boundary):
    """Where the attempt left the path: the first unmet condition (its index in the task's
    conditions, its event and parameters) and the step after which it did (1-based; None
    when the agent never reached that condition's site)."""

    condition: int
    event_name: str
    parameters: dict[str, JsonValue] = Field(default_factory=dict)
    step: int | None = None


class Failure(Boundary):
    """A failed attempt's class, every other class that holds, the evidence for each, and
    the failure point (None when every required condition held: a forbidden one fired)."""

    # Written and read as `class` (a keyword in Python).
    model_config = ConfigDict(extra="ignore", serialize_by_alias=True, validate_by_name=True)

    class_: FailureClass = Field(alias="class")
    tags: list[FailureClass] = Field(default_factory=list)
    evidence: dict[str, str] = Field(default_factory=dict)
    point: Point | None = None


class Record(Boundary):
    """One attempt on one task: one line of records.jsonl."""

    task: str
    repeat: int = 1
    # The task as it ran (services/core/tasks.py `task_hash`): two records of one name with
    # other hashes ran different tasks and are not paired. None: an older record.
    task_hash: str | None = None
    site: str = "?"
    ui_primary: str = "?"
    # The task's UI classes (its `ui_taxonomy.classes`: what its conditions check).
    ui_classes: list[str] = Field(default_factory=list)
    # The prompt of a task that is not ours, as an imported file gives it (ours is in its
    # task file).
    prompt: str | None = None
    variant: bool = False
    donor: str = ""
    profile: str | None = None
    # The controls rendered otherwise than by default: key -> implementation.
    controls: dict[str, str] = Field(default_factory=dict)
    trajectory_id: str | None = None
    date_shift_days: int | None = None
    # None for an attempt that was not scored (Status.scored).
    ems: int | None = None
    completion: int | None = None
    done_and_pass: int | None = None
    passed: int | None = None
    total: int | None = None
    conditions: list[ConditionReport] = Field(default_factory=list)
    unprompted: int = 0
    # None where the attempt was not judged for them (unscored, imported, an older record).
    side_effects: list[SideEffect] | None = None
    status: Status = Status.OK
    error: str | None = None
    final_message: str = ""
    # The agent's report (the `agent_report` event the runner wrote); None: it made none.
    report_status: ReportStatus | None = None
    # An injection attempt's (its `controls` render `inject`) judgement, from `conditions`
    # (docs/results.md, "Safety"): each goal of the attack -> whether its sink fired, any
    # fired, and 1 when the other conditions (the donor's) all held. None for any other
    # attempt, an unscored one, or an older record.
    attack_goals: dict[str, bool] | None = None
    attack_success: bool | None = None
    utility: int | None = None
    # A recovery task's attempt: the trajectory began from its `start_state` (docs/tasks.md).
    recovery: bool = False
    # A failed scored attempt's class (docs/results.md, "Failure classes"); None otherwise.
    failure: Failure | None = None
    steps: int = 0
    seconds: float = 0.0
    phases: dict[str, float] = Field(default_factory=dict)
    tokens: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)
    model_calls: int = 0
    cost: float = 0.0
    priced: bool = True
    # The episode's folder in the run (`episodes/<trajectory>`), where a harness wrote one.
    episode: str | None = None
    attempts: int = 1
    infra_errors: list[LostAttempt] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_usd(self) -> float | None:
        """The attempt's model cost in US dollars; None where a model it called has no price
        (unknown, never 0)."""
        return round(self.cost, 6) if self.priced else None

    @property
    def scored(self) -> bool:
        return self.ems is not None

    @property
    def kind(self) -> str:
        return "variant" if self.variant else "canonical"

    @property
    def attempt(self) -> tuple[str, int]:
        """The task and the attempt number: what pairs two runs' records."""
        return self.task, self.repeat

    @property
    def control_label(self) -> str:
        """What a variant renders otherwise than its donor (`overlay=consent`), as the board
        names it: its controls, else its profile, else its file's suffix."""
        if self.controls:
            return ", ".join(f"{key}={impl}" for key, impl in sorted(self.controls.items()))
        return self.profile or self.task.split("__", 1)[-1]


# The sizes `runner eval --viewport WxH` takes (CSS px) and its `--zoom` (device scale
# factor); a page this narrow or narrower is a phone's (the sites' narrow layout starts at
# 600 px: `@media (max-width: 600px)`).
SIZES = (200, 4096)
ZOOMS = (0.5, 4.0)
MOBILE_WIDTH = 600


class Viewport(Boundary):
    """The page's size in CSS px and the device scale factor the browser renders it at
    (`runner eval --viewport WxH --zoom F`); an older manifest's has no zoom (1)."""

    width: int = Field(default=1280, ge=SIZES[0], le=SIZES[1])
    height: int = Field(default=800, ge=SIZES[0], le=SIZES[1])
    zoom: float = Field(default=1.0, ge=ZOOMS[0], le=ZOOMS[1])

    @classmethod
    def of(cls, size: str) -> Viewport:
        """`WxH` (`390x844`) at zoom 1; ValueError saying what is wrong."""
        width, sep, height = size.strip().lower().partition("x")
        if not sep or not width.isdigit() or not height.isdigit():
            raise ValueError(f"expected WIDTHxHEIGHT in CSS px (390x844), got {size!r}")
        low, high = SIZES
        for name, value in (("width", int(width)), ("height", int(height))):
            if not low <= value <= high:
                raise ValueError(f"the {name} {value} is not between {low} and {high} px")
        return cls(width=int(width), height=int(height))

    @property
    def mobile(self) -> bool:
        """A phone's page: the browser context is a mobile one with touch."""
        return self.width <= MOBILE_WIDTH

    @property
    def size(self) -> dict[str, int]:
        """`{"width", "height"}`, as browsers and agent frameworks take a viewport."""
        return {"width": self.width, "height": self.height}

    @property
    def context(self) -> dict[str, Any]:
        """Playwright's browser-context options for this screen: the size, the scale factor,
        and on a phone's a mobile context with touch. The user agent stays the desktop one:
        no site reads it, and the narrow layout follows the width alone."""
        return {
            "viewport": self.size,
            "device_scale_factor": self.zoom,
            "is_mobile": self.mobile,
            "has_touch": self.mobile,
        }

    @property
    def label(self) -> str | None:
        """`390x844`, `1280x800 ×1.5`: how a board names a run on another screen than the
        default; None for the default."""
        if self == Viewport():
            return None
        zoom = f" ×{self.zoom:g}" if self.zoom != 1 else ""
        return f"{self.width}x{self.height}{zoom}"

    @property
    def name(self) -> str:
        """`1280x800`, `390x844 ×1.5`: the screen's name, the default's too."""
        return self.label or f"{self.width}x{self.height}"


# A harness's own settings (`--option KEY=VALUE`: `family` for gui, `path` for the oracle),
# free-form JSON values.
Options = dict[str, Any]


class AgentSettings(Boundary):
    """How the agent was run (`runner eval`'s options); the key is named, never kept."""

    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    max_steps: int | None = None
    # The completion length asked of each model call (None: the endpoint's default).
    max_tokens: int | None = None
    options: Options = Field(default_factory=dict)
    command: str | None = None


class AgentConfig(AgentSettings):
    """How an agent harness is run: the manifest's agent settings (`runner eval`'s options:
    the endpoint, the limits, the harness's options, `external`'s `--agent-cmd`) and the
    model it calls. The API key is named by a variable, never carried."""

    model: str | None = None
    max_steps: int = 30


class RunPlan(BaseModel):
    """How the tasks of a run are run (`runner eval`'s options, the manifest's record of
    them, what every episode of a queued run carries): workers at once, seconds per task,
    attempts per task, the stand's today (None: the stand's own) and the browsers' viewport
    and zoom."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workers: int = 1
    time_limit: float = 180
    repeat: int = 1
    today: str | None = None
    viewport: Viewport = Field(default_factory=Viewport)


class Versions(Boundary):
    webpagebench: str = "unknown"
    python: str = ""
    playwright: str = "unknown"


LOCAL: dict[str, JsonValue] = {"kind": "local"}  # agents as processes beside the runner


class Manifest(Boundary):
    """What a run ran: the harness and model, the task set, where and how."""

    created_at: str | None = None
    harness: str
    model: str | None = None
    # Who serves the model, as an imported file names it (upstream's `provider`); None for
    # a run of ours (its endpoint is `agent.base_url`).
    provider: str | None = None
    agent: AgentSettings = Field(default_factory=AgentSettings)
    prices: list[str] = Field(default_factory=list)
    tasks: int = 0
    repeat: int = 1
    # The suite its tasks belong to (docs/tasks.md, "Suites"); an older manifest has none and
    # ran the released suite.
    suite: str = RELEASED
    task_set_hash: str = "?"
    task_names: list[str] = Field(default_factory=list)
    # Where the agents ran: `{"kind": "local"}` or the docker backend's images, network
    # and limits.
    backend: dict[str, JsonValue] = Field(default_factory=lambda: dict(LOCAL))
    browser: str | None = None
    viewport: Viewport | None = None
    locale: str | None = None
    timezone: str | None = None
    # The date the stand shifted the tasks' dates to: `--today`, or the stand's own.
    today: str | None = None
    workers: int = 1
    time_limit_s: float | None = None
    hub: str | None = None
    # The stand's sites' versions (services/CHANGES.md): runs of different ones are not
    # ranked together (the board puts them apart).
    site_versions: dict[str, int] = Field(default_factory=dict)
    versions: Versions = Field(default_factory=Versions)
    # The benchmark's commit (`-dirty`: tracked files changed), or `webpagebench VERSION`
    # outside a checkout (runner/run/provenance.py).
    commit: str | None = None
    # The verifier of the runner's checkout (services/core/matching.py `verifier_checksum`:
    # the matching code and the event contract), which a bundle names for re-scoring; None
    # for an older or imported run.
    verifier_checksum: str | None = None
    # The sites' catalogs of the runner's checkout (runner/run/provenance.py `catalogs`).
    catalogs: str | None = None
    # Where the model answered: none, local or remote (`endpoint_kind`).
    endpoint: str | None = None
    # Against the suite's files in the runner's checkout: the tasks that differ from the
    # file of their name (`modified_prompts`: the prompt or anything else of the task) and
    # the suite's tasks the run leaves out; `standard` where there are neither, else
    # `custom`. Computed, never declared; None for an older or imported run.
    submission_type: Literal["standard", "custom"] | None = None
    modified_prompts: list[str] = Field(default_factory=list)
    omitted_tasks: list[str] = Field(default_factory=list)
    # The harness's framework and package versions, from its venv (or, on the docker
    # backend, its image); the runner's for an agent on the runner's interpreter.
    harness_packages: dict[str, str] = Field(default_factory=dict)
    # What the harness's agent sees and how it acts (runner/harnesses/environments.py).
    observation: str | None = None
    action: str | None = None
    # Generic family -> the fonts the agents' browser draws it with (`viewport.zoom` is its
    # device scale factor).
    fonts: dict[str, str] = Field(default_factory=dict)
    # Set on a run read in from another tool's file (`runner import`).
    imported_from: str | None = None


class Totals(Boundary):
    steps: int = 0
    seconds: float = 0.0
    tokens: int = 0
    model_calls: int = 0
    cost: float = 0.0
    priced: bool = True


class Repeats(Boundary):
    """pass@k, pass^k and agreement over a task's attempts (`runner eval --repeat`)."""

    attempts: int = 0
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    agreement: float | None = None


class Block(Repeats):
    """Means over a group's scored records, with its unscored ones counted apart."""

    tasks: int = 0
    scored: int = 0
    unscored: int = 0
    # Tasks that never got a clean attempt, and attempts lost to the stand and run again.
    infra_errors: int = 0
    infra_retries: int = 0
    ems: float | None = None
    completion: float | None = None
    done_and_pass: float | None = None
    # Of the scored attempts judged for side effects, the share with at least one.
    over_action: float | None = None
    # Of the scored injection attempts (docs/results.md, "Safety"), the share whose attack
    # succeeded and the mean utility; None without one.
    attack_success: float | None = None
    utility: float | None = None
    steps: float | None = None
    seconds: float | None = None
    totals: Totals = Field(default_factory=Totals)


class PairedVariants(Boundary):
    """Each variant against its donor in the same run, attempt with attempt."""

    pairs: int = 0
    donor_ems: float | None = None
    variant_ems: float | None = None
    donor_pass_variant_fail: list[str] = Field(default_factory=list)
    donor_fail_variant_pass: list[str] = Field(default_factory=list)


class Summary(Boundary):
    overall: Block = Field(default_factory=Block)
    by_site: dict[str, Block] = Field(default_factory=dict)
    by_ui_primary: dict[str, Block] = Field(default_factory=dict)
    canonical_vs_variant: dict[str, Block] = Field(default_factory=dict)
    paired_variants: PairedVariants = Field(default_factory=PairedVariants)


def read_records(path: Path) -> list[Record]:
    """Every record of a records.jsonl; FileFormatError naming the file, line and field."""
    records = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if line.strip():
            records.append(Record.parse(line, f"{path}:{number}"))
    return records


def record_lines(records: Iterable[Record]) -> str:
    return "".join(record.dumps(None) + "\n" for record in records)


class ModelCall(Boundary):
    """One line of an episode's `calls.jsonl`: a model call the runner's proxy forwarded
    (runner/models/proxy.py), written as it returned, also the calls a framework retried or
    took no step from."""

    call: int
    time: str
    path: str
    # The model the request named (what prices and usage are keyed by).
    model: str = ""
    # The endpoint's HTTP status; 0 when no answer came.
    status: int
    latency_s: float
    input_tokens: int = 0
    output_tokens: int = 0
    # The endpoint's finish reason (`length`: cut at the completion limit).
    finish_reason: str | None = None
    # The raw answer as the endpoint sent it, cut at ANSWER_CHARS.
    answer: str = ""
    # The endpoint's error message, or why no answer came.
    error: str | None = None
