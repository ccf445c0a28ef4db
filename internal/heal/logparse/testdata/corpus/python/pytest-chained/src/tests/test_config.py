from app.config import load


def test_load_port():
    assert load("port=8080") == {"port": 8080}


def test_load_bad_port():
    assert load("port=eighty")["port"] == 80
