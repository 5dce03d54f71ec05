// Package seal keeps the job's secrets out of what another process of
// the same user can read: /proc/PID/environ shows a process's
// environment as it was started, so ralph-ci starts itself again (exec,
// same process) without the secrets in it, and hands them to the new
// image on a pipe (Seal, Exec, read back once by Unsealed); it makes
// itself non-dumpable (NonDumpable), so that its /proc/PID/environ, fd,
// mem and maps are root's alone; and it reads the job's token and the
// push-token from a descriptor or a file as the Action hands them
// (Token, Secret), never from an environment variable the agent could
// read. Which variables are secrets is the caller's to say
// (pipeline/agent's policy): this package imports nothing of ralph-ci.
package seal

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// FDVar names the descriptor on which a sealed ralph-ci finds the
// environment entries Seal moved out of its environment.
const FDVar = "RALPH_SEALED_FD"

// Unsealed reads the entries Seal moved out of the environment, and
// closes their descriptor. It returns nil when ralph-ci was not sealed.
func Unsealed() map[string]string {
	fd := os.Getenv(FDVar)
	if fd == "" {
		return nil
	}
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return nil
	}
	f := os.NewFile(uintptr(n), "sealed")
	if f == nil {
		return nil
	}
	defer f.Close()
	raw, err := readSmall(f)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(string(raw), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// Getenv reads the environment, the sealed entries first.
func Getenv(sealed map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := sealed[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}

// Split parts env (KEY=VALUE entries) into those that stay in the
// environment and those secret (by their name) moves out of it.
func Split(env []string, secret func(name string) bool) (keep, moved []string) {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if secret(name) {
			moved = append(moved, kv)
		} else {
			keep = append(keep, kv)
		}
	}
	return keep, moved
}

// readSmall reads at most 64 KiB: a token is far shorter.
func readSmall(f *os.File) ([]byte, error) {
	return io.ReadAll(io.LimitReader(f, 64<<10))
}
