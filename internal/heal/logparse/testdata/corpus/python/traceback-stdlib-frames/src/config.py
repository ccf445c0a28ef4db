import json


def load(text):
    data = json.loads(text)
    return data["name"]


print(load("{name: 1}"))
