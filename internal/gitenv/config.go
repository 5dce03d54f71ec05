package gitenv

import (
	"slices"
	"strconv"
	"strings"
)

// A job can hand git configuration through the environment:
// GIT_CONFIG_COUNT with its GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n pairs,
// and GIT_CONFIG_PARAMETERS (what `git -c` hands down). Workflows set
// safe.directory that way, and also credentials: an extraheader with the
// token (to reach private submodules), a url.insteadOf whose URL holds
// it, a credential helper. WithoutCredentials keeps the pairs git reads
// and drops those that can carry a credential (carriesCredential), so
// that the processes ralph-ci starts get the rest and none of those.

// Names of git's configuration variables.
const (
	countVar      = "GIT_CONFIG_COUNT"
	keyPrefix     = "GIT_CONFIG_KEY_"
	valuePrefix   = "GIT_CONFIG_VALUE_"
	parametersVar = "GIT_CONFIG_PARAMETERS"
)

// maxCount bounds the pairs read: a count git reads can be larger, but
// no job hands this many, and the set is withheld whole beyond it.
const maxCount = 1 << 12

// Withheld is what WithoutCredentials kept from a process: one pair, or
// a variable git would not read as given.
type Withheld struct {
	// Var is where it was: GIT_CONFIG_KEY_n, GIT_CONFIG_PARAMETERS, ...
	Var string
	// Key is the pair's key, the user information of its URLs replaced
	// by *** (a log may name it); "" when there is no key.
	Key string
	// Why says what it can carry.
	Why string
	// Secrets are the values to mask in every output (never logged).
	Secrets []string
}

// WithoutCredentials is env (KEY=VALUE, later entries winning as in
// exec) without the configuration pairs that can carry a credential, and
// what it withheld. The pairs kept are renumbered from 0 with
// GIT_CONFIG_COUNT set to their number, and GIT_CONFIG_PARAMETERS
// quoted again as git writes it, so that git reads exactly them. A set
// git would refuse whole (a bad count, a missing pair, a bogus
// GIT_CONFIG_PARAMETERS) is withheld whole, and the pairs beyond
// GIT_CONFIG_COUNT, which git never reads, are withheld too. When
// nothing is withheld env is returned as it is.
func WithoutCredentials(env []string) (kept []string, withheld []Withheld) {
	vars := map[string]string{}
	for _, kv := range env {
		if name, value, _ := strings.Cut(kv, "="); isConfigVar(name) {
			vars[name] = value
		}
	}
	if len(vars) == 0 {
		return env, nil
	}
	pairs, w1 := countPairs(vars)
	params, w2 := parameters(vars)
	withheld = append(w1, w2...)
	if len(withheld) == 0 {
		return env, nil
	}
	kept = make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !isConfigVar(name) {
			kept = append(kept, kv)
		}
	}
	for i, p := range pairs {
		n := strconv.Itoa(i)
		kept = append(kept, keyPrefix+n+"="+p.Key, valuePrefix+n+"="+p.Value)
	}
	if len(pairs) > 0 {
		kept = append(kept, countVar+"="+strconv.Itoa(len(pairs)))
	}
	if params != "" {
		kept = append(kept, parametersVar+"="+params)
	}
	return kept, withheld
}

// isConfigVar tells whether name is one of the variables that hand git
// configuration pairs.
func isConfigVar(name string) bool {
	return name == countVar || name == parametersVar || strings.HasPrefix(name, keyPrefix) || strings.HasPrefix(name, valuePrefix)
}

// countPairs are the pairs of GIT_CONFIG_COUNT that carry no credential,
// in order, and what it withheld.
func countPairs(vars map[string]string) (kept []Pair, withheld []Withheld) {
	count, whole := 0, ""
	if c, ok := vars[countVar]; ok && c != "" { // git reads an empty count as 0
		n, err := strconv.Atoi(c)
		switch {
		case err != nil || n < 0 || n > maxCount:
			whole = "GIT_CONFIG_COUNT is not a count git reads (git refuses the set)"
		default:
			count = n
		}
	}
	for i := 0; i < count && whole == ""; i++ {
		n := strconv.Itoa(i)
		_, hasKey := vars[keyPrefix+n]
		if _, hasValue := vars[valuePrefix+n]; !hasKey || !hasValue {
			whole = "a pair of GIT_CONFIG_COUNT is missing (git refuses the set)"
		}
	}
	if whole != "" {
		count = 0
		withheld = append(withheld, Withheld{Var: countVar, Why: whole})
	}
	for i := range count {
		n := strconv.Itoa(i)
		key, value := vars[keyPrefix+n], vars[valuePrefix+n]
		if why := carriesCredential(key, value); why != "" {
			withheld = append(withheld, Withheld{Var: keyPrefix + n, Key: redactKey(key), Why: why, Secrets: secretsOf(key, value)})
			continue
		}
		kept = append(kept, Pair{Key: key, Value: value})
	}
	// The pairs git does not read: beyond the count, or of a set it refuses.
	var stray []string
	for name := range vars {
		n, isKey := strings.CutPrefix(name, keyPrefix)
		if !isKey {
			var isValue bool
			if n, isValue = strings.CutPrefix(name, valuePrefix); !isValue {
				continue
			}
		}
		if i, err := strconv.Atoi(n); err != nil || i < 0 || i >= count || strconv.Itoa(i) != n {
			if !slices.Contains(stray, n) {
				stray = append(stray, n)
			}
		}
	}
	slices.Sort(stray)
	for _, n := range stray {
		key, value := vars[keyPrefix+n], vars[valuePrefix+n]
		w := Withheld{Var: keyPrefix + n, Key: redactKey(key), Why: "not one of the pairs git reads"}
		if _, ok := vars[keyPrefix+n]; !ok {
			w.Var = valuePrefix + n
		}
		if why := carriesCredential(key, value); why != "" {
			w.Why, w.Secrets = why+", and "+w.Why, secretsOf(key, value)
		}
		withheld = append(withheld, w)
	}
	return kept, withheld
}

// parameters is GIT_CONFIG_PARAMETERS without the pairs that can carry
// a credential (as it was when it has none, quoted again as git writes it
// when it had some; "" for nothing left), and what it withheld (all of
// it when git would refuse it).
func parameters(vars map[string]string) (kept string, withheld []Withheld) {
	raw, ok := vars[parametersVar]
	if !ok {
		return "", nil
	}
	pairs, err := parseParameters(raw)
	if err != nil {
		return "", []Withheld{{Var: parametersVar, Why: "not in the form git reads (git refuses it)", Secrets: []string{raw}}}
	}
	var left []Pair
	for _, p := range pairs {
		if why := carriesCredential(p.Key, p.Value); why != "" {
			withheld = append(withheld, Withheld{Var: parametersVar, Key: redactKey(p.Key), Why: why, Secrets: secretsOf(p.Key, p.Value)})
			continue
		}
		left = append(left, p)
	}
	if len(withheld) == 0 {
		return raw, nil
	}
	return quoteParameters(left), withheld
}
