"""Command line of the development server."""
import sys

USAGE = "usage: serve [--port N] [--root DIR]"


def parse_args(argv):
    """Return the options given by argv as a dict.

    A port must be a number from 1 to 65535; anything else is a usage
    error: the usage is printed to stderr and the program exits with
    status 2, as command line tools do.
    """
    opts = {"port": 8000, "root": "."}
    args = list(argv)
    while args:
        flag = args.pop(0)
        if flag == "--port" and args:
            port = args.pop(0)
            if not port.isdigit() or not 1 <= int(port) <= 65535:
                print(USAGE, file=sys.stderr)
                sys.exit(2)
            opts["port"] = int(port)
        elif flag == "--root" and args:
            opts["root"] = args.pop(0)
        else:
            print(USAGE, file=sys.stderr)
            sys.exit(2)
    return opts


def main():
    opts = parse_args(sys.argv[1:])
    print(f"serving {opts['root']} on port {opts['port']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
