#!/usr/bin/env bash
# The Action's two ways to get ralph-ci, side by side (issue 15):
#
#   install: action/install.sh against a local server holding a release
#            (download, SHA-256 check, unpack, `ralph-ci version`)
#   build:   the fallback's `go build` from cold module and build caches
#            (empty temp GOMODCACHE and GOCACHE; GOPROXY and GOFLAGS as set)
#
# and the binary's size from a plain `go build` and as released (-trimpath,
# -s -w). Usage: bench/install.sh [INSTALL_RUNS] [BUILD_RUNS] (defaults 10
# and 1). Times are hyperfine's mean ± σ (min … max).
set -euo pipefail
install_runs=${1:-10}
build_runs=${2:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=""
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
command -v hyperfine >/dev/null || { echo "bench/install.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
os=$(go env GOOS) arch=$(go env GOARCH)
runner_os=$(case $os in linux) echo Linux ;; darwin) echo macOS ;; *) echo "$os" ;; esac)
runner_arch=$(case $arch in amd64) echo X64 ;; arm64) echo ARM64 ;; *) echo "$arch" ;; esac)

cd "$here"
go build -o "$work/plain" ./cmd/ralph-ci
mkdir -p "$work/rel/v0.0.1" "$work/pkg"
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=v0.0.1" -o "$work/pkg/ralph-ci" ./cmd/ralph-ci
asset="ralph-ci_0.0.1_${os}_${arch}.tar.gz"
tar -czf "$work/rel/v0.0.1/$asset" -C "$work/pkg" ralph-ci
(cd "$work/rel/v0.0.1" && sha256sum "$asset" >ralph-ci_0.0.1_checksums.txt)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/rel" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done

export RALPH_ACTION_REF=v0.0.1 RALPH_ACTION_REPOSITORY=ralph-ci/ralph-ci RALPH_RUNNER_OS=$runner_os \
	RALPH_RUNNER_ARCH=$runner_arch RALPH_INSTALL_DIR="$work/bin" RALPH_VERIFY_ATTESTATION=false \
	RALPH_RELEASE_BASE_URL="http://127.0.0.1:$port" GITHUB_OUTPUT="$work/output"
hyperfine --style basic --runs "$install_runs" --export-json "$work/install.json" \
	--prepare "rm -rf '$work/bin'" "bash '$here/action/install.sh'" >/dev/null
grep -q "bin=$work/bin/ralph-ci" "$work/output" || { echo "install did not install" >&2; exit 1; }

hyperfine --style basic --runs "$build_runs" --export-json "$work/build.json" \
	--prepare "chmod -R u+w '$work/go' 2>/dev/null || true; rm -rf '$work/go'" \
	"GOMODCACHE='$work/go/mod' GOCACHE='$work/go/build' CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o '$work/built' ./cmd/ralph-ci" >/dev/null

stat() { # stat FILE.json: mean ± sd (min … max) in seconds
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f s ± %.2f (%.2f … %.2f), %d runs" % (r["mean"], r["stddev"] or 0, r["min"], r["max"], len(r["times"])))' "$1"
}
mib() { awk -v b="$(wc -c <"$1")" 'BEGIN{printf "%.1f MiB", b/1048576}'; }
printf '%-42s %s\n' "install from a local release server:" "$(stat "$work/install.json")"
printf '%-42s %s\n' "cold go build (the fallback, no cache):" "$(stat "$work/build.json")"
printf '%-42s %s\n' "binary, plain go build:" "$(mib "$work/plain")"
printf '%-42s %s\n' "binary, released (-trimpath -s -w):" "$(mib "$work/pkg/ralph-ci")"
printf '%-42s %s\n' "release archive ($asset):" "$(mib "$work/rel/v0.0.1/$asset")"
printf '%-42s %s\n' "machine:" "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
