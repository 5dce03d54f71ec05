package cli

import (
	"os"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// sealedFDVar names the descriptor on which a sealed ralph-ci finds the
// environment entries it moved out of its environment (see seal).
const sealedFDVar = "RALPH_SEALED_FD"

// unsealed reads the entries seal moved out of the environment, and
// closes their descriptor. It returns nil when ralph-ci was not sealed.
func unsealed() map[string]string {
	fd := os.Getenv(sealedFDVar)
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

// getenvWith reads the environment, the sealed entries first.
func getenvWith(sealed map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := sealed[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}

// sealedSecrets are the values of sealed entries that look like secrets.
func sealedSecrets(sealed map[string]string) []string {
	env := make([]string, 0, len(sealed))
	for k, v := range sealed {
		env = append(env, k+"="+v)
	}
	return agent.SecretsOf(env)
}
