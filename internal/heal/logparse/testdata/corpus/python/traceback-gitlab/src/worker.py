import sys


def parse_port(value):
    return int(value)


def main(argv):
    return parse_port(argv[0])


if __name__ == "__main__":
    main(["eighty"])
