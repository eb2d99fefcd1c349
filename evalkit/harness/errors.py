"""The harness's one-line errors: a runner that cannot work as configured, a cache that cannot
be written."""

__all__ = ["CacheWriteError", "RunnerError", "cache_write_line"]


class RunnerError(RuntimeError):
    """The runner cannot work as configured (a bad setting, an unreachable scheduler):
    one line for the user, raised before any page is read."""


class CacheWriteError(RunnerError):
    """The extraction cache cannot be written (a full or read-only disk): the run stops with
    one line naming the cache folder, not the run folder (issue 37, item 17)."""


def cache_write_line(root, exc: OSError) -> str:
    """The one line of a write to the cache folder ``root`` that failed with ``exc``."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "OSError")
    return (
        f"cannot write to the extraction cache {root} (paths.cache): {name}: "
        f"{exc.strerror or exc}; free space there, set paths.cache to another folder, "
        "or runner.cache=false"
    )
