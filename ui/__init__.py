"""MapAsk widgets: the dock panel (and later the audit panel and settings dialog)."""
