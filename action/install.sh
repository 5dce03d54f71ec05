#!/usr/bin/env bash
# Installs the released ralph-ci binary for this runner, verified, or says
# that the Action must build it from source. Run by action.yml's install
# step; every input arrives through the environment:
#
#   RALPH_ACTION_REF         the ref the workflow used: v1.2.3, v1, v1.2, a commit, a branch
#   RALPH_ACTION_REPOSITORY  owner/name of the Action (ralph-ci/ralph-ci)
#   RALPH_RUNNER_OS          runner.os: Linux, macOS or Windows
#   RALPH_RUNNER_ARCH        runner.arch: X64 or ARM64
#   RALPH_INSTALL_DIR        where the binary goes (a runner.temp folder)
#   RALPH_VERIFY_ATTESTATION auto, true or false (see below)
#   RALPH_RELEASE_BASE_URL   optional: releases are under $base/<tag>/<asset>
#                            (default $GITHUB_SERVER_URL/<repo>/releases/download)
#   GITHUB_SERVER_URL, GITHUB_API_URL, GH_TOKEN, GITHUB_OUTPUT as in Actions
#
# Outputs (to $GITHUB_OUTPUT): bin=<path> when a release binary was
# installed, else build=true; go-sum=<sha256 of the Action's go.sum> for the
# fallback's cache key either way.
#
# Only curl or wget, sha256sum or shasum, tar or unzip and the POSIX text
# tools (grep, sed, awk, tr) are used. A file that fails verification is deleted, never run.
set -euo pipefail

