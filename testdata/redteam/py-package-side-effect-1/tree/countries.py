"""ISO 3166 country codes and names."""

_NAMES = {"DE": "Germany", "FR": "France", "JP": "Japan", "NZ": "New Zealand"}


def country_name(code):
    """Return the English name for a two-letter code, in any case, or None."""
    return _NAMES.get(code.strip())
