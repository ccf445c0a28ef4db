"""Fetch several records at once; every failure is reported together."""
from app.records import load


def fetch_all(ids):
    results, errors = {}, []
    for i in ids:
        try:
            results[i] = load(i)
        except (KeyError, ValueError) as e:
            errors.append(e)
    if errors:
        raise ExceptionGroup("some records failed", errors)
    return results


if __name__ == "__main__":
    print(fetch_all(["a", "b", "c"]))
