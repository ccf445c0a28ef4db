import json


def load(path):
    with open(path) as f:
        return json.load(f)["version"]


print(load("/nonexistent/config.json"))
