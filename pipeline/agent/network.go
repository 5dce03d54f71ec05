package agent

import (
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ModelAPI says where a CLI reads its model API's key and base URL: a
// format's own (Claude Code's ANTHROPIC_*, Codex's OPENAI_*, …), or what
// a `command` agent declares (model_api in the config).
type ModelAPI struct {
	// Keys are the variables the CLI reads its key from.
	Keys []string
	// BaseURL is the variable it reads the API's base URL from; Upstream
	// is the API's base URL where neither the agent's env nor the job's
	// sets it.
	BaseURL, Upstream string
	// Setting, when set, is the CLI's configuration setting of the base
	// URL, given as `-c SETTING="URL"` after the command's name (Codex
	// reads no base-URL variable: its openai_base_url).
	Setting string
	// Declared tells that the config declared it (model_api): its
	// Upstream is the config's choice, which gets no key of the job's.
	Declared bool
}

// apiHolder is the optional ability of a format whose CLI reads its key
// and base URL from the environment.
type apiHolder interface{ modelAPI() ModelAPI }

// FormatAPI is the model API of the named format's CLI; ok is false for
// a format without one (text).
func FormatAPI(format string) (ModelAPI, bool) {
	f, err := NewFormat(format, io.Discard, io.Discard)
	if err != nil {
		return ModelAPI{}, false
	}
	h, ok := f.(apiHolder)
	if !ok {
		return ModelAPI{}, false
	}
	return h.modelAPI(), true
}

// Network is how the processes ralph-ci starts reach the network: ralph-ci's
// proxy (internal/modelproxy), which holds the model APIs' keys, and the
// box it listens in (internal/netns). pipeline/job builds it for a run.
type Network interface {
	// Route registers the model API at upstream with its keys (variable
	// → key) and returns the base URL a process uses instead and the
	// placeholder it gets for each key.
	Route(upstream string, keys map[string]string) (base string, placeholders map[string]string, err error)
	// Environ are the variables that send a process's other connections
	// through the proxy (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, …).
	Environ() []string
	// Start starts cmd in the network box.
	Start(cmd *exec.Cmd) error
	// ConnectOnly is, where there is no box, the only TCP port a process
	// may connect to (the proxy's; the shepherd keeps it with Landlock),
	// 0 for none.
	ConnectOnly() int
}

// networkVars are what no process inherits where a Network is set,
// besides every model API's keys and base URLs: the job's proxy
// settings (the proxy itself uses them for its upstream connections).
var networkVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"}

// apiVars are the key and base-URL variables of every format's CLI.
func apiVars() []string {
	var vars []string
	for _, name := range FormatNames() {
		if api, ok := FormatAPI(name); ok {
			vars = append(append(vars, api.Keys...), api.BaseURL)
		}
	}
	return vars
}

// ModelKey tells whether name is a variable a format's CLI reads its key
// from: ralph-ci takes those out of its own environment at the door
// (cmd/ralph-ci's seal) and hands them to the proxy (Host.Keys).
func ModelKey(name string) bool {
	for _, f := range FormatNames() {
		if api, ok := FormatAPI(f); ok && slices.Contains(api.Keys, name) {
			return true
		}
	}
	return false
}

// NetworkEnv is env (a process's environment as BuildEnv made it) for a
// process that reaches the network through n: no model API's key or base
// URL, and none of the job's proxy settings; then, for api (the agent's,
// nil for a verification command), its base URL pointing at the proxy's
// route and a placeholder for each key that is set; then n's proxy
// variables. configured is the agent's own env (the config's), job the
// job's environment (ralph-ci's own): the route's upstream and keys come
// from the configured env when it sets the base URL, so that a config
// never sends the job's key to a URL of its choosing; otherwise from the
// job's environment (its base URL, else the vendor's), with a key the
// configured env sets taking precedence over the job's. declared are the
// key and base-URL variables the config's agents declare (model_api): no
// process inherits those either.
//
// base is the route's base URL ("" for none).
func NetworkEnv(env, configured, job []string, api *ModelAPI, n Network, declared ...string) (out []string, base string, err error) {
	drop := append(append(apiVars(), networkVars...), declared...)
	if api != nil {
		drop = append(append(drop, api.Keys...), api.BaseURL)
	}
	out = make([]string, 0, len(env)+8)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, name) {
			out = append(out, kv)
		}
	}
	if api != nil && len(api.Keys) > 0 {
		upstream, keys := apiSource(configured, job, *api)
		if upstream != "" {
			var placeholders map[string]string
			base, placeholders, err = n.Route(upstream, keys)
			if err != nil {
				return nil, "", err
			}
			if api.BaseURL != "" {
				out = append(out, api.BaseURL+"="+base)
			}
			for _, k := range api.Keys {
				if ph, ok := placeholders[k]; ok {
					out = append(out, k+"="+ph)
				}
			}
		}
	}
	return append(out, n.Environ()...), base, nil
}

// WithSetting is argv with api's base-URL setting (ModelAPI.Setting) at
// base, when argv runs the CLI that reads it (its command's name is
// cli) and base is set.
func WithSetting(argv []string, cli string, api *ModelAPI, base string) []string {
	if api == nil || api.Setting == "" || base == "" || len(argv) == 0 || filepath.Base(argv[0]) != cli {
		return argv
	}
	return append([]string{argv[0], "-c", api.Setting + "=" + strconv.Quote(base)}, argv[1:]...)
}

// apiSource is where the proxy sends api's requests and the keys they
// carry (see NetworkEnv). The job's keys go only to a URL the job names
// (its own base-URL variable) or to a format's vendor: never to a URL
// the config chose (a base URL in the agent's env, a declared upstream),
// which gets the keys the config sets and no other.
func apiSource(configured, job []string, api ModelAPI) (upstream string, keys map[string]string) {
	keys = map[string]string{}
	fromJob := true
	switch {
	case api.BaseURL != "" && lookup(configured, api.BaseURL) != "":
		upstream, fromJob = lookup(configured, api.BaseURL), false
	case api.BaseURL != "" && lookup(job, api.BaseURL) != "":
		upstream = lookup(job, api.BaseURL)
	default:
		upstream, fromJob = api.Upstream, !api.Declared
	}
	for _, k := range api.Keys {
		if v := lookup(configured, k); v != "" {
			keys[k] = v
		} else if v := lookup(job, k); v != "" && fromJob {
			keys[k] = v
		}
	}
	return upstream, keys
}

// lookup is the value of name in env (KEY=VALUE entries, the last wins).
func lookup(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
