import helper

def test_a():
    assert helper.f() == 1
