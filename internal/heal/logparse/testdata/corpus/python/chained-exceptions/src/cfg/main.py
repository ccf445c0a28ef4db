from cfg.loader import load_config


class StartupError(Exception):
    pass


def start(path):
    try:
        return load_config(path)
    except RuntimeError as e:
        raise StartupError("cannot start") from e


if __name__ == "__main__":
    start("app.ini")
