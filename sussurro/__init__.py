"""The `sussurro` command: the one place that composes the server, the client and the core."""
