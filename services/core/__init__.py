"""The benchmark's core: what the runner, the validator and any outside tool need, with no
web framework and no broker client. The event contract (`contract`), matching (`matching`),
the task format (`tasks`), the declared sites (`sites`), the UI variants (`variants`), the
date shift (`dateshift`), the checks of ids and keys (`keys`), Russian declension
(`russian`), the errors every reader raises (`errors`) and the results people publish
(`results`: statistics, the board)."""
