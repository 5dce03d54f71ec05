package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// The agent is untrusted code running as the same user as ralph-ci (see
// docs/security.md). At the door ralph-ci:
//
//   - takes the job's token the way the Action hands it: from the file
//     descriptor RALPH_TOKEN_FD or the 0600 file RALPH_TOKEN_FILE (read,
//     then closed or deleted; the Action's way on Windows), else
//     GITHUB_TOKEN, and the push-token likewise (RALPH_PUSH_TOKEN_FD,
//     RALPH_PUSH_TOKEN_FILE); the Action execs
//     ralph-ci with the token in none of its environment variables;
//   - makes itself non-dumpable (Linux), so that no process of the same
//     user reads its /proc/PID/environ, fd or memory;
//   - registers the token and the values of *_TOKEN, *_KEY, *_SECRET
//     variables as secrets to mask in every output it reads;
//   - starts every agent and verification command under a shepherd (its
//     own executable), which contains everything they start.
//
// Before its first git command, it hides the credential actions/checkout
// persisted in the git config (pipeline/job's UseGitCredential).

// readToken reads the job's token as the Action hands it.
func readToken(getenv func(string) string) (string, error) {
	if getenv(agent.TokenFDVar) != "" || getenv(agent.TokenFileVar) != "" {
		return readSecret(getenv, agent.TokenFDVar, agent.TokenFileVar)
	}
	return getenv("GITHUB_TOKEN"), nil
}

// readSecret reads a secret from the file descriptor the variable fdVar
// names, else from the file fileVar names (read, then deleted: the
// Action's way on Windows, whose programs inherit no descriptor above
// 2), else it is "".
func readSecret(getenv func(string) string, fdVar, fileVar string) (string, error) {
	if getenv(fdVar) != "" {
		return readFD(getenv, fdVar, fileVar)
	}
	file := getenv(fileVar)
	if file == "" {
		return "", nil
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("reading the token from %s: %w", fileVar, err)
	}
	raw, rerr := readSmall(f)
	f.Close()
	if err := os.Remove(file); err != nil && rerr == nil {
		rerr = fmt.Errorf("deleting it: %w", err)
	}
	if rerr != nil {
		return "", fmt.Errorf("reading the token from %s %s: %w", fileVar, file, rerr)
	}
	return strings.TrimSpace(string(raw)), nil
}

// readFD reads a secret from the file descriptor the variable name names
// (fileVar is how to hand it where there are no descriptors).
func readFD(getenv func(string) string, name, fileVar string) (string, error) {
	fd := getenv(name)
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return "", fmt.Errorf("%s=%q: want a file descriptor number above 2", name, fd)
	}
	if runtime.GOOS == "windows" {
		return "", fmt.Errorf("%s=%d: a Windows program inherits no file descriptor above 2: name a file holding the token in %s instead (read, then deleted)", name, n, fileVar)
	}
	f := os.NewFile(uintptr(n), "token")
	if f == nil {
		return "", fmt.Errorf("%s=%d is not an open file descriptor", name, n)
	}
	defer f.Close()
	raw, err := readSmall(f)
	if err != nil {
		return "", fmt.Errorf("reading the token from %s=%d: %w", name, n, err)
	}
	return strings.TrimSpace(string(raw)), nil
}

// readSmall reads at most 64 KiB: a token is far shorter.
func readSmall(f *os.File) ([]byte, error) {
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

// protectProcess is the door's part that does not depend on the config:
// non-dumpable, secrets to mask, the shepherd.
func protectProcess(host *agent.Host, token string) {
	makeNonDumpable()
	host.AddSecrets(token)
	host.AddEnvironSecrets()
	if exe, err := os.Executable(); err == nil {
		host.Shepherd = exe
	}
}
