"""Values derived from immutable objects that cannot be hashed (pydantic models), kept as long
as the object lives: a scenario's or a ticket's grading facts are worked out once, and shared
by every session that plays it."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ObjectMemo(Generic[K, V]):
    """``memo(obj)`` is ``build(obj)``, computed once per live object."""

    def __init__(self, build: Callable[[K], V]) -> None:
        self._build = build
        self._values: dict[int, tuple[weakref.ref[K], V]] = {}

    def __call__(self, obj: K) -> V:
        key = id(obj)
        hit = self._values.get(key)
        if hit is not None and hit[0]() is obj:
            return hit[1]
        value = self._build(obj)
        values = self._values
        self._values[key] = (weakref.ref(obj, lambda _: values.pop(key, None)), value)
        return value
