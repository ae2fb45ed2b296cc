"""An agent for the `external` harness that tests the runner's side of the protocol: it
attaches to the episode's Chromium, reports what it sees, and then behaves as
`options["behaviour"]` says (finish, hang, step forever, fail its model, crash)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

from playwright.async_api import async_playwright

from runner.agents import protocol
from services.core.models.protocol import AgentInput


async def run(spec: AgentInput, recorder: protocol.Recorder) -> None:
    behaviour = spec.options.get("behaviour", "finish")
    if behaviour == "crash":
        sys.exit(3)  # no output.json at all
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(spec.cdp_url)
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(spec.start_url)
        seen = await page.evaluate(
            "() => ({width: innerWidth, height: innerHeight, language: navigator.language,"
            " timezone: Intl.DateTimeFormat().resolvedOptions().timeZone})"
        )
        recorder.step({"goto": spec.start_url}, url=page.url, screenshot=await page.screenshot())
        recorder.add_usage(spec.model.name, 1000, 50)
        if behaviour == "hang":
            # A child in the agent's session: the runner's kill must take it too.
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
            (spec.output_dir / "child.pid").write_text(str(child.pid))
            await asyncio.sleep(600)
        if behaviour == "steps":
            while True:
                recorder.step({"scroll": "down"}, url=page.url)
                await asyncio.sleep(0.05)
        if behaviour == "infra":
            raise ConnectionRefusedError("the model endpoint refused the connection")
        seen["api_key_set"] = bool(os.environ.get(spec.model.api_key_env or ""))
        seen["stand_settings"] = sorted(k for k in os.environ if k.startswith("WPB_"))
        recorder.finish("done", json.dumps(seen))


protocol.main(run)
