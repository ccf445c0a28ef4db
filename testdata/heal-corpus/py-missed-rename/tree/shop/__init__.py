"""A small shop: prices, carts and checkout."""
