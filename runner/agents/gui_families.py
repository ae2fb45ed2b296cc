"""The model families the `gui` agent speaks: for each, a system prompt describing the
family's published action space, a parser from its answer to normalized actions, and the
coordinate frame its points are written in. Pydantic and the chat shapes only (the test
model's image imports it); nothing is evaluated (pyautogui code is read with `ast`, literals
with `ast.literal_eval`).

Families:
- `uitars`: UI-TARS text, `Thought: …` then `Action: click(start_box='(x,y)')`; points on a
  0..1000 grid (UI-TARS-1.5 answers in resized pixels: options `coords: "resized"`).
- `qwen3vl`: Qwen3-VL's `computer_use` function, `<tool_call>{"name": "computer_use",
  "arguments": {"action": "left_click", "coordinate": [x, y]}}</tool_call>`; a 0..999 grid.
- `opencua`: OpenCUA's `## Thought / ## Action / ## Code` with pyautogui code; pixels of
  the image after Qwen2.5-VL's smart resize (OpenCUA-7B/32B; the Qwen2-based models
  answer in 0..1: `coords: "0..1"`).
- `fara`: Fara-7B's `computer_use` function (its own action set: visit_url, history_back,
  …) in `<tool_call>` JSON, in smart-resized pixels; pyautogui code is read as well.
- `evocua`: Meituan's EvoCUA-8B/32B (the EvoCUA technical report and the meituan/EvoCUA
  repository's agent, its "S2" prompt style, the released models' default): Qwen3-VL's
  `computer_use` function less hscroll and answer, with key_down/key_up added; one
  `Action: …` line, then one `<tool_call>`; points on a 0..999 grid (its prompt calls the
  screen 1000x1000, its agent divides by 999); terminate carries only a status, so the
  Action line is the last word.
- `jedi`: XLang's Jedi-3B/7B-1080p (the OSWorld-G paper, "Scaling Computer-Use Grounding via
  User Interface Decomposition and Synthesis", and the Jedi agents in OSWorld): Qwen2.5-VL's
  `computer_use` function (no triple_click, hscroll or answer) in `<tool_call>` JSON, in
  pixels of the image after Qwen2.5-VL's smart resize (its agent caps the area at
  2700·28·28 px, which leaves a 1280x800 screenshot at 1288x812 as here); its agent takes
  an `Action: …` line before the call as the step's words, asked for here and the last word,
  since its terminate too carries only a status.

Frames: `pixels` (the image sent), `resized` (that image after smart resize, factor 28),
`0..1`, `0..999` and `0..1000` (fractions of the width and height).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, NotRequired, TypedDict, cast

from pydantic import ConfigDict, Field, JsonValue, ValidationError

from runner.agents.chat import ToolCall, ToolDefinition
from services.core.models.base import Boundary, describe
from services.core.models.run import ReportStatus

FRAMES = ("pixels", "resized", "0..1", "0..999", "0..1000")
# Qwen2.5-VL's image processor: sides are multiples of 28, the area within these bounds.
RESIZE_FACTOR = 28
MIN_PIXELS = 56 * 56
MAX_PIXELS = 28 * 28 * 16384

# What the executor does; anything else is downgraded or refused.
EXECUTABLE = {
    "click", "double_click", "move", "drag", "type", "key", "scroll", "wait",
    "navigate", "back", "forward", "reload", "answer", "memo", "done",
}  # fmt: skip
DOWNGRADES = {"right_click": "click", "middle_click": "click", "triple_click": "click"}


class ParseError(ValueError):
    """The answer holds no action the family's format allows."""


def smart_resize(width: int, height: int) -> tuple[int, int]:
    """The size Qwen2.5-VL-based models see an image at (and point in)."""
    w = max(RESIZE_FACTOR, round(width / RESIZE_FACTOR) * RESIZE_FACTOR)
    h = max(RESIZE_FACTOR, round(height / RESIZE_FACTOR) * RESIZE_FACTOR)
    if w * h > MAX_PIXELS:
        beta = math.sqrt(width * height / MAX_PIXELS)
        w = math.floor(width / beta / RESIZE_FACTOR) * RESIZE_FACTOR
        h = math.floor(height / beta / RESIZE_FACTOR) * RESIZE_FACTOR
    elif w * h < MIN_PIXELS:
        beta = math.sqrt(MIN_PIXELS / (width * height))
        w = math.ceil(width * beta / RESIZE_FACTOR) * RESIZE_FACTOR
        h = math.ceil(height * beta / RESIZE_FACTOR) * RESIZE_FACTOR
    return w, h


