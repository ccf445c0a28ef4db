"""Discounts on prices held in integer cents."""


def _div_round_half_up(n, d):
    return (2 * n + d) // (2 * d)


def apply_discount(cents, percent):
    """Return cents reduced by percent, rounded half up to the cent."""
    if not 0 <= percent <= 100:
        raise ValueError(f"percent out of range: {percent}")
    return _div_round_half_up(cents * (100 - percent), 100)
