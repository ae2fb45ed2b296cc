"""Results people publish: the statistics, the board over runs, the comparison of two runs
and the charts. Here, in kit, because the runner (`runner board`, `runner compare`, the
static export) and the hub (`/view/board`, `/view/compare`) show the same figures."""