@dataclass(frozen=True)
class Screen:
    """The viewport (CSS px), the image the model was sent (px), and the frame it points in."""

    viewport: tuple[int, int]
    image: tuple[int, int]
    frame: str

    @property
    def extent(self) -> tuple[float, float]:
        """The frame's width and height: a point (extent) is the bottom right corner."""
        if self.frame == "pixels":
            return float(self.image[0]), float(self.image[1])
        if self.frame == "resized":
            w, h = smart_resize(*self.image)
            return float(w), float(h)
        if self.frame == "0..1":
            return 1.0, 1.0
        if self.frame in ("0..999", "0..1000"):
            return 1000.0, 1000.0
        raise ValueError(f"coords: unknown frame {self.frame!r}; known: {', '.join(FRAMES)}")

    def to_viewport(self, x: float, y: float) -> tuple[float, float]:
        """A model's point in CSS px, clamped to the viewport."""
        ew, eh = self.extent
        if self.frame in ("pixels", "resized") and 0 <= x <= 1 and 0 <= y <= 1:
            ew, eh = 1.0, 1.0  # fractions where pixels were asked for: read them as such
        vw, vh = self.viewport
        return (
            min(max(x / ew * vw, 0.0), vw - 1.0),
            min(max(y / eh * vh, 0.0), vh - 1.0),
        )

    def describe(self) -> str:
        """The coordinate rule, for a prompt."""
        if self.frame in ("pixels", "resized"):
            w, h = (int(v) for v in self.extent)
            return (
                f"Coordinates are pixels of a {w}x{h} screen: x from 0 (left) to {w - 1}, "
                f"y from 0 (top) to {h - 1}."
            )
        if self.frame == "0..1":
            return "Coordinates are fractions of the screen: x and y from 0.0 to 1.0."
        top = 999 if self.frame == "0..999" else 1000
        return (
            f"Coordinates are on a grid over the screenshot: x from 0 (left edge) to {top} "
            f"(right edge), y from 0 (top edge) to {top} (bottom edge), whatever its size."
        )


Point = tuple[float, float]


class ActionRecord(TypedDict):
    """An action as steps.jsonl records it: only what is set; `at` is its point in the
    viewport."""

    name: str
    point: NotRequired[list[float]]
    end: NotRequired[list[float]]
    text: NotRequired[str]
    keys: NotRequired[list[str]]
    direction: NotRequired[str]
    amount: NotRequired[float]
    seconds: NotRequired[float]
    status: NotRequired[ReportStatus]
    submit: NotRequired[bool]
    note: NotRequired[str]
    at: NotRequired[list[int]]


class SequenceRecord(TypedDict):
    """The actions of one answer that held several."""

    name: Literal["sequence"]
    actions: list[ActionRecord]


@dataclass
class Action:
    """One normalized action; points stay in the model's frame until executed."""

    name: str
    point: Point | None = None  # None: where the pointer is
    end: Point | None = None  # drag's end
    text: str = ""
    keys: tuple[str, ...] = ()
    direction: str = ""  # scroll: up, down, left, right
    amount: float | None = None  # scroll: CSS px; None: the executor's default
    seconds: float = 0.0
    status: ReportStatus = "done"  # done: the agent's report
    submit: bool = False  # type: press Enter afterwards
    clear: bool = False  # type: select and delete what the field holds first
    notes: list[str] = field(default_factory=list)

    def record(self) -> ActionRecord:
        """For steps.jsonl: only what is set."""
        out: ActionRecord = {"name": self.name}
        if self.point is not None:
            out["point"] = list(self.point)
        if self.end is not None:
            out["end"] = list(self.end)
        if self.text:
            out["text"] = self.text
        if self.keys:
            out["keys"] = list(self.keys)
        if self.direction:
            out["direction"] = self.direction
        if self.amount:
            out["amount"] = self.amount
        if self.seconds:
            out["seconds"] = self.seconds
        if self.name == "done":
            out["status"] = self.status
        if self.submit:
            out["submit"] = True
        if self.notes:
            out["note"] = "; ".join(self.notes)
        return out


def executable(action: Action) -> Action:
    """The action the executor can do: one it lacks becomes its nearest kin, with a note."""
    if action.name in DOWNGRADES:
        kin = DOWNGRADES[action.name]
        return replace(action, name=kin, notes=[*action.notes, f"{action.name} done as {kin}"])
    if action.name not in EXECUTABLE:
        raise ParseError(f"the action {action.name!r} is not available here")
    return action


