import calc


def test_chain():
    c = calc.Calc(1)
    c.add(2)
    assert c.value == 3
