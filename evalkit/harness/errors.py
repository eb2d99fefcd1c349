"""The harness's one-line error for a runner that cannot work as configured."""

__all__ = ["RunnerError"]


class RunnerError(RuntimeError):
    """The runner cannot work as configured (a bad setting, an unreachable scheduler):
    one line for the user, raised before any page is read."""