# Key names as models write them -> Playwright's.
KEY_NAMES = {
    "ctrl": "Control", "control": "Control", "alt": "Alt", "option": "Alt",
    "shift": "Shift", "cmd": "Meta", "command": "Meta", "meta": "Meta", "win": "Meta",
    "super": "Meta", "enter": "Enter", "return": "Enter", "esc": "Escape",
    "escape": "Escape", "tab": "Tab", "backspace": "Backspace", "delete": "Delete",
    "del": "Delete", "space": "Space", "up": "ArrowUp", "down": "ArrowDown",
    "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight",
    "pageup": "PageUp", "pgup": "PageUp", "pagedown": "PageDown", "pgdn": "PageDown",
    "home": "Home", "end": "End", "insert": "Insert",
}  # fmt: skip


def key_name(key: str) -> str:
    key = key.strip()
    low = key.lower().replace("_", "")
    if low in KEY_NAMES:
        return KEY_NAMES[low]
    if re.fullmatch(r"f\d{1,2}", low):
        return low.upper()
    return key if len(key) == 1 else key[:1].upper() + key[1:]


def split_keys(text: str) -> tuple[str, ...]:
    """'ctrl c', 'ctrl+c', 'Control-C' -> ('Control', 'c')."""
    parts = [p for p in re.split(r"[\s+]+|(?<=\w)-(?=\w)", text.strip()) if p]
    return tuple(key_name(p) for p in parts)


NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


# A terminate's status, as the families write it (success and failure) and as the prompts
# here add (infeasible, needs_input), -> the agent's report.
TERMINATE_STATUSES: dict[str, ReportStatus] = {
    "success": "done",
    "failure": "gave_up",
    "infeasible": "infeasible",
    "needs_input": "needs_input",
}
TERMINATE_WORDS = (
    "success (the task is done), failure (you could not do it), infeasible (what it asks "
    "does not exist or cannot be had) or needs_input (it is ambiguous: ask the user)"
)


def terminate_status(value: object) -> ReportStatus:
    status = str(value or "success").strip().lower()
    if status not in TERMINATE_STATUSES:
        raise ParseError(f"terminate status {status!r}: one of {', '.join(TERMINATE_STATUSES)}")
    return TERMINATE_STATUSES[status]


