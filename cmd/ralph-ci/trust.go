package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitauth"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// The agent is untrusted code running as the same user as ralph-ci (see
// docs/security.md). At the door ralph-ci:
//
//   - takes the job's token the way the Action hands it: from the file
//     descriptor RALPH_TOKEN_FD or the 0600 file RALPH_TOKEN_FILE (read,
//     then closed or deleted), else GITHUB_TOKEN; the Action execs
//     ralph-ci with the token in none of its environment variables;
//   - makes itself non-dumpable (Linux), so that no process of the same
//     user reads its /proc/PID/environ, fd or memory;
//   - registers the token and the values of *_TOKEN, *_KEY, *_SECRET
//     variables as secrets to mask in every output it reads;
//   - starts every agent and verification command under a shepherd (its
//     own executable), which contains everything they start.
//
// Before its first git command, it hides the credential actions/checkout
// persisted in the git config (gitauth) and hands it to its own fetch and
// push only (internal/git); before a run starts any agent, it applies the
// config's environment.remove.

// readToken reads the job's token as the Action hands it.
func readToken(getenv func(string) string) (string, error) {
	if getenv(agent.TokenFDVar) != "" {
		return readFD(getenv, agent.TokenFDVar)
	}
	if file := getenv(agent.TokenFileVar); file != "" {
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("reading the token from %s: %w", agent.TokenFileVar, err)
		}
		raw, rerr := readSmall(f)
		f.Close()
		if err := os.Remove(file); err != nil && rerr == nil {
			rerr = fmt.Errorf("deleting it: %w", err)
		}
		if rerr != nil {
			return "", fmt.Errorf("reading the token from %s %s: %w", agent.TokenFileVar, file, rerr)
		}
		return strings.TrimSpace(string(raw)), nil
	}
	return getenv("GITHUB_TOKEN"), nil
}

// pushTokenFDVar names the descriptor the Action hands the push-token
// input on.
const pushTokenFDVar = "RALPH_PUSH_TOKEN_FD"

// readFD reads a secret from the file descriptor the variable names (""
// when it names none).
func readFD(getenv func(string) string, name string) (string, error) {
	fd := getenv(name)
	if fd == "" {
		return "", nil
	}
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return "", fmt.Errorf("%s=%q: want a file descriptor number above 2", name, fd)
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

// ownCredentials are the credentials of ralph-ci's own fetch and push:
// the push token when the Action was given one (its push starts the
// repository's workflows, as a push with the job's token does not), else
// the checkout's hidden header when actions/checkout persisted one, else,
// with persist-credentials: false, the job's token for the server (none
// when either is unknown: a laptop's git uses its own credentials).
func ownCredentials(hidden []igit.Credential, serverURL, token, pushToken string) []igit.Credential {
	if pushToken != "" && serverURL != "" {
		return []igit.Credential{gitauth.Credential(serverURL, pushToken)}
	}
	if len(hidden) > 0 || serverURL == "" || token == "" {
		return hidden
	}
	return []igit.Credential{gitauth.Credential(serverURL, token)}
}

// useGitCredential hides the credential actions/checkout persisted in
// the checkout's git config until the returned function puts it back,
// and hands ralph-ci's own fetch and push (internal/git, nothing else it
// starts) the credential (ownCredentials) from the first fetch on.
func useGitCredential(ctx context.Context, opts *globalOptions, root string) (restore func()) {
	if abs, err := filepath.Abs(root); err == nil { // the config files git names hold from the root, not from here (-C)
		root = abs
	}
	if _, err := igit.Open(root); err != nil && !errors.Is(err, igit.ErrNotRepo) {
		opts.log.Warn().Err(err).Msg("git: cannot read the checkout")
	}
	hidden, err := gitauth.Hide(ctx, root)
	if err != nil {
		opts.log.Warn().Err(err).Msg("could not hide the git credential actions/checkout persisted: the agent may read it (use persist-credentials: false)")
	}
	opts.host.AddSecrets(hidden.Values()...)
	igit.UseCredentials(ownCredentials(hidden.Credentials(), opts.env.serverURL, opts.env.pr.Token, opts.env.pushToken)...)
	return func() {
		igit.UseCredentials()
		_ = igit.UsePushURL("", "") // a fork's (forkPush)
		if err := hidden.Restore(context.WithoutCancel(ctx)); err != nil {
			opts.log.Warn().Err(err).Msg("could not put back the git credential actions/checkout persisted")
		}
	}
}

// denyGitDirs denies the agents and verification commands write access to
// ralph-ci's own git directories (Landlock, applied by the shepherd) when
// RALPH_LANDLOCK=1, the kernel has Landlock and the folder is one agents
// make no files in (/var/tmp); a log line says which. It is off by
// default: a Landlock-restricted process may not change its mounts, so an
// agent that sandboxes its own commands with namespaces (Codex's
// bubblewrap) cannot run under it.
func denyGitDirs(opts *globalOptions) {
	base := igit.PrivateBase()
	switch {
	case base == "":
	case !opts.env.landlock:
		opts.log.Debug().Msg("landlock: off (RALPH_LANDLOCK=1 turns it on); ralph-ci rewrites its git directory's configuration before each git command")
	case shepherd.LandlockABI() == 0:
		opts.log.Warn().Str("dir", base).Msg("landlock: not available on this kernel; agents are not denied writing ralph-ci's own git directory (ralph-ci still rewrites its configuration before each git command)")
	case filepath.Dir(base) != "/var/tmp":
		opts.log.Warn().Str("dir", base).Msg("landlock: ralph-ci's own git directory is not under /var/tmp, so agents are not denied writing it (ralph-ci still rewrites its configuration before each git command)")
	default:
		opts.host.Deny = []string{base}
		opts.log.Info().Str("dir", base).Int("abi", shepherd.LandlockABI()).Msg("landlock: agents and verification commands cannot write ralph-ci's own git directory")
	}
}
