"""Model roles, their resolution on this machine, verification, and the model backends.

Import the light parts from here; backends (clip, vlm) import heavy libraries lazily.
"""

from .registry import ROLES, ResolvedModel, inspect_path, require, resolve, resolve_all

__all__ = ["ROLES", "ResolvedModel", "inspect_path", "require", "resolve", "resolve_all"]
