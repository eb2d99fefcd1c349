"""The base of the proposed method's stage objects: settings stored unchanged, checked when
made, a bad one named by its dotted key (``dedup.k=-1: ...``); see :mod:`evalkit.proposed.stages`."""

from __future__ import annotations

from typing import Any, ClassVar

from evalkit.core.method import param_names
from evalkit.core.validate import ParamError

__all__ = ["Stage"]


class Stage:
    """One stage's settings: keyword arguments stored unchanged, checked when made."""

    #: the config group (``method.proposed.<group>.<key>``)
    group: ClassVar[str] = ""
    #: whether the stage runs (stage 1.1 always does)
    enabled: bool = True

    def get_params(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def validate(self) -> Stage:
        """Check every setting; a bad one raises :class:`ParamError` naming
        ``<group>.<key>``."""
        try:
            self._check()
        except ParamError as exc:
            raise ParamError(
                [f"{self.group}.{n}" for n in exc.names], exc.values, exc.allowed
            ) from None
        return self

    def _check(self) -> None:  # pragma: no cover - every stage has its own
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
