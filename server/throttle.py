"""Token buckets: a burst, then a steady rate. Used per IP and per socket."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class TokenBucket:
    """Holds up to `burst` tokens, refilled at `rate` per second."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.stamp = self.clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, cost: float = 1.0) -> bool:
        """Spend `cost` tokens if there are enough; False (and nothing spent) otherwise."""
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def full(self) -> bool:
        """True when the bucket has refilled completely (an idle key)."""
        self._refill()
        return self.tokens >= self.burst

    def retry_after(self, cost: float = 1.0) -> float:
        """Seconds until `cost` tokens are available."""
        self._refill()
        missing = cost - self.tokens
        return 0.0 if missing <= 0 else missing / self.rate if self.rate > 0 else float("inf")


class KeyedBuckets:
    """One bucket per key (a client IP); idle keys are forgotten so the map stays small."""

    def __init__(self, rate: float, burst: float, max_keys: int = 10000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.max_keys, self.clock = rate, burst, max_keys, clock
        self._buckets: dict[str, TokenBucket] = {}

    def bucket(self, key: str) -> TokenBucket:
        """The bucket of `key`, created full."""
        b = self._buckets.get(key)
        if b is None:
            if len(self._buckets) >= self.max_keys:
                self._prune()
            b = self._buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
        return b

    def take(self, key: str, cost: float = 1.0) -> bool:
        """Spend from `key`'s bucket; False when it is empty."""
        return self.bucket(key).take(cost)

    def _prune(self) -> None:
        for key in [k for k, b in self._buckets.items() if b.full()]:
            del self._buckets[key]
        if len(self._buckets) >= self.max_keys:
            # Under a flood of distinct keys drop the oldest half rather than grow.
            for key in list(self._buckets)[: self.max_keys // 2]:
                del self._buckets[key]
