"""WebPageBench as an Inspect AI task (docs/frameworks.md):
`inspect eval webpagebench/webpagebench`."""
