"""A seventh site from outside the project's packages (docs/sites.md, "Adding a site"): one
screen, one event of its own, one task, its own oracle solver and its own descriptor."""
