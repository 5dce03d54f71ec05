package git

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// subcommand is git's command in args (after the global options).
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// remote tells whether a git command talks to a remote: only those get
// the credential.
func remote(sub string) bool { return sub == "fetch" || sub == "push" || sub == "ls-remote" }

// Credential is an HTTP header ralph-ci's fetch and push send to the URLs
// under URL, as git's http.<URL>.extraheader does.
type Credential struct{ URL, Header string }

var (
	credMu sync.Mutex
	creds  []Credential
)

// UseCredentials makes ralph-ci's fetch and push (and only those) send
// the credentials, given to that one git process through GIT_CONFIG_COUNT/
// KEY/VALUE, never its argv (readable in /proc/PID/cmdline) nor a file.
// None forgets them. A child's environment is readable by processes of
// the same user while it lives: ralph-ci fetches and pushes only while no
// agent or verification command lives (see the package documentation).
func UseCredentials(cs ...Credential) {
	credMu.Lock()
	defer credMu.Unlock()
	creds = nil
	for _, c := range cs {
		if c.URL != "" && c.Header != "" {
			creds = append(creds, c)
		}
	}
}

var pushTo Credential // UsePushURL's

// UsePushURL lets ralph-ci's git push, and no other command, name url: a
// repository besides origin, the fork of a pull request whose owner lets
// maintainers push to it. That push alone sends header (the push token's),
// to url alone: none of UseCredentials' goes with it. url must be http or
// https (a header is HTTP's); "" forgets it.
func UsePushURL(url, header string) error {
	credMu.Lock()
	defer credMu.Unlock()
	pushTo = Credential{}
	if url == "" {
		return nil
	}
	if s := urlScheme(url); (s != "https" && s != "http") || header == "" || strings.ContainsAny(header, "\n\x00") {
		return fmt.Errorf("push to %q: want an http(s) URL and a credential", url)
	}
	pushTo = Credential{URL: url, Header: header}
	return nil
}

// pushURLEnv is the environment of a push to UsePushURL's URL: its
// transport allowed, its header only (an empty extraheader first clears
// any other); nil when the command is not that push.
func pushURLEnv(sub, url string) []string {
	credMu.Lock()
	defer credMu.Unlock()
	if sub != "push" || pushTo.URL == "" || url != pushTo.URL {
		return nil
	}
	key := "http." + pushTo.URL + ".extraheader"
	return []string{"GIT_CONFIG_KEY_0=protocol." + urlScheme(url) + ".allow", "GIT_CONFIG_VALUE_0=always",
		"GIT_CONFIG_KEY_1=" + key, "GIT_CONFIG_VALUE_1=", "GIT_CONFIG_KEY_2=" + key, "GIT_CONFIG_VALUE_2=" + pushTo.Header, "GIT_CONFIG_COUNT=3"}
}

// credentialEnv is the environment giving a remote command the
// credentials.
func credentialEnv() []string {
	credMu.Lock()
	defer credMu.Unlock()
	if len(creds) == 0 {
		return nil
	}
	var env []string
	for i, c := range creds {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"=http."+strings.TrimSuffix(c.URL, "/")+"/.extraheader", "GIT_CONFIG_VALUE_"+n+"="+c.Header)
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(creds)))
}

// Open pins ralph-ci's view of the checkout around dir: its own git
// directory is made, and origin's URL and the repository's settings are
// read from the checkout's configuration, as data, now and never again.
// Call it at start, before any agent runs; the first git command in a
// checkout does it otherwise.
func Open(dir string) (Checkout, error) {
	c, err := Find(dir)
	if err != nil {
		return c, err
	}
	_, err = privateFor(c)
	return c, err
}

