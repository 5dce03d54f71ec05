package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Error is a failed git command with what git printed on stderr.
type Error struct {
	// Args are the git arguments the caller gave (without the doorway's).
	Args []string
	// Stderr is git's standard error, trimmed.
	Stderr string
	// Err is the error from running the process (an *exec.ExitError, the
	// context's error, or exec.ErrNotFound).
	Err error
}

// Error names the command, how it failed and git's message.
func (e *Error) Error() string {
	msg := "git " + strings.Join(e.Args, " ") + ": " + e.Err.Error()
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap returns the error from running the process.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is git's exit status, -1 when it did not exit by itself.
func (e *Error) ExitCode() int {
	var exit *exec.ExitError
	if errors.As(e.Err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// NotRepo tells whether git found no repository (or there is no git).
func (e *Error) NotRepo() bool {
	return strings.Contains(e.Stderr, "not a git repository") || errors.Is(e.Err, exec.ErrNotFound) || errors.Is(e.Err, ErrNotRepo)
}

// ErrNotRepo is returned when the folder is not inside a git work tree.
var ErrNotRepo = errors.New("not a git repository")

// Command is one git command. The zero value of every field but Args is
// fine.
type Command struct {
	// Dir is where git runs: a folder of the work tree.
	Dir string
	// Args are git's arguments.
	Args []string
	// Env is added to the doorway's environment (an identity, an index
	// file): only GIT_AUTHOR_*, GIT_COMMITTER_*, GIT_INDEX_FILE,
	// GIT_OPTIONAL_LOCKS and GIT_REFLOG_ACTION are accepted, anything else
	// is dropped.
	Env []string
	// Stdin is git's standard input (none when nil).
	Stdin io.Reader
	// Stdout receives git's standard output instead of the returned bytes.
	Stdout io.Writer
}

// Runs counts the git processes started, so that tests can tell that a
// code path ran none.
var Runs atomic.Int64

// Run runs git with args in dir and returns its standard output.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return Command{Dir: dir, Args: args}.Run(ctx)
}

// Run runs the command and returns its standard output (nil when Stdout
// is set). A failure is an *Error.
//
// Its output is read here, from a pipe, and its standard error goes to
// an in-memory file (Linux, stderrFile), so that no goroutine of os/exec
// copies either: each of those is a goroutine started and woken on
// another thread for every git process (about 0.2 ms of CPU for a git
// that runs 2 ms, a run of 300 of them), and a delivery rotation runs
// four (bench/delivery.sh).
func (c Command) Run(ctx context.Context) ([]byte, error) {
	cmd, done, err := c.build(ctx)
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	errFile := stderrFile()
	if errFile != nil {
		defer errFile.Close()
		cmd.Stderr = errFile
	} else {
		cmd.Stderr = &limited{w: &stderr, n: stderrLimit}
	}
	r, w, err := os.Pipe()
	if err != nil {
		_ = done()
		return nil, &Error{Args: c.Args, Err: err}
	}
	cmd.Stdout = w
	var out bytes.Buffer
	dst := io.Writer(&out)
	if c.Stdout != nil {
		dst = c.Stdout
	}
	Runs.Add(1)
	err = cmd.Start()
	w.Close() // git has its own copy
	if err == nil {
		_, cerr := io.Copy(dst, r)
		r.Close() // a writer that failed: git gets EPIPE rather than waiting
		if err = cmd.Wait(); err == nil {
			err = cerr
		}
	} else {
		r.Close()
	}
	if derr := done(); derr != nil && err == nil {
		err = derr
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		if errFile != nil {
			readStderr(errFile, &stderr)
		}
		return out.Bytes(), &Error{Args: c.Args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	if c.Stdout != nil {
		return nil, nil
	}
	return out.Bytes(), nil
}

// stderrLimit is how much of a git process's standard error is kept.
const stderrLimit = 64 << 10

// readStderr reads into b what git wrote to f: f's offset, which git's
// writes moved, is where it stopped.
func readStderr(f *os.File, b *bytes.Buffer) {
	if n, err := f.Seek(0, io.SeekCurrent); err == nil {
		_, _ = b.ReadFrom(io.NewSectionReader(f, 0, min(n, stderrLimit)))
	}
}

// Start starts the command with its standard output as a pipe (for
// streaming commands such as cat-file --batch); wait waits for git and
// returns an *Error when it failed.
func (c Command) Start(ctx context.Context) (stdout io.ReadCloser, wait func() error, err error) {
	cmd, done, err := c.build(ctx)
	if err != nil {
		return nil, nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: stderrLimit}
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = done()
		return nil, nil, &Error{Args: c.Args, Err: err}
	}
	Runs.Add(1)
	if err := cmd.Start(); err != nil {
		_ = done()
		return nil, nil, &Error{Args: c.Args, Err: err}
	}
	return out, func() error {
		err := cmd.Wait()
		if derr := done(); derr != nil && err == nil {
			err = derr
		}
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return &Error{Args: c.Args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
		}
		return nil
	}, nil
}

// build builds the process: the git found at the first use, the
// doorway's environment and configuration, then the caller's arguments;
// done is to be called once git exited.
func (c Command) build(ctx context.Context) (cmd *exec.Cmd, done func() error, err error) {
	bin, err := binary()
	if err != nil {
		return nil, nil, &Error{Args: c.Args, Err: err}
	}
	env, done, err := setup(c.Dir, c.Args)
	if err != nil {
		e := &Error{Args: c.Args, Err: err}
		if errors.Is(err, ErrNotRepo) {
			e.Stderr = "fatal: not a git repository (or any of the parent directories): .git"
		}
		return nil, nil, e
	}
	cmd = exec.CommandContext(ctx, bin, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(env, allowedEnv(c.Env)...)
	cmd.Stdin = c.Stdin
	return cmd, done, nil
}

// runPlain runs git with env in dir and returns its standard output.
func runPlain(ctx context.Context, bin, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: stderrLimit}
	Runs.Add(1)
	out, err := cmd.Output()
	if err != nil {
		return out, &Error{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return out, nil
}

// callerEnv are the prefixes of the variables a caller may add.
var callerEnv = []string{"GIT_AUTHOR_NAME=", "GIT_AUTHOR_EMAIL=", "GIT_AUTHOR_DATE=", "GIT_COMMITTER_NAME=",
	"GIT_COMMITTER_EMAIL=", "GIT_COMMITTER_DATE=", "GIT_INDEX_FILE=", "GIT_OPTIONAL_LOCKS=", "GIT_REFLOG_ACTION="}

func allowedEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		for _, p := range callerEnv {
			if strings.HasPrefix(kv, p) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary is the absolute path of git, looked up once, at the first use
// (before any agent could put another git on the PATH).
func binary() (string, error) {
	binOnce.Do(func() {
		binPath, binErr = exec.LookPath("git")
		if binErr == nil {
			binPath, binErr = filepath.Abs(binPath)
		}
	})
	return binPath, binErr
}

// keptEnv are the variables of ralph-ci's own environment (the job's,
// which no agent can change) that git may need: where programs and the
// home folder are, a temporary folder, the SSH agent, proxies and CA
// certificates. Nothing else of it reaches git: not one GIT_* variable.
var keptEnv = []string{"HOME", "TMPDIR", "SSH_AUTH_SOCK", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
	"no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR", "SYSTEMROOT"}

// baseEnv is the environment every git process starts from: its PATH is
// git's own folder, then the system's (systemPath, none on Windows), in
// the system's list form.
func baseEnv() []string {
	env := []string{
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_EDITOR=:",
		"GIT_PAGER=cat",
		"GIT_ADVICE=0",
	}
	bin, _ := binary()
	path := systemPath
	if bin != "" {
		path = append([]string{filepath.Dir(bin)}, path...)
	}
	env = append(env, "PATH="+strings.Join(path, string(os.PathListSeparator)))
	for _, k := range append(keptEnv, systemEnv...) {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}
