"""Shared test helpers: a real `sussurro serve` process (server_proc)."""
