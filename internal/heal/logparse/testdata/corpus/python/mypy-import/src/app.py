import requests_nope


def fetch() -> str:
    return requests_nope.get("x")
