#!/bin/sh
# The browser tool of an exported Harbor task's box (runner/harbor/export.py: task.toml's MCP
# server `browser`, over stdio): Playwright's MCP server on the box's Chromium, headless, its
# profile in memory, at the benchmark's viewport.
exec playwright-mcp --browser chromium --executable-path /usr/bin/chromium --headless \
  --isolated --no-sandbox --viewport-size 1280x800 "$@"
