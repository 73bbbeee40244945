"""MapAsk's Processing provider and algorithms (mapask:ask, mapask:askfile)."""
