from shop.cart import Cart


def test_average_empty():
    cart = Cart()
    assert cart.average() == 0
