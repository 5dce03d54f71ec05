package gitenv

import (
	"errors"
	"strings"
)

// Pair is one configuration pair handed to git through the environment:
// GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, or one `git -c key=value` of
// GIT_CONFIG_PARAMETERS. NoValue is a `git -c key` without "=" (a
// boolean true).
type Pair struct {
	Key, Value string
	NoValue    bool
}

// errBogus is git's "bogus format in GIT_CONFIG_PARAMETERS".
var errBogus = errors.New("bogus format: git refuses it")

// parseParameters reads GIT_CONFIG_PARAMETERS as git does (config.c,
// parse_config_env_list): pairs separated by white space, each either
// 'key'='value' (the form git writes since 2.31; 'key'= with nothing
// after it is a key without a value) or the older 'key=value' ('key'
// alone: no value), every part single-quoted the shell's way (a quote
// or an exclamation mark is the quoting closed, the character after a
// backslash and the quoting opened again, as git's sq_quote writes them).
func parseParameters(s string) ([]Pair, error) {
	var out []Pair
	cur := strings.TrimLeft(s, gitSpace)
	for cur != "" {
		key, rest, err := sqDequoteStep(cur)
		if err != nil {
			return nil, err
		}
		switch {
		case rest == "" || strings.ContainsRune(gitSpace, rune(rest[0])): // 'key=value'
			k, v, ok := strings.Cut(key, "=")
			out = append(out, Pair{Key: strings.TrimSpace(k), Value: v, NoValue: !ok})
		case rest[0] == '=': // 'key'='value'
			rest = rest[1:]
			if rest == "" || strings.ContainsRune(gitSpace, rune(rest[0])) {
				out = append(out, Pair{Key: key, NoValue: true})
				break
			}
			var value string
			if value, rest, err = sqDequoteStep(rest); err != nil {
				return nil, err
			}
			if rest != "" && !strings.ContainsRune(gitSpace, rune(rest[0])) {
				return nil, errBogus
			}
			out = append(out, Pair{Key: key, Value: value})
		default:
			return nil, errBogus
		}
		cur = strings.TrimLeft(rest, gitSpace)
	}
	return out, nil
}

// gitSpace are the characters git's isspace takes for white space.
const gitSpace = " \t\n\r"

// sqDequoteStep reads one single-quoted word at the start of s (git's
// sq_dequote_step) and returns it with what follows it.
func sqDequoteStep(s string) (word, rest string, err error) {
	if s == "" || s[0] != '\'' {
		return "", "", errBogus
	}
	var b strings.Builder
	i := 1
	for {
		j := strings.IndexByte(s[i:], '\'')
		if j < 0 {
			return "", "", errBogus // no closing quote
		}
		b.WriteString(s[i : i+j])
		i += j + 1 // past the closing quote
		// '\'' and '\!' go on with the word; anything else ends it.
		if i+2 < len(s) && s[i] == '\\' && (s[i+1] == '\'' || s[i+1] == '!') && s[i+2] == '\'' {
			b.WriteByte(s[i+1])
			i += 3
			continue
		}
		return b.String(), s[i:], nil
	}
}

// quoteParameters writes pairs as git writes GIT_CONFIG_PARAMETERS:
// 'key'='value', or 'key'= for a key without a value, separated by a
// space.
func quoteParameters(pairs []Pair) string {
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		s := sqQuote(p.Key) + "="
		if !p.NoValue {
			s += sqQuote(p.Value)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// sqQuote quotes s the way git's sq_quote_buf does.
func sqQuote(s string) string {
	r := strings.NewReplacer("'", `'\''`, "!", `'\!'`)
	return "'" + r.Replace(s) + "'"
}
