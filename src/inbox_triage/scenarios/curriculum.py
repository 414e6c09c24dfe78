"""A curriculum: raise (or lower) the generator's difficulty with a running success rate."""

from __future__ import annotations

from collections import deque
from typing import Any

from inbox_triage.scenarios.generator import PRESETS


class Curriculum:
    """Tracks recent grades and moves between difficulty presets.

    An episode counts as a success when its grade reaches ``success_grade``. Once ``window``
    episodes have been seen at a level, a success rate of ``promote_at`` or more moves up one
    level and one of ``demote_at`` or less moves down; the window then starts afresh.

    >>> curriculum = Curriculum()
    >>> env.reset(mode="inbox", seed=episode, **curriculum.reset_kwargs())   # doctest: +SKIP
    >>> curriculum.record(final_grade)                                      # doctest: +SKIP
    """

    def __init__(
        self,
        levels: tuple[str, ...] = ("easy", "medium", "hard"),
        window: int = 20,
        success_grade: float = 0.7,
        promote_at: float = 0.8,
        demote_at: float = 0.2,
        start: str | None = None,
    ) -> None:
        unknown = [level for level in levels if level not in PRESETS]
        if not levels or unknown:
            raise ValueError(f"levels must be presets from {list(PRESETS)}; got {list(levels)}")
        if window < 1 or not 0 <= demote_at < promote_at <= 1:
            raise ValueError("need window >= 1 and 0 <= demote_at < promote_at <= 1")
        self.levels = levels
        self.window = window
        self.success_grade = success_grade
        self.promote_at = promote_at
        self.demote_at = demote_at
        self.index = levels.index(start) if start is not None else 0
        self._recent: deque[bool] = deque(maxlen=window)

    @property
    def level(self) -> str:
        return self.levels[self.index]

    @property
    def success_rate(self) -> float:
        return sum(self._recent) / len(self._recent) if self._recent else 0.0

    def reset_kwargs(self) -> dict[str, Any]:
        """What to pass to ``reset`` for the next episode."""
        return {"difficulty": self.level}

    def record(self, grade: float) -> str | None:
        """Records a finished episode; returns the new level when it changed."""
        self._recent.append(grade >= self.success_grade)
        if len(self._recent) < self.window:
            return None
        rate = self.success_rate
        moved = None
        if rate >= self.promote_at and self.index < len(self.levels) - 1:
            self.index += 1
            moved = self.level
        elif rate <= self.demote_at and self.index > 0:
            self.index -= 1
            moved = self.level
        if moved is not None:
            self._recent.clear()
        return moved
