"""Real-time DSP and mixing on numpy arrays. See docs/architecture.md."""
