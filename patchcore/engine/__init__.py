"""The engine: finding message lists, pairing calls with results, findings and their fixes."""
