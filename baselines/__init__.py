"""Baselines and peers that evalkit compares the proposed method against."""

__all__: list[str] = []
