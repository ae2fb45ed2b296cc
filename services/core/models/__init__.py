"""Every shape that crosses a process, defined once as a pydantic model: the run folder's
files (`run`: manifest, records, summary), the agent protocol's files (`protocol`), the
hub's trajectory API (`api`) and the embedded stack's state file (`stack`). Writers and
readers use the same model; a file an older version wrote, without a newer field, loads
with its default; a malformed one is refused with the file and the field named
(`FileFormatError`). `schemas` exports their JSON Schemas to docs/schemas/."""
