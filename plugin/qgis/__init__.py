"""QGIS glue for MapAsk: plugin object, PostGIS layers, styles and map rendering."""
