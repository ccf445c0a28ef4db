#!/usr/bin/env bash
# The steps of salve's GitHub Action and GitLab CI template.
#   action.sh install   puts salve, git_agent and ai-agent in $SALVE_BIN_DIR
#                       and on the job's PATH
#   action.sh heal      runs salve heal --push --pr on the failed build
# Inputs come as SALVE_* variables (the action maps its inputs to them).
# Only git, curl or go, tar and sha256sum are needed.
set -euo pipefail

repo_slug=salve-dev/salve
bin_dir=${SALVE_BIN_DIR:-${RUNNER_TEMP:-/tmp}/salve-bin}

say() { printf 'salve-action: %s\n' "$*" >&2; }

add_path() {
	if [ -n "${GITHUB_PATH:-}" ]; then
		echo "$1" >>"$GITHUB_PATH"
	fi
	export PATH="$1:$PATH"
}

install() {
	mkdir -p "$bin_dir"
	if [ -n "${SALVE_FROM:-}" ]; then
		# Binaries already built (a self-hosted runner, or the action's own test).
		for b in salve git_agent; do
			[ -x "$SALVE_FROM/$b" ] || { say "SALVE_FROM=$SALVE_FROM has no $b"; exit 2; }
			cp "$SALVE_FROM/$b" "$bin_dir/"
		done
		[ -x "$SALVE_FROM/ai-agent" ] && cp "$SALVE_FROM/ai-agent" "$bin_dir/"
	elif [ -n "${SALVE_REF:-}" ]; then
		command -v go >/dev/null || { say "ref install needs Go on the runner"; exit 3; }
		GOBIN="$bin_dir" CGO_ENABLED=0 go install "github.com/$repo_slug/cmd/...@$SALVE_REF"
	else
		version=${SALVE_VERSION:-latest}
		os=$(uname -s | tr '[:upper:]' '[:lower:]')
		case "$(uname -m)" in
		x86_64 | amd64) arch=amd64 ;;
		aarch64 | arm64) arch=arm64 ;;
		*) say "no release for $(uname -m)"; exit 3 ;;
		esac
		base=${SALVE_RELEASES_URL:-https://github.com/$repo_slug/releases}
		if [ "$version" = latest ]; then
			url="$base/latest/download"
			version=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "$base/latest" | sed 's#.*/tag/##')
		else
			url="$base/download/$version"
		fi
		tmp=$(mktemp -d)
		# The archive name make dist writes (scripts/dist.sh).
		dir="salve_${version}_${os}_${arch}"
		name="$dir.tar.gz"
		curl -fsSL -o "$tmp/$name" "$url/$name"
		curl -fsSL -o "$tmp/SHA256SUMS" "$url/SHA256SUMS"
		(cd "$tmp" && grep " $name\$" SHA256SUMS | sha256sum -c -) >&2
		tar -xzf "$tmp/$name" -C "$tmp"
		cp "$tmp/$dir/"{salve,git_agent,ai-agent,ai-agent-telemetry} "$bin_dir/"
		rm -rf "$tmp"
	fi
	add_path "$bin_dir"
	say "installed $("$bin_dir/salve" --version) into $bin_dir"
}

heal() {
	command -v salve >/dev/null || add_path "$bin_dir"
	# Runners have no git identity; the heal commits need one.
	if [ -z "$(git config user.email 2>/dev/null)" ] && [ -z "${GIT_AUTHOR_EMAIL:-}" ]; then
		export GIT_AUTHOR_NAME="salve[bot]" GIT_AUTHOR_EMAIL="salve-bot@users.noreply.github.com"
		export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
	fi
	args=(heal --workspace "${SALVE_WORKSPACE:-.}" --push --quiet)
	[ "${SALVE_PR:-true}" = true ] && args+=(--pr)
	[ "${SALVE_PR_ON_RED:-false}" = true ] && args+=(--pr-on-red)
	[ "${SALVE_CHECK_RUN:-false}" = true ] && args+=(--check-run)
	[ "${SALVE_SUGGEST_REVIEW:-false}" = true ] && args+=(--suggest-review)
	[ -n "${SALVE_COMMAND:-}" ] && args+=(--cmd "$SALVE_COMMAND")
	[ -n "${SALVE_FIXERS:-}" ] && args+=(--fixers "$SALVE_FIXERS")
	[ -n "${SALVE_MODELS:-}" ] && args+=(--models "$SALVE_MODELS")
	[ -n "${SALVE_ISOLATION:-}" ] && args+=(--isolation "$SALVE_ISOLATION")
	if [ -n "${SALVE_SARIF:-}" ]; then
		args+=(--report "sarif=$SALVE_SARIF")
	fi
	if [ -n "${SALVE_CODE_QUALITY:-}" ]; then
		args+=(--report "gitlab=$SALVE_CODE_QUALITY")
	fi
	annotations=""
	if [ "${SALVE_ANNOTATIONS:-false}" = true ]; then
		annotations="${RUNNER_TEMP:-/tmp}/salve-annotations.txt"
		args+=(--report "github=$annotations")
	fi
	say "salve ${args[*]}"
	set +e
	salve "${args[@]}"
	code=$?
	set -e
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		echo "exit-code=$code" >>"$GITHUB_OUTPUT"
	fi
	# Workflow commands take effect when printed in the step's output.
	if [ -n "$annotations" ] && [ -f "$annotations" ]; then
		cat "$annotations"
	fi
	return "$code"
}

case "${1:-}" in
install) install ;;
heal) heal ;;
*) say "usage: action.sh install|heal"; exit 2 ;;
esac
