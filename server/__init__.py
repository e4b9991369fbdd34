"""The imperative shell: FastAPI, aiortc, rooms, persistence."""
