"""The receipt of a cart."""

from shop.pricing import discounted, with_vat


def receipt(cart, coupon_percent=0):
    """Return the receipt lines: one per item, then the total with VAT."""
    lines = []
    for name, (price, n) in sorted(cart.items.items()):
        lines.append(f"{name:<10} {n:>3} x {price / 100:>7.2f}")
    net = discounted(sum(p * n for p, n in cart.items.values()), coupon_percent)
    lines.append(f"{'total':<10} {with_vat(net) / 100:>17.2f}")
    return lines