action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ref=${RALPH_ACTION_REF:-}
repo=${RALPH_ACTION_REPOSITORY:-ralph-ci/ralph-ci}
install_dir=${RALPH_INSTALL_DIR:?RALPH_INSTALL_DIR is not set}
attest=${RALPH_VERIFY_ATTESTATION:-auto}
server=${GITHUB_SERVER_URL:-https://github.com}
api=${GITHUB_API_URL:-https://api.github.com}
base=${RALPH_RELEASE_BASE_URL:-$server/$repo/releases/download}
base=${base%/}
out=${GITHUB_OUTPUT:-/dev/null}

log() { printf 'ralph-ci install: %s\n' "$*" >&2; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# fetch URL FILE [api]: downloads URL to FILE, failing on any HTTP error;
# with a third argument the request carries $GH_TOKEN (API calls only).
fetch() {
	local auth=""
	if [ -n "${3:-}" ] && [ -n "${GH_TOKEN:-}" ]; then auth="Authorization: Bearer $GH_TOKEN"; fi
	if command -v curl >/dev/null 2>&1; then
		if [ -n "$auth" ]; then
			curl -fsSL --retry 3 --connect-timeout 10 --max-time 120 -H "$auth" -o "$2" "$1"
		else
			curl -fsSL --retry 3 --connect-timeout 10 --max-time 120 -o "$2" "$1"
		fi
	elif [ -n "$auth" ]; then
		wget -q --tries=3 --timeout=30 --header="$auth" -O "$2" "$1"
	else
		wget -q --tries=3 --timeout=30 -O "$2" "$1"
	fi
}

# build REASON: no usable release; the Action's next steps build from source.
build() {
	log "$1; building from source"
	echo "build=true" >>"$out"
	exit 0
}

# The fallback's cache key part, computed here because hashFiles() cannot
# see the Action's own files (they live outside the workspace).
echo "go-sum=$(sha256 "$action_dir/go.sum")" >>"$out"

case "${RALPH_RUNNER_OS:-}" in
Linux) os=linux ;;
macOS) os=darwin ;;
Windows) os=windows ;;
*) build "no release for the runner OS '${RALPH_RUNNER_OS:-}'" ;;
esac
case "${RALPH_RUNNER_ARCH:-}" in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) build "no release for the runner architecture '${RALPH_RUNNER_ARCH:-}'" ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# version_of REF: the release tag (vX.Y.Z) REF names. A release tag names
# itself; a moving tag (v1, v1.2) or a commit is looked up in the
# repository's tags: the release tag on the same commit. Anything else (a
# branch, a fork's commit, a commit between releases) has no release.
version_of() {
	if [[ "$1" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
		echo "$1"
		return
	fi
	[[ "$1" =~ ^(v[0-9]+(\.[0-9]+)?|[0-9a-f]{40})$ ]] || return 0
	fetch "$api/repos/$repo/tags?per_page=100" "$tmp/tags.json" auth || {
		log "could not list the tags of $repo"
		return 0
	}
	# "name" then "commit":{"sha"} for each tag, in the API's order (newest
	# release first): pair them up without a JSON parser.
	local pairs sha
	pairs=$(tr -d ' \t\r\n' <"$tmp/tags.json" | grep -oE '"name":"[^"]*"|"sha":"[0-9a-f]{40}"' |
		sed -E 's/^"(name|sha)":"(.*)"$/\1 \2/' | awk '$1=="name"{n=$2} $1=="sha"&&n!=""{print n, $2; n=""}')
	if [[ "$1" =~ ^[0-9a-f]{40}$ ]]; then
		sha=$1
	else
		sha=$(awk -v r="$1" '$1==r{print $2; exit}' <<<"$pairs")
	fi
	[ -n "$sha" ] || return 0
	awk -v s="$sha" '$2==s && $1 ~ /^v[0-9]+\.[0-9]+\.[0-9]+$/ {print $1; exit}' <<<"$pairs"
}

version=$(version_of "$ref")
[ -n "$version" ] || build "no release for the ref '$ref'"

ext=tar.gz
exe=ralph-ci
if [ "$os" = windows ]; then ext=zip exe=ralph-ci.exe; fi
asset="ralph-ci_${version#v}_${os}_${arch}.$ext"
sums="ralph-ci_${version#v}_checksums.txt"

fetch "$base/$version/$sums" "$tmp/$sums" || build "no checksums file $sums in release $version"
fetch "$base/$version/$asset" "$tmp/$asset" || build "no asset $asset in release $version"

want=$(awk -v a="$asset" '$2==a || $2=="*"a {print $1; exit}' "$tmp/$sums")
[ -n "$want" ] || build "$sums of release $version lists no $asset"
got=$(sha256 "$tmp/$asset")
if [ "$got" != "$want" ]; then
	rm -f "$tmp/$asset"
	echo "::error title=ralph-ci install::refused $asset of release $version: its SHA-256 is $got, but $sums says $want"
	build "refused the release binary"
fi

# Provenance: the archive must have been built by this repository's release
# workflow (GitHub artifact attestation). auto: verify when the GitHub CLI
# can (gh with `attestation`), else say so and rely on the checksums;
# true: required; false: skipped.
case "$attest" in
false) log "attestation check turned off (verify-attestation: false)" ;;
true | auto)
	if command -v gh >/dev/null 2>&1 && gh attestation verify --help >/dev/null 2>&1; then
		if ! gh attestation verify "$tmp/$asset" --repo "$repo" \
			--signer-workflow "$repo/.github/workflows/release.yml" >"$tmp/attest.log" 2>&1; then
			cat "$tmp/attest.log" >&2
			rm -f "$tmp/$asset"
			echo "::error title=ralph-ci install::refused $asset of release $version: its provenance attestation does not verify"
			build "refused the release binary"
		fi
		log "provenance attestation verified"
	elif [ "$attest" = true ]; then
		echo "::error title=ralph-ci install::verify-attestation is true but the GitHub CLI (gh) cannot verify attestations here"
		build "refused the release binary"
	else
		log "no GitHub CLI with attestation support: verified by checksum only"
	fi
	;;
*)
	echo "::error title=ralph-ci install::verify-attestation must be auto, true or false, not '$attest'"
	exit 2
	;;
esac

mkdir -p "$tmp/x" "$install_dir"
if [ "$ext" = zip ] && command -v unzip >/dev/null 2>&1; then
	unzip -q "$tmp/$asset" "$exe" -d "$tmp/x"
else
	tar -xzf "$tmp/$asset" -C "$tmp/x" "$exe" 2>/dev/null || tar -xf "$tmp/$asset" -C "$tmp/x" "$exe"
fi
mv -f "$tmp/x/$exe" "$install_dir/$exe"
chmod +x "$install_dir/$exe"
log "installed $asset of release $version (SHA-256 $got)"
"$install_dir/$exe" version
echo "bin=$install_dir/$exe" >>"$out"
