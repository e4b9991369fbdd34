"""Pure, deterministic game core. See docs/architecture.md."""
