"""`mmrag models`: every model role, its resolved file, size and status; `mmrag models verify`.

    mmrag models [--json]
    mmrag models verify PATH --role ROLE [--mmproj FILE] [--save] [--json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .engine.models.files import human_size


def register(subparsers) -> None:
    """Add the `models` verb (and its `verify` sub-verb) to the CLI's subparsers."""
    from .engine.models.registry import ROLES

    m = subparsers.add_parser("models", help="model roles: resolved file, size, status (ok/missing/failed)")
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=cmd_models)
    msub = m.add_subparsers(dest="models_command", metavar="SUBCOMMAND")
    v = msub.add_parser("verify", help="load a model file/folder for a role and check its output")
    v.add_argument("path", metavar="PATH", help="GGUF file, model folder, or CLIP/cross-encoder folder")
    v.add_argument("--role", required=True, choices=ROLES)
    v.add_argument("--mmproj", metavar="FILE", help="the vision projector of a VLM (default: found next to it)")
    v.add_argument("--save", action="store_true", help="save it as your choice for the role when it verifies")
    v.add_argument("--json", action="store_true", help="print one JSON object")
    v.set_defaults(func=cmd_verify)


def cmd_models(args) -> int:
    """Print every role; exit 0 (a missing model is a normal state, shown as such)."""
    from .engine.models.registry import resolve_all
    from .engine.settings import Settings

    resolved = resolve_all(Settings.load())
    if args.json:
        print(json.dumps({"models": [r.to_json() for r in resolved]}, indent=2))
        return 0
    for r in resolved:
        where = str(r.path) if r.path else "-"
        size = human_size(r.size) if r.size else "-"
        print(f"{r.role:15} {r.status:8} {r.source:12} {size:>9}  {r.model_id or '-'}")
        print(f"{'':15} {where}")
        if r.extra.get("mmproj"):
            print(f"{'':15} mmproj: {r.extra['mmproj']}")
        if r.message:
            print(f"{'':15} {r.message}")
    return 0


def cmd_verify(args) -> int:
    """Verify PATH for ROLE; raises ModelError (exit 1, one line) when it is not usable."""
    from .engine.models.verify import save_choice, verify_model
    from .engine.settings import Settings

    settings = Settings.load()
    verified = verify_model(args.role, Path(args.path), mmproj=Path(args.mmproj) if args.mmproj else None,
                            settings=settings)
    saved = str(save_choice(verified, settings)) if args.save else ""
    if args.json:
        print(json.dumps({"ok": True, **verified.to_json(), "saved_to": saved}, indent=2))
        return 0
    known = f" (known-good: {verified.known_as})" if verified.known_as else ""
    print(f"ok: {verified.role} {verified.model_id}{known}, {human_size(verified.size)}")
    for key, value in verified.details.items():
        print(f"  {key}: {value}")
    if verified.sha256:
        print(f"  sha256: {verified.sha256}")
    if saved:
        print(f"saved as your {verified.role} model in {saved}", file=sys.stderr)
    return 0
