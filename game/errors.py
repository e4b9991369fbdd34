"""The one error type of the game core."""

from __future__ import annotations

from typing import Any


class GameError(Exception):
    """An illegal action or setting. `code` is stable and translated by the UI.

    The state is never changed by an action that raises this.
    """

    def __init__(self, code: str, message: str = "", **detail: Any) -> None:
        super().__init__(message or code)
        self.code = code
        self.message = message or code
        self.detail = detail

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **({"detail": self.detail} if self.detail else {})}
