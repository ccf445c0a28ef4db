#!/bin/sh
# Installs what the executor's tests use for real: bubblewrap, for the bwrap
# isolation backend. Idempotent, and never fatal: when bubblewrap cannot be
# installed (no root, no apt, no package index), the bwrap tests skip with a
# message saying so, and the rest of the suite still runs.
#
# Usage: scripts/executor/setup.sh
set -u

say() { printf 'executor setup: %s\n' "$*" >&2; }

if command -v bwrap >/dev/null 2>&1; then
	say "bubblewrap present: $(bwrap --version 2>&1)"
else
	if ! command -v apt-get >/dev/null 2>&1; then
		say "no apt-get here; install bubblewrap by hand to test the bwrap backend"
	elif [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
		say "not root and no sudo; install bubblewrap by hand to test the bwrap backend"
	else
		SUDO=""
		[ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
		# Update the index only when the package is unknown to it.
		if ! apt-cache show bubblewrap >/dev/null 2>&1; then
			$SUDO apt-get update -qq >/dev/null 2>&1 || say "apt-get update failed"
		fi
		if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null 2>&1; then
			say "installed $(bwrap --version 2>&1)"
		else
			say "could not install bubblewrap; the bwrap tests will skip"
		fi
	fi
fi

# bwrap may be installed yet unable to create namespaces (some containers
# forbid it). Say so now rather than leave a puzzling skip.
if command -v bwrap >/dev/null 2>&1; then
	# The system directories as salve binds them: a symlink (merged /usr)
	# as the same symlink, a directory read-only.
	set --
	for d in /usr /bin /sbin /lib /lib32 /lib64 /libx32; do
		if [ -L "$d" ]; then
			set -- "$@" --symlink "$(readlink "$d")" "$d"
		elif [ -d "$d" ]; then
			set -- "$@" --ro-bind "$d" "$d"
		fi
	done
	if bwrap --die-with-parent --unshare-net --unshare-pid --cap-drop ALL "$@" \
		--dev /dev --proc /proc --tmpfs /tmp -- true >/dev/null 2>&1; then
		say "bwrap sandbox works here"
		# Shared caches are overlays mounted inside the sandbox by mount
		# and setpriv (util-linux); without them salve falls back to
		# read-only binds, and the overlay tests skip.
		if command -v setpriv >/dev/null 2>&1 && command -v mount >/dev/null 2>&1 &&
			grep -qw overlay /proc/filesystems 2>/dev/null; then
			say "overlayfs, mount and setpriv present: user caches are shared as overlays"
		else
			say "no overlayfs or no setpriv/mount: user caches are shared read-only instead"
		fi
	else
		say "bwrap is installed but cannot create a sandbox here; the bwrap tests will skip"
	fi
fi
exit 0