def point_of(value: Any) -> Point:
    """'(x,y)', '<|box_start|>(x,y)<|box_end|>', '<point>x y</point>', '[x1,y1,x2,y2]'
    (the box's centre), [x, y]."""
    numbers = (
        [float(v) for v in value]
        if isinstance(value, list | tuple)
        else [float(n) for n in NUMBER.findall(str(value))]
    )
    if len(numbers) == 2:
        return numbers[0], numbers[1]
    if len(numbers) == 4:
        return (numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2
    raise ParseError(f"not a point: {value!r}")


def submitted(text: str) -> tuple[str, bool]:
    """A typed text that ends with a newline asks for Enter."""
    if text.endswith("\n"):
        return text.rstrip("\n"), True
    return text, False


# -- UI-TARS -------------------------------------------------------------------------------

UITARS_ACTIONS = """click(start_box='(x,y)')
left_double(start_box='(x,y)')
right_single(start_box='(x,y)')
drag(start_box='(x1,y1)', end_box='(x2,y2)')
hotkey(key='ctrl a')
type(content='text')
scroll(start_box='(x,y)', direction='down')
wait()
finished(content='answer')
call_user(content='question')
report(status='infeasible', content='why')"""


def uitars_prompt(screen: Screen) -> str:
    return f"""You use a web browser for the user, seeing only screenshots of it. The sites \
are in Russian. Each turn, look at the newest screenshot and take the next single action \
toward the task.

Reply in exactly this form:
Thought: what you see and what you do next, in one or two sentences
Action: one action from the list

{UITARS_ACTIONS}

{screen.describe()} click, left_double and right_single press at the point; drag holds \
the button from start to end. hotkey takes key names separated by spaces. type writes \
into the field that has the focus (click it first); end the text with \\n to press Enter. \
scroll turns the wheel over the point, direction down, up, left or right. wait pauses \
and shows a new screenshot. finished ends the task: put the answer or a short report in \
content. If the task cannot be done as asked, do nothing else: call_user asks the user \
when it is ambiguous or needs the user's decision, report with status='infeasible' says \
that what it asks does not exist or cannot be had (status='gave_up': you could not do \
it). Escape quotes and line breaks in quoted text (\\', \\n)."""


UITARS_CALL = re.compile(r"^\s*([a-z_]+)\((.*)\)\s*$", re.DOTALL)
UITARS_KWARG = re.compile(r"(\w+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\")", re.DOTALL)


def uitars_calls(section: str) -> list[tuple[str, dict[str, str]]]:
    """The calls in an Action section: read as Python where it is Python, else by pattern."""
    try:
        tree = ast.parse(section.strip())
        calls: list[tuple[str, dict[str, str]]] = []
        for node in tree.body:
            if not (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
            ):
                raise SyntaxError("not a call")
            kwargs = {k.arg: str(ast.literal_eval(k.value)) for k in node.value.keywords if k.arg}
            for index, arg in enumerate(node.value.args):  # click('(1,2)') -> first argument
                kwargs.setdefault(f"_{index}", str(ast.literal_eval(arg)))
            calls.append((node.value.func.id, kwargs))
        return calls
    except (SyntaxError, ValueError):
        pass
    calls = []
    for chunk in re.split(r"\n\s*\n|\n(?=[a-z_]+\()", section.strip()):
        match = UITARS_CALL.match(chunk)
        if not match:
            raise ParseError(f"not an action: {chunk.strip()[:120]!r}")
        kwargs = {}
        for key, single, double in UITARS_KWARG.findall(match.group(2)):
            quote, raw = ("'", single) if single or not double else ('"', double)
            try:  # escapes as Python reads them
                kwargs[key] = str(ast.literal_eval(quote + raw.replace("\n", "\\n") + quote))
            except (SyntaxError, ValueError):
                kwargs[key] = raw
        calls.append((match.group(1), kwargs))
    return calls


UITARS_POINTER = {
    "click": "click",
    "left_single": "click",
    "left_double": "double_click",
    "right_single": "right_click",
    "mouse_move": "move",
    "hover": "move",
    "move_to": "move",
}


def uitars_point(kwargs: dict[str, str], *keys: str) -> Point | None:
    """The first of `keys` the call gives, as a point."""
    for key in keys:
        if kwargs.get(key):
            return point_of(kwargs[key])
    return None


def uitars_action(name: str, kw: dict[str, str]) -> Action:
    """One UI-TARS call as an action."""
    start = uitars_point(kw, "start_box", "point", "start_point", "_0")
    if name in UITARS_POINTER:
        return Action(UITARS_POINTER[name], point=start)
    if name in ("drag", "select"):
        end = uitars_point(kw, "end_box", "end_point", "_1")
        if start is None or end is None:
            raise ParseError(f"{name} needs start_box and end_box")
        return Action("drag", point=start, end=end)
    if name in ("hotkey", "press", "keydown", "keyup"):
        keys = split_keys(kw.get("key") or kw.get("keys") or kw.get("_0", ""))
        if not keys:
            raise ParseError(f"{name} without keys")
        notes = [f"{name} done as a key press"] if name in ("keydown", "keyup") else []
        return Action("key", keys=keys, notes=notes)
    if name == "type":
        text, enter = submitted(kw.get("content", kw.get("_0", "")))
        return Action("type", text=text, submit=enter)
    if name == "scroll":
        direction = (kw.get("direction") or "down").strip().lower()
        if direction not in ("up", "down", "left", "right"):
            raise ParseError(f"scroll direction {direction!r}")
        return Action("scroll", point=start, direction=direction)
    if name == "wait":
        return Action("wait", seconds=2.0)
    if name == "finished":
        return Action("done", text=kw.get("content", kw.get("_0", "")))
    if name == "call_user":
        question = kw.get("content", kw.get("_0", "")) or "the model asked the user for help"
        return Action("done", text=question, status="needs_input")
    if name == "report":
        status = kw.get("status", "infeasible").strip().lower()
        if status not in ("infeasible", "needs_input", "gave_up"):
            raise ParseError(f"report status {status!r}: infeasible, needs_input or gave_up")
        return Action("done", text=kw.get("content", ""), status=cast(ReportStatus, status))
    raise ParseError(f"unknown action {name!r}")


def parse_uitars(content: str, tool_calls: list[ToolCall]) -> list[Action]:
    match = re.search(r"Action\s*:\s*(.*)", content, re.DOTALL)
    if not match:
        raise ParseError("no 'Action:' line")
    actions = [uitars_action(name, kw) for name, kw in uitars_calls(match.group(1))]
    if not actions:
        raise ParseError("an empty Action section")
    return actions


# -- computer_use function calls (Qwen3-VL, Fara, EvoCUA, Jedi) ---------------------------

QWEN3VL_ACTIONS = {
    "key": 'press keys together, listed in `keys` (e.g. ["ctrl", "a"])',
    "type": "type `text` into the focused field",
    "mouse_move": "move the pointer to `coordinate`",
    "left_click": "click at `coordinate`",
    "left_click_drag": "press at the pointer, drag to `coordinate`, release",
    "right_click": "right-click at `coordinate`",
    "middle_click": "middle-click at `coordinate`",
    "double_click": "double-click at `coordinate`",
    "triple_click": "triple-click at `coordinate`",
    "scroll": "turn the wheel by `pixels` (positive up, negative down) over `coordinate`",
    "hscroll": "turn the wheel sideways by `pixels` (positive right, negative left)",
    "wait": "wait `time` seconds and look again",
    "terminate": f"end the task with `status` {TERMINATE_WORDS}",
    "answer": "give the user the answer `text` (then terminate)",
}
# EvoCUA's S2 tool, as its enum lists it (its agent reads no hscroll or answer): Qwen3-VL's
# actions less those two, and a held key.
EVOCUA_ACTIONS = {
    **{name: what for name, what in QWEN3VL_ACTIONS.items() if name not in ("hscroll", "answer")},
    "key_down": "press the `keys` and hold them",
    "key_up": "release the `keys`",
}
# Jedi's tool is Qwen2.5-VL's computer_use: Qwen3-VL's without these.
JEDI_ACTIONS = {
    name: what
    for name, what in QWEN3VL_ACTIONS.items()
    if name not in ("triple_click", "hscroll", "answer")
}
FARA_ACTIONS = {
    "key": 'press keys together, listed in `keys` (e.g. ["Control", "a"])',
    "type": "click `coordinate`, type `text`",
    "mouse_move": "move the pointer to `coordinate`",
    "left_click": "click at `coordinate`",
    "scroll": "turn the wheel by `pixels` (positive up, negative down)",
    "visit_url": "open `url`",
    "web_search": "search the web for `query`",
    "history_back": "go back to the previous page",
    "pause_and_memorize_fact": "note a `fact` for later",
    "wait": "wait `time` seconds and look again",
    "refresh": "reload the page",
    "terminate": f"end the task with `status` {TERMINATE_WORDS}",
}


THINK_THEN_CALL = "Think briefly, then call the function."
# EvoCUA's and Jedi's answer: a one-sentence Action line, then the call.
ACTION_THEN_CALL = (
    "Write 'Action:' and what you do in one short sentence, then one call. When you end the "
    "task, the Action line is your report: put the answer in it."
)


def computer_use_prompt(
    screen: Screen, actions: dict[str, str], reply: str = THINK_THEN_CALL
) -> str:
    w, h = (int(v) for v in screen.extent) if screen.frame != "0..1" else (1, 1)
    listed = "\n".join(f"* `{name}`: {what}" for name, what in actions.items())
    properties: dict[str, JsonValue] = {
        "action": {"type": "string", "enum": list(actions), "description": listed},
        "coordinate": {"type": "array", "description": "[x, y] on the screen"},
        "keys": {"type": "array"},
        "text": {"type": "string"},
        "pixels": {"type": "number"},
        "time": {"type": "number"},
        "status": {"type": "string", "enum": list(TERMINATE_STATUSES)},
    }
    if "visit_url" in actions:
        properties.update(url={"type": "string"}, query={"type": "string"})
        properties.update(fact={"type": "string"}, press_enter={"type": "boolean"})
    function: ToolDefinition = {
        "type": "function",
        "function": {
            "name": "computer_use",
            "description": (
                "Work a web browser with mouse and keyboard, seeing it through screenshots. "
                + (f"The screen is {w}x{h}. " if screen.frame != "0..1" else "")
                + screen.describe()
            ),
            "parameters": {"type": "object", "properties": properties, "required": ["action"]},
        },
    }
    return f"""You use a web browser for the user, seeing only screenshots of it. The sites \
are in Russian. Each turn, look at the newest screenshot and take the next action toward \
the task. {reply}

# Tools

The functions you can call are listed as JSON between <tools></tools>:
<tools>
{json.dumps(function, ensure_ascii=False)}
</tools>

Call a function by writing a JSON object with its name and arguments between \
<tool_call></tool_call> tags:
<tool_call>
{{"name": "computer_use", "arguments": {{"action": "left_click", "coordinate": [100, 200]}}}}
</tool_call>"""


TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


class ComputerUse(Boundary):
    """The arguments of a computer_use call: both families' action sets (numbers are read
    as text where text is due)."""

    model_config = ConfigDict(coerce_numbers_to_str=True)

    action: str = Field(min_length=1)
    coordinate: list[float] | str | None = None
    start_coordinate: list[float] | str | None = None
    keys: list[str] | str | None = None
    key: str | None = None
    text: str = ""
    pixels: float | None = None
    time: float | None = None
    status: str = "success"
    answer: str | None = None
    url: str = ""
    fact: str = ""
    press_enter: bool = False
    delete_existing_text: bool = False


def function_calls(content: str, tool_calls: list[ToolCall]) -> list[ComputerUse]:
    """The computer_use arguments of each call: from `<tool_call>` text, or native tool calls
    where a server parsed them."""
    found: list[tuple[JsonValue, JsonValue]] = [
        (call.function.name, call.function.arguments) for call in tool_calls
    ]
    decoder = json.JSONDecoder()
    for block in TOOL_CALL.findall(content):
        try:
            item = decoder.raw_decode(block)[0]
        except ValueError as exc:
            raise ParseError(f"the tool call is not JSON: {exc}") from None
        if not isinstance(item, dict):
            raise ParseError("call the computer_use function")
        found.append((item.get("name"), item.get("arguments")))
    calls = []
    for name, args in found:
        if name not in ("computer_use", "computer"):
            raise ParseError("call the computer_use function")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError as exc:
                raise ParseError(f"the arguments are not JSON: {exc}") from None
        try:
            calls.append(ComputerUse.model_validate(args))
        except ValidationError as exc:
            raise ParseError(f"computer_use {describe(exc)}") from None
    return calls


COMPUTER_USE_POINTER = {
    "mouse_move": "move",
    "left_click": "click",
    "right_click": "right_click",
    "middle_click": "middle_click",
    "double_click": "double_click",
    "triple_click": "triple_click",
}
# Actions without a point: name -> the action made of the call's arguments.
COMPUTER_USE_OTHER: dict[str, Callable[[ComputerUse], Action]] = {
    "wait": lambda a: Action("wait", seconds=a.time or 2.0),
    "terminate": lambda a: Action("done", text=a.answer or "", status=terminate_status(a.status)),
    "answer": lambda a: Action("answer", text=a.text),
    "visit_url": lambda a: Action("navigate", text=a.url),
    "history_back": lambda a: Action("back"),
    "refresh": lambda a: Action("reload"),
    "pause_and_memorize_fact": lambda a: Action("memo", text=a.fact),
}


def computer_use_action(args: ComputerUse, allowed: dict[str, str]) -> list[Action]:
    name = args.action
    if name not in allowed:
        raise ParseError(f"unknown action {name!r}")
    point = point_of(args.coordinate) if args.coordinate is not None else None
    if name in COMPUTER_USE_POINTER:
        return [Action(COMPUTER_USE_POINTER[name], point=point)]
    if name in COMPUTER_USE_OTHER:
        return [COMPUTER_USE_OTHER[name](args)]
    if name in ("key", "key_down", "key_up"):
        given = args.keys or args.text or args.key or []
        keys = split_keys(given) if isinstance(given, str) else tuple(key_name(k) for k in given)
        if not keys:
            raise ParseError(f"{name} without keys")
        notes = [f"{name} done as a key press"] if name != "key" else []
        return [Action("key", keys=keys, notes=notes)]
    if name == "type":
        text, enter = submitted(args.text)
        typed = Action(
            "type", text=text, submit=enter or args.press_enter, clear=args.delete_existing_text
        )
        return [Action("click", point=point), typed] if point else [typed]
    if name == "left_click_drag":
        if point is None:
            raise ParseError("left_click_drag needs a coordinate")
        start = point_of(args.start_coordinate) if args.start_coordinate else None
        return [Action("drag", point=start, end=point)]
    if name in ("scroll", "hscroll"):
        pixels = args.pixels or 0.0
        if name == "scroll":
            direction = "up" if pixels > 0 else "down"
        else:
            direction = "right" if pixels > 0 else "left"
        return [Action("scroll", point=point, direction=direction, amount=wheel(abs(pixels)))]
    raise ParseError(f"the action {name!r} is not available here")


def wheel(amount: float) -> float | None:
    """Pixels to scroll; small numbers are wheel notches (100 px each), 0 the default."""
    if amount == 0:
        return None
    return amount * 100 if amount < 20 else amount


def parse_qwen3vl(content: str, tool_calls: list[ToolCall]) -> list[Action]:
    calls = function_calls(content, tool_calls)
    if not calls:
        raise ParseError("no <tool_call>")
    return [a for args in calls for a in computer_use_action(args, QWEN3VL_ACTIONS)]


ACTION_LINE = re.compile(r"^\s*Action\s*:\s*(.+)$", re.MULTILINE)


def last_words(content: str) -> str:
    """What an answer says outside its tool calls: its `Action:` line where it has one."""
    said = TOOL_CALL.sub("", content).strip()
    line = ACTION_LINE.search(said)
    return line.group(1).strip() if line else said


def spoken_calls(content: str, tool_calls: list[ToolCall], allowed: dict[str, str]) -> list[Action]:
    """The calls of a family whose terminate carries no answer and that has no answer call
    (Fara, EvoCUA, Jedi): the reply's own words are the final message."""
    calls = function_calls(content, tool_calls)
    if not calls:
        raise ParseError("no <tool_call>")
    actions = [a for args in calls for a in computer_use_action(args, allowed)]
    for action in actions:
        if action.name == "done" and not action.text:
            action.text = last_words(content)
    return actions


def parse_fara(content: str, tool_calls: list[ToolCall]) -> list[Action]:
    if not TOOL_CALL.search(content) and not tool_calls and "pyautogui." in content:
        return parse_pyautogui(content, tool_calls)
    return spoken_calls(content, tool_calls, FARA_ACTIONS)


def parse_evocua(content: str, tool_calls: list[ToolCall]) -> list[Action]:
    return spoken_calls(content, tool_calls, EVOCUA_ACTIONS)


def parse_jedi(content: str, tool_calls: list[ToolCall]) -> list[Action]:
    return spoken_calls(content, tool_calls, JEDI_ACTIONS)


# -- pyautogui code (OpenCUA) -------------------------------------------------------------

OPENCUA_API = """pyautogui.click(x, y)                      # clicks=2 for a double click
pyautogui.doubleClick(x, y)
pyautogui.rightClick(x, y)
pyautogui.moveTo(x, y)
pyautogui.dragTo(x, y)                     # from the pointer to (x, y)
pyautogui.scroll(clicks)                   # positive up, negative down
pyautogui.write('text')
pyautogui.press('enter')
pyautogui.hotkey('ctrl', 'a')
computer.wait()
computer.terminate(status='success', answer='...')   # or 'failure', 'infeasible', 'needs_input'"""


def opencua_prompt(screen: Screen) -> str:
    return f"""You use a web browser for the user, seeing only screenshots of it. The sites \
are in Russian. Each turn, look at the newest screenshot and take the next action toward \
the task.

Reply in exactly this form:
## Thought
what you see, what is done so far, what comes next
## Action
the next action in one sentence
## Code
```python
pyautogui.click(x=..., y=...)
```

The code may use only these calls, one or more lines run in order:
{OPENCUA_API}

{screen.describe()} Click a field before writing into it; press('enter') submits it. \
When the task is complete, call computer.terminate with the answer or a short report; \
its status is {TERMINATE_WORDS}."""


SIGNATURES = {
    "click": ("x", "y", "clicks", "interval", "button"),
    "doubleClick": ("x", "y"),
    "tripleClick": ("x", "y"),
    "triple_click": ("x", "y"),
    "rightClick": ("x", "y"),
    "middleClick": ("x", "y"),
    "moveTo": ("x", "y"),
    "dragTo": ("x", "y"),
    "scroll": ("clicks", "x", "y"),
    "hscroll": ("clicks", "x", "y"),
    "write": ("message", "interval"),
    "typewrite": ("message", "interval"),
    "press": ("keys", "presses", "interval"),
    "keyDown": ("key",),
    "keyUp": ("key",),
    "wait": ("seconds",),
    "sleep": ("seconds",),
    "terminate": ("status", "answer"),
}
CODE = re.compile(r"```(?:python|code|py)?\s*\n?(.*?)```", re.DOTALL)


def call_arguments(call: ast.Call, name: str) -> tuple[list[Any], dict[str, Any]]:
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except ValueError:
        raise ParseError(f"{name}: arguments must be literal values") from None
    return args, kwargs


def parse_pyautogui(content: str, tool_calls: list[ToolCall]) -> list[Action]:
    blocks = CODE.findall(content)
    code = blocks[-1] if blocks else content.split("## Code", 1)[-1]
    code = (
        "\n".join(
            line
            for line in code.splitlines()
            if line.strip().startswith(("pyautogui", "computer", "time", "import"))
        )
        if not blocks
        else code
    )
    try:
        tree = ast.parse(code.strip())
    except SyntaxError as exc:
        raise ParseError(f"the code is not Python: {exc.msg}") from None
    actions: list[Action] = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if not (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
            and node.value.func.value.id in ("pyautogui", "computer", "time")
        ):
            raise ParseError(f"not a pyautogui call: {ast.unparse(node)[:100]!r}")
        module, name = node.value.func.value.id, node.value.func.attr
        args, kwargs = call_arguments(node.value, f"{module}.{name}")
        if name == "hotkey":
            keys = tuple(key_name(str(k)) for k in args or kwargs.get("keys", []))
            actions.append(Action("key", keys=keys))
            continue
        params = dict(zip(SIGNATURES.get(name, ()), args, strict=False)) | kwargs
        actions.extend(pyautogui_action(f"{module}.{name}", name, params))
    if not actions:
        raise ParseError("no pyautogui call in the code")
    return actions


def pyautogui_action(full: str, name: str, p: dict[str, Any]) -> list[Action]:
    x = p.get("x")
    if isinstance(x, list | tuple):  # click((x, y))
        x, p["y"] = x[0], x[1]
    point = point_of([x, p["y"]]) if x is not None and p.get("y") is not None else None
    if name == "click":
        clicks = int(p.get("clicks") or 1)
        button = str(p.get("button") or "left")
        kind = {"right": "right_click", "middle": "middle_click"}.get(button)
        kind = kind or {1: "click", 2: "double_click"}.get(clicks, "triple_click")
        return [Action(kind, point=point)]
    kinds = {
        "doubleClick": "double_click",
        "tripleClick": "triple_click",
        "triple_click": "triple_click",
        "rightClick": "right_click",
        "middleClick": "middle_click",
        "moveTo": "move",
    }
    if name in kinds:
        return [Action(kinds[name], point=point)]
    if name == "dragTo":
        if point is None:
            raise ParseError("dragTo needs x and y")
        return [Action("drag", end=point)]
    if name in ("scroll", "hscroll"):
        notches = float(p.get("clicks") or 0)
        if name == "scroll":
            direction = "up" if notches > 0 else "down"
        else:
            direction = "right" if notches > 0 else "left"
        return [Action("scroll", point=point, direction=direction, amount=wheel(abs(notches)))]
    if name in ("write", "typewrite"):
        message = p.get("message", "")
        if isinstance(message, list):  # typewrite(['a', 'enter']): key presses
            return [Action("key", keys=(key_name(str(k)),)) for k in message]
        text, enter = submitted(str(message))
        return [Action("type", text=text, submit=enter)]
    if name in ("press", "keyDown", "keyUp"):
        keys = p.get("keys", p.get("key", ""))
        names = [keys] if isinstance(keys, str) else list(keys)
        notes = [f"{name} done as a key press"] if name != "press" else []
        times = max(1, min(int(p.get("presses") or 1), 20))
        return [
            Action("key", keys=(key_name(str(k)),), notes=notes)
            for _ in range(times)
            for k in names
        ]
    if name in ("wait", "sleep"):
        return [Action("wait", seconds=float(p.get("seconds") or 2))]
    if name == "terminate":
        status = terminate_status(p.get("status"))
        return [Action("done", text=str(p.get("answer") or ""), status=status)]
    raise ParseError(f"{full} is not available here")


# -- the families --------------------------------------------------------------------------


class GuiFamily(StrEnum):
    """The families by name (`runner eval --family`, the gui harness's option `family`)."""

    uitars = "uitars"
    qwen3vl = "qwen3vl"
    opencua = "opencua"
    fara = "fara"
    evocua = "evocua"
    jedi = "jedi"


@dataclass(frozen=True)
class Family:
    name: str
    frame: str  # the published default; options["coords"] overrides it
    prompt: Callable[[Screen], str]
    parse: Callable[[str, list[ToolCall]], list[Action]]
    # How the family writes "look again" and a reminder of its format, for a step error.
    reminder: str


FAMILIES: dict[str, Family] = {
    GuiFamily.uitars: Family(
        GuiFamily.uitars,
        "0..1000",
        uitars_prompt,
        parse_uitars,
        "Reply with 'Thought: …' and then 'Action: …' using one action from the list.",
    ),
    GuiFamily.qwen3vl: Family(
        GuiFamily.qwen3vl,
        "0..999",
        lambda screen: computer_use_prompt(screen, QWEN3VL_ACTIONS),
        parse_qwen3vl,
        "Call computer_use inside <tool_call></tool_call> with one of its actions.",
    ),
    GuiFamily.opencua: Family(
        GuiFamily.opencua,
        "resized",
        opencua_prompt,
        parse_pyautogui,
        "Reply with ## Thought, ## Action and a ```python block of pyautogui calls.",
    ),
    GuiFamily.fara: Family(
        GuiFamily.fara,
        "resized",
        lambda screen: computer_use_prompt(screen, FARA_ACTIONS),
        parse_fara,
        "Call computer_use inside <tool_call></tool_call> with one of its actions.",
    ),
    GuiFamily.evocua: Family(
        GuiFamily.evocua,
        "0..999",
        lambda screen: computer_use_prompt(screen, EVOCUA_ACTIONS, ACTION_THEN_CALL),
        parse_evocua,
        "Write 'Action: …', then call computer_use inside <tool_call></tool_call>.",
    ),
    GuiFamily.jedi: Family(
        GuiFamily.jedi,
        "resized",
        lambda screen: computer_use_prompt(screen, JEDI_ACTIONS, ACTION_THEN_CALL),
        parse_jedi,
        "Write 'Action: …', then call computer_use inside <tool_call></tool_call>.",
    ),
}
