package agent

import (
	"cmp"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/internal/gitenv"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// Host is how ralph-ci starts every process (agents, judges, reviewers
// and verification commands): the secrets masked in their output, what of
// ralph-ci's environment they do not inherit, and the shepherd that
// contains them. cmd builds it at the door and hands it down (engine
// Options, verify.Input); it is not changed once a process started. A nil
// or zero Host masks nothing, removes only the fixed list, and starts
// processes directly.
type Host struct {
	secrets []string // longest first
	// Remove is the config's environment.remove: removed for every
	// process (see EnvPolicy).
	Remove []string
	// Only, when not nil, is the allow-list of what every process
	// inherits (a fork's run: ForkAllowList).
	Only []string
	// Shepherd is ralph-ci's own executable, which becomes the shepherd
	// when started as shepherd.Name (any binary that links this package
	// does, from internal/shepherd's init); "" for none. It has an effect
	// only where a shepherd can work (Linux).
	Shepherd string
	// Writes, when not nil, is all that a process started through the
	// shepherd may change (Landlock; internal/shepherd.AllowWrites), and
	// its scratch folder (TMPDIR).
	Writes *Writes
	// Keys are the model APIs' keys (KEY=VALUE) ralph-ci took out of its
	// own environment (ModelKey): part of the job's environment for
	// NetworkEnv, and inherited as before where there is no Network.
	Keys []string
	// Declared are the key and base-URL variables the config's agents
	// declare (model_api): like a format's, no process inherits them
	// where there is a Network.
	Declared []string
	// Network, when set, is how every process reaches the network: in
	// its box, through ralph-ci's proxy, which holds the model APIs'
	// keys (see NetworkEnv). Without it a process inherits the keys and
	// connects where it likes (ralph-ci's own tests of other commands).
	Network Network
	// Boxes, when not nil, gives every process a box of its own that the
	// kernel keeps (internal/box), emptied before Run returns.
	Boxes *box.Boxes
	// Killed, when set, is told what emptying a process's box had to
	// kill (the processes that outlived it), naming the command.
	Killed func(command string, killed []box.Proc, err error)
	// User, when not nil, is the user of the agent's own every process
	// runs as (internal/agentuser), with its HOME; the work tree is lent
	// to it before each start.
	User *agentuser.Run
	// GitWithheld are the git configuration pairs of ralph-ci's own
	// environment that no process gets (BuildEnv), found at the door
	// (WithholdGit): a run logs them once.
	GitWithheld []gitenv.Withheld
}

// Clone is a copy of h that changing leaves h as it is (a nil h: a zero
// Host).
func (h *Host) Clone() *Host {
	if h == nil {
		return &Host{}
	}
	c := *h
	c.secrets = slices.Clone(h.secrets)
	return &c
}

// AddSecrets adds values to mask in every output read afterwards.
func (h *Host) AddSecrets(values ...string) {
	for _, v := range values {
		if len(v) >= minSecret && !slices.Contains(h.secrets, v) {
			h.secrets = append(h.secrets, v)
		}
	}
	// Longest first: a secret that contains another is masked whole.
	slices.SortFunc(h.secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
}

// AddEnvironSecrets adds the secrets of ralph-ci's own environment.
func (h *Host) AddEnvironSecrets() { h.AddSecrets(SecretsOf(os.Environ())...) }

// WithholdGit notes the git configuration pairs of environ (ralph-ci's
// own) that BuildEnv keeps from every process (GitWithheld) and masks
// their values in every output read afterwards.
func (h *Host) WithholdGit(environ []string) {
	_, h.GitWithheld = gitenv.WithoutCredentials(environ)
	for _, w := range h.GitWithheld {
		h.AddSecrets(w.Secrets...)
	}
}

// Mask masks the known secrets in s.
func (h *Host) Mask(s string) string {
	for _, v := range h.list() {
		s = strings.ReplaceAll(s, v, Masked)
	}
	return s
}

func (h *Host) list() []string {
	if h == nil {
		return nil
	}
	return h.secrets
}

// policy is the environment policy of a process with the agent's own
// env_pass and env_remove.
func (h *Host) policy(pass, remove []string) EnvPolicy {
	p := EnvPolicy{AgentPass: pass, AgentRemove: remove}
	if h != nil {
		p.Remove, p.Only = h.Remove, h.Only
	}
	return p
}

// prepare is the argv and the environment of the process inv starts:
// BuildEnv's, then, when the host has a Network, NetworkEnv's, with the
// base-URL setting of a CLI that reads no variable for it
// (WithSetting).
func (h *Host) prepare(inv Invocation) (argv, env []string, err error) {
	job := os.Environ()
	if h != nil {
		job = append(job, h.Keys...)
	}
	env = BuildEnv(job, h.policy(inv.Pass, inv.Remove), append(h.scratchEnv(), inv.Env...))
	if h != nil && h.User != nil {
		env = UserEnv(env, inv.Env, h.User.Name, h.User.Home, h.User.Env...)
	}
	if h == nil || h.Network == nil {
		return inv.Argv, env, nil
	}
	api := inv.API
	if api == nil {
		if a, ok := FormatAPI(inv.Format); ok {
			api = &a
		}
	}
	env, base, err := NetworkEnv(env, inv.Env, job, api, h.Network, h.Declared...)
	if err != nil {
		return nil, nil, err
	}
	return WithSetting(inv.Argv, inv.Format, api, base), env, nil
}

// connectOnly is the Network's ConnectOnly, 0 for none.
func (h *Host) connectOnly() int {
	if h == nil || h.Network == nil {
		return 0
	}
	return h.Network.ConnectOnly()
}

// start starts cmd, in the network box when the host has a Network.
func (h *Host) start(cmd *exec.Cmd) error {
	if h == nil || h.Network == nil {
		return cmd.Start()
	}
	return h.Network.Start(cmd)
}

// writes is what a process with the environment env may change (nil:
// anything its user may).
func (h *Host) writes(env []string) []string {
	if h == nil {
		return nil
	}
	return h.Writes.For(env)
}

// TempDir is the folder for the files ralph-ci has a process write for
// it (a test runner's report): the run's scratch folder, which the
// process may write where Landlock holds; "" (the system's) without one.
func (h *Host) TempDir() string {
	if h == nil || h.Writes == nil {
		return ""
	}
	return h.Writes.Scratch
}

// scratchEnv are the variables that name the run's scratch folder.
func (h *Host) scratchEnv() []string {
	if h == nil {
		return nil
	}
	return h.Writes.ScratchEnv()
}

// shepherd is the shepherd executable, "" for none.
func (h *Host) shepherd() string {
	if h == nil || !shepherd.Works {
		return ""
	}
	return h.Shepherd
}

// newBox is the box of a process to start (nil for none).
func (h *Host) newBox() (*box.Box, error) {
	if h == nil {
		return nil, nil
	}
	return h.Boxes.New()
}

// emptied tells Killed what emptying the box of command killed.
func (h *Host) emptied(command string, killed []box.Proc, err error) {
	if h != nil && h.Killed != nil && (len(killed) > 0 || err != nil) {
		h.Killed(command, killed, err)
	}
}
