"""The board over runs and the comparison of two runs (docs/results.md): what `board.json`
holds, what the board pages and the terminal tables show."""

from __future__ import annotations

from pydantic import ConfigDict, Field, JsonValue

from services.core.models.base import Boundary
from services.core.models.run import Record, Repeats
from services.core.models.task import RELEASED


class Filter(Boundary):
    """Which records a board counts: one site, one UI class (primary), canonical or variant."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    site: str | None = None
    ui: str | None = None
    kind: str | None = None

    def keeps(self, record: Record) -> bool:
        return (
            (self.site is None or record.site == self.site)
            and (self.ui is None or record.ui_primary == self.ui)
            and (self.kind is None or record.kind == self.kind)
        )

    def chosen(self) -> dict[str, str]:
        """The facets it narrows, facet -> group."""
        return {facet: group for facet, group in self.model_dump().items() if group}


class RateView(Boundary):
    """`k` of `n`, its value and its Wilson 95% interval (`value` None when n is 0)."""

    value: float | None
    k: int
    n: int
    low: float
    high: float


class PairedView(Boundary):
    """Two results on the same attempts: `a_only` pass in A and fail in B; `delta` is B's
    rate minus A's with Newcombe's 95% interval; `p` McNemar's exact p-value."""

    n: int
    both: int
    a_only: int
    b_only: int
    neither: int
    delta: float | None
    low: float
    high: float
    p: float
    significant: bool


class Row(Repeats):
    """One model × harness: its run's records that the board's filter keeps."""

    model: str
    harness: str
    run: str
    created_at: str | None = None
    task_set: str
    # The verifier that judged the run (its manifest's `verifier_checksum`, 12 hex digits;
    # None for an older or imported run): the board flags rows judged by different ones.
    verifier: str | None = None
    repeat: int = 1
    ems: RateView
    completion: RateView
    done_and_pass: RateView
    # Said done, conditions failed: of every scored attempt, and of those that said done.
    gap: RateView
    false_done: RateView
    # Of the scored attempts judged for side effects, those with one (beside EMS, not in it).
    over_action: RateView
    steps: float | None = None
    seconds: float | None = None
    cost: float = 0.0
    priced: bool = True
    infra_errors: int = 0
    infra_retries: int = 0
    tasks_scored: int = 0
    tasks: int = 0
    attempts_scored: int = 0
    by_site: dict[str, RateView] = Field(default_factory=dict)
    by_ui: dict[str, RateView] = Field(default_factory=dict)
    by_kind: dict[str, RateView] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.model} · {self.harness}"


class Facets(Boundary):
    """The groups a board's records fall in, for its filter links."""

    site: list[str] = Field(default_factory=list)
    ui: list[str] = Field(default_factory=list)
    kind: list[str] = Field(default_factory=list)


class Pairwise(PairedView):
    """Row B against row A on the attempts both scored."""

    a: str
    b: str
    run_a: str
    run_b: str


class Sensitivity(Boundary):
    """The variant table: per control implementation and row, donor (A) against variant (B)."""

    controls: list[str] = Field(default_factory=list)
    cells: dict[str, dict[str, PairedView]] = Field(default_factory=dict)


class SafetyRow(Boundary):
    """One model × harness's safety figures on the records the board's filter keeps
    (docs/results.md, "Safety")."""

    model: str
    harness: str
    run: str
    # Of the scored injection attempts: utility 1 (the donor's conditions held), and the
    # attack succeeded (a sink fired); by carrier (`controls["inject"]`) and by goal (of
    # the attempts whose attack had that goal, those where its sink fired).
    utility: RateView
    attack_success: RateView
    by_carrier: dict[str, RateView] = Field(default_factory=dict)
    by_goal: dict[str, RateView] = Field(default_factory=dict)
    # Each variant against its clean donor in the newest run of the released suite by the
    # same model × harness (`donor_run`; None: the board holds none): A the donor's EMS, B
    # the variant's utility, attempt with attempt; overall and by variant.
    donor_run: str | None = None
    donors: PairedView | None = None
    by_variant: dict[str, PairedView] = Field(default_factory=dict)
    # Of the stopping tasks' scored attempts, by the status they require (`infeasible`,
    # `needs_input`): the agent reported it and did nothing the task forbids.
    refusal: dict[str, RateView] = Field(default_factory=dict)
    # Of the approval tasks' scored attempts (a `done` report required, the commit
    # forbidden): those whose forbidden commit happened.
    approval_violations: RateView
    over_action: RateView


class RobustnessRow(Boundary):
    """One model × harness's robustness figures on the records the board's filter keeps
    (docs/results.md, "Robustness")."""

    model: str
    harness: str
    run: str
    viewport: str  # `1280x800`
    # Each perturbation variant (A its donor's EMS in the newest released run by the same
    # model × harness at the same viewport, `donor_run`; B the variant's EMS), attempt with
    # attempt: overall and by perturbation.
    donor_run: str | None = None
    perturbed: PairedView | None = None
    by_perturbation: dict[str, PairedView] = Field(default_factory=dict)
    # At another viewport than the default: A the same model × harness's run of the suite
    # at the default viewport (`default_run`), B this run, attempt with attempt.
    default_run: str | None = None
    against_default: PairedView | None = None
    # Of the recovery attempts: EMS 1; and of those whose task forbids a commit already
    # made, the ones that made it again.
    recovery: RateView
    duplicate_commit: RateView


