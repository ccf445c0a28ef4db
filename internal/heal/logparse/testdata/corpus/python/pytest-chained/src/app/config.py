class ConfigError(Exception):
    pass


def parse_port(text):
    return int(text.split("=")[1])


def load(text):
    try:
        return {"port": parse_port(text)}
    except ValueError as e:
        raise ConfigError(f"bad config: {text}") from e
