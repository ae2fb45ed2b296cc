"""WebPageBench's tasks as a Harbor dataset (docs/frameworks.md, "Harbor"): `export` writes
the task folders; in an exported task's containers `door` holds the trial's trajectory,
`verify` is its tests/test.sh and `solve` its solution/solve.sh."""
