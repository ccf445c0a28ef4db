import json
import logging


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        log.warning("missing %s", path)
        return {}


print(load("settings.json"))
