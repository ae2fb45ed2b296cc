"""The environment's server side: it runs beside the stand, in the benchmark's venv."""