// setup is the environment of one command run in dir, and what to do
// when it is done: ralph-ci's git directory for the checkout (its HEAD
// made the checkout's first), the checkout's work tree, index and object
// store; for fetch and push of origin, the credential.
func setup(dir string, args []string) (env []string, done func() error, err error) {
	c, err := Find(dir)
	if err != nil {
		return nil, nil, err
	}
	sub := subcommand(args)
	var toFork []string // the environment of a push to the fork (UsePushURL)
	if remote(sub) {
		name := remoteName(args)
		if name != "origin" {
			if toFork = pushURLEnv(sub, name); toFork == nil {
				return nil, nil, fmt.Errorf("ralph-ci talks to origin only (and pushes to the fork it was given), not %q", name)
			}
		}
	}
	p, err := privateFor(c)
	if err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	swept := p.busy == 0
	epoch, still := calm()
	// Nothing but ralph-ci's git ran since the directory and the checkout
	// were last swept and checked: they are as it left them (see
	// Untrusted).
	quiet := swept && still && p.quietKnown && p.quiet == epoch
	if swept && !quiet {
		if err := p.record(); err != nil {
			return nil, nil, fmt.Errorf("record ralph-ci's own git directory %s: %w", p.dir, err)
		}
		if err := p.left.sweep(p.dir); err != nil {
			return nil, nil, fmt.Errorf("sweep ralph-ci's own git directory %s: %w", p.dir, err)
		}
		sweeps.Add(1)
	}
	if !quiet {
		if err := p.guard(c, swept); err != nil {
			return nil, nil, err
		}
	}
	p.quiet, p.quietKnown = epoch, still && (swept || p.quietKnown && p.quiet == epoch)
	if err := p.syncIn(c); err != nil {
		return nil, nil, err
	}
	writes := sub != "cat-file" // cat-file --batch may stay open while other commands run
	if writes {
		p.busy++
	}
	env = append(baseEnv(), "GIT_DIR="+p.dir, "GIT_WORK_TREE="+c.Top, "GIT_OBJECT_DIRECTORY="+c.Objects(), "GIT_INDEX_FILE="+c.Index())
	switch {
	case toFork != nil:
		env = append(env, toFork...)
	case remote(sub):
		env = append(env, credentialEnv()...)
	}
	return env, func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		var err error
		if !keepsHead(sub) {
			err = p.syncOut(c)
		}
		if writes {
			p.busy--
		}
		if p.busy == 0 {
			if epoch, still := calm(); still && p.quietKnown && p.quiet == epoch {
				p.stale = true // recorded when needed: see Untrusted
				return err
			}
			p.quietKnown = false
			l, rerr := scan(p.dir, p.left)
			if rerr == nil {
				p.left, p.stale = l, false
			}
			err = errors.Join(err, rerr)
		}
		return err
	}, nil
}

// keepsHead tells whether git's command sub never moves HEAD, its branch
// or the shallow list: after it, syncOut has nothing to give the
// checkout. These are the commands of a delivery rotation but its commit
// (status, add, push), and the read-only ones ralph-ci runs; three of four
// syncOuts a rotation, each reading two git directories' HEAD, branch and
// shallow list (0.5 ms a rotation, bench/delivery.sh under perf).
func keepsHead(sub string) bool {
	switch sub {
	case "status", "add", "push", "ls-remote", "diff", "ls-files", "ls-tree", "rev-parse", "rev-list", "log", "show",
		"cat-file", "hash-object", "write-tree", "commit-tree", "for-each-ref":
		return true
	}
	return false
}

// remoteName is the remote a fetch, push or ls-remote names: its first
// argument after the options.
func remoteName(args []string) string {
	sub := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !sub && (a == "-c" || a == "-C"):
			i++
		case strings.HasPrefix(a, "-"):
		case !sub:
			sub = true
		default:
			return a
		}
	}
	return ""
}

// CheckoutConfig runs git config with args on the checkout's own
// configuration (its .git/config and the files it includes), as data:
// git config runs no program. It is how ralph-ci finds and hides the
// credential actions/checkout persisted there; nothing else runs git on
// the checkout's git directory.
func CheckoutConfig(ctx context.Context, dir string, args ...string) ([]byte, error) {
	args = append([]string{"config"}, args...)
	c, err := Find(dir)
	if err != nil {
		return nil, &Error{Args: args, Stderr: "fatal: not a git repository", Err: err}
	}
	bin, err := binary()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	env := append(baseEnv(), "GIT_DIR="+c.GitDir, "GIT_WORK_TREE="+c.Top)
	return runPlain(ctx, bin, dir, env, args...)
}
