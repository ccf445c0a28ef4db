"""Load the application's settings from a JSON file, with defaults."""

import json
import os

DEFAULTS = {"host": "127.0.0.1", "port": 8080, "debug": False}


def load(path):
    """Return the defaults overridden by the settings in path, if it exists."""
    settings = dict(DEFAULTS)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            settings.update(json.load(f))
    return settings


def save(path, settings):
    """Write the settings that differ from the defaults to path."""
    changed = {k: v for k, v in settings.items() if DEFAULTS.get(k) != v}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(changed, f, indent=2, sort_keys=True)
