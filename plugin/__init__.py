"""MapAsk: the question pipeline (core/), its QGIS glue (qgis/) and the command line (cli.py)."""
