"""HTTP routes."""


def health():
    return {"status": "ok"}


def version(build):
    return {
        "version": build.version,
        "commit": build.commit[:7] }