class Unmet(Boundary):
    """A condition that failed attempts of one row left unmet, and how many (the pages say
    it in words: services/core/results/wording.py)."""

    site: str
    event_name: str
    parameters: dict[str, JsonValue] = Field(default_factory=dict)
    forbidden: bool = False
    group: str | int | None = None
    attempts: int


class FailureRow(Boundary):
    """One model × harness's failed attempts by class, on the records the board's filter
    keeps (docs/results.md, "Failure classes")."""

    model: str
    harness: str
    run: str
    scored: int
    failed: int
    # Of the failed attempts: those of each class, and those tagged with it (another class
    # came first); only the classes that occur, in precedence order.
    by_class: dict[str, RateView] = Field(default_factory=dict)
    by_tag: dict[str, RateView] = Field(default_factory=dict)
    # class -> site (UI class) -> failed attempts of that class there.
    by_site: dict[str, dict[str, int]] = Field(default_factory=dict)
    by_ui: dict[str, dict[str, int]] = Field(default_factory=dict)
    # The conditions its failed attempts left unmet most often, the most first.
    unmet: list[Unmet] = Field(default_factory=list)


class GapView(Boundary):
    """A generated suite's EMS against that of the released tasks its families model: both
    rates and generated − released with Newcombe's interval for two independent rates
    (`significant` when it leaves out 0)."""

    released: RateView
    generated: RateView
    delta: float | None = None
    low: float = -1.0
    high: float = 1.0
    significant: bool = False


class HeldoutRow(Boundary):
    """One model × harness on the released suite and on a generated suite of the same
    families (docs/results.md, "The held-out gap"): overall and per family."""

    model: str
    harness: str
    released_run: str
    generated_run: str
    generated_suite: str
    overall: GapView
    by_family: dict[str, GapView] = Field(default_factory=dict)
    # Families of `by_family` with fewer distinct instances than SMALL_SPACE (30), by their
    # count: a new seed repeats their answers, so their figures hold out less.
    small: dict[str, int] = Field(default_factory=dict)


class Board(Boundary):
    """One suite's board: its rows on one task set (`task_set`, the manifests'
    `task_set_hash`), the suite's runs on other task sets `apart`; `suites` names every
    suite with runs (each a board of its own)."""

    suite: str = RELEASED
    suites: list[str] = Field(default_factory=list)
    task_set: str | None = None
    task_set_tasks: int = 0
    filter: Filter = Field(default_factory=Filter)
    sort: str = "ems"
    latest: bool = True
    facets: Facets = Field(default_factory=Facets)
    rows: list[Row] = Field(default_factory=list)
    pairwise: list[Pairwise] = Field(default_factory=list)
    variants: Sensitivity = Field(default_factory=Sensitivity)
    # A row's safety figures, in the rows' order; none where no row has an injection
    # attempt or a stopping task.
    safety: list[SafetyRow] = Field(default_factory=list)
    # A row's failed attempts by class, in the rows' order; none where no row has one. The
    # classes any of them has (as its class or a tag), in precedence order.
    failures: list[FailureRow] = Field(default_factory=list)
    failure_classes: list[str] = Field(default_factory=list)
    # A row's robustness figures, in the rows' order; none where no row has a perturbation
    # variant or a recovery task.
    robustness: list[RobustnessRow] = Field(default_factory=list)
    # A row's released-versus-generated gap, where the same model × harness has a run of
    # each; none where no row has both.
    heldout: list[HeldoutRow] = Field(default_factory=list)
    # Rows on other task sets, by set: not comparable with these.
    apart: dict[str, list[Row]] = Field(default_factory=dict)

    @property
    def verifiers(self) -> list[str]:
        """The verifiers the rows were judged by, where more than one did (else none)."""
        named = sorted({r.verifier for r in self.rows if r.verifier})
        return named if len(named) > 1 else []


class BoardFile(Boundary):
    """`board.json` of `runner board export`: the whole board and each filtered page's."""

    board: Board
    filtered: dict[str, Board] = Field(default_factory=dict)


class Side(Boundary):
    run: str
    model: str
    harness: str
    suite: str
    task_set: str


class Comparison(Boundary):
    """B against A on their common attempts: overall and by facet, with the flipped tasks."""

    a: Side
    b: Side
    same_task_set: bool
    common: int
    only_a: int
    only_b: int
    overall: PairedView
    by_site: dict[str, PairedView] = Field(default_factory=dict)
    by_ui: dict[str, PairedView] = Field(default_factory=dict)
    by_kind: dict[str, PairedView] = Field(default_factory=dict)
    pass_to_fail: list[str] = Field(default_factory=list)
    fail_to_pass: list[str] = Field(default_factory=list)
    # Attempts of one name whose tasks differ (their records' `task_hash`): not paired.
    changed: list[str] = Field(default_factory=list)
    # The manifest fields of the environment (and, for one harness, of its setup) whose
    # values differ: what besides the agent may explain a difference.
    differences: list[str] = Field(default_factory=list)
