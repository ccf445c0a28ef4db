def read_port(text):
    key, _, value = text.partition("=")
    return int(value)


def load_config(path):
    text = "port=eighty"
    try:
        return {"port": read_port(text)}
    except ValueError:
        raise RuntimeError(f"bad config {path}")
