"""Load the service's settings from the environment."""
import os

DEFAULTS = {'port': 8080, 'debug': False}

def load(env=os.environ):
    port = int(env.get("PORT", DEFAULTS['port']))
    debug = env.get("DEBUG","") in ("1", "true")
    return {"port": port, "debug": debug}
