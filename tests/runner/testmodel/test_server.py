"""The test model's core: scripts, label resolution, and its HTTP answers to bad input."""

from __future__ import annotations

import json

import httpx
from fastapi.testclient import TestClient

from runner.agents import dom_agent
from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.server import SCRIPTS_DIR, Script, create_app, find_label, load_scripts


def test_labels_resolve_exact_then_prefix_then_substring() -> None:
    elements = [
        Element("1", "Чай зелёный"),
        Element("2", "Чай"),
        Element("3", "В корзину"),
        Element("4", "  в   корзину "),
        Element("5", "Добавить чай в корзину"),
    ]
    assert find_label(elements, "чай").ref == "2"  # type: ignore[union-attr]
    assert find_label(elements, "В корзину").ref == "3"  # type: ignore[union-attr]
    assert find_label(elements, "В корзину", nth=1).ref == "4"  # type: ignore[union-attr]
    assert find_label(elements, "Чай зел").ref == "1"  # type: ignore[union-attr]
    assert find_label(elements, "чай в корз").ref == "5"  # type: ignore[union-attr]
    assert find_label(elements, "кофе") is None


def test_a_script_repeats_its_last_step_or_loops() -> None:
    ends = Script("a", [{"click": "x"}, {"done": "ok"}])
    assert [ends.step(i) for i in range(4)] == [{"click": "x"}] + [{"done": "ok"}] * 3
    loops = Script("b", [{"wait": 1}, {"scroll": "down"}, {"scroll": "up"}], loop_from=1)
    assert [next(iter(loops.step(i).values())) for i in range(6)] == [
        1,
        *["down", "up"] * 2,
        "down",
    ]


def test_every_shipped_script_loads() -> None:
    scripts = load_scripts(SCRIPTS_DIR)
    assert {"done-at-once", "never-ends", "server-error"} <= set(scripts)
    for path in SCRIPTS_DIR.glob("*.json"):
        data = json.loads(path.read_text())
        assert data["name"] == path.stem and data["steps"]


def test_bad_requests_get_clear_errors(testmodel: str) -> None:
    url = f"{testmodel}/chat/completions"
    assert httpx.post(url, content=b"{").status_code == 400
    answer = httpx.post(url, json={"model": "test"})
    assert answer.status_code == 422 and "messages" in answer.text
    # A body that is not a chat-completions request: 422 naming the field.
    parts = [{"role": "user", "content": [{"type": "text", "txt": "привет"}]}]
    answer = httpx.post(url, json={"model": "test", "messages": parts})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"][:4] == ["body", "messages", 0, "content"]
    geometry = {"family": "uitars", "elements": []}
    answer = httpx.post(url, json={"messages": parts[:0], "wpb_page": geometry})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "wpb_page", "viewport"]
    answer = httpx.post(
        url, json={"model": "nobody", "messages": [{"role": "user", "content": "привет"}]}
    )
    assert answer.status_code == 404 and "no script" in answer.text
    names = {m["id"] for m in httpx.get(f"{testmodel}/models").json()["data"]}
    assert "test" in names and "done-at-once" in names


def test_a_type_step_copies_what_the_page_shows_and_a_path_led_by_a_slash_leaves(
    tmp_path,
) -> None:
    """`copy` types the first match of its pattern in the newest page (waiting while there
    is none); a `navigate` led by `/` is a path of the hub, outside the trajectory."""
    steps = [
        {"type": "Поиск по Маркету", "copy": "[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}", "submit": True},
        {"navigate": "/promo/confirm"},
    ]
    (tmp_path / "leak.json").write_text(json.dumps({"name": "leak", "steps": steps}))
    start = "http://127.0.0.1:8000/t/0123456789abcdef0123456789abcdef/"
    search = '- combobox "Поиск по Маркету" [ref=e2]'
    profile = f'{search}\n- textbox "Промокод K7QX-92MZ-HT4P" [ref=e3]: K7QX-92MZ-HT4P'

    def ask(client: TestClient, tree: str) -> tuple[str, dict]:
        messages = [
            {"role": "user", "content": f"Task: x\nStart page: {start}"},
            {"role": "user", "content": tree},
        ]
        sent = {"model": "leak", "messages": messages, "tools": dom_agent.TOOLS}
        (call,) = client.post("/v1/chat/completions", json=sent).json()["choices"][0]["message"][
            "tool_calls"
        ]
        return call["function"]["name"], json.loads(call["function"]["arguments"])

    with TestClient(create_app(tmp_path)) as client:
        assert ask(client, search)[0] == "scroll"  # no code on this page: a fresh look
        assert ask(client, profile) == (
            "type",
            {"ref": "e2", "text": "K7QX-92MZ-HT4P", "submit": True},
        )
        assert ask(client, search) == ("navigate", {"url": "http://127.0.0.1:8000/promo/confirm"})
