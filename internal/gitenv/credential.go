package gitenv

import (
	"encoding/base64"
	"strings"
)

// A configuration pair carries a credential when git sends, runs or reads
// a secret through it (git help config). carriesCredential says which
// and why; the rest (safe.directory, user.name, core.autocrlf, ...) is
// no secret.
//
// By key (section and variable name case-insensitive, any subsection):
//   - http.extraHeader: a header git sends (actions/checkout's
//     "AUTHORIZATION: basic ..." for the token);
//   - http.cookieFile, http.sslKey, http.sslCert, http.proxySSLKey,
//     http.proxySSLCert: a file of cookies or a client key git sends;
//   - credential.*: a credential helper (an inline script can hold the
//     token) and its settings;
//   - core.askPass, core.sshCommand, core.gitProxy: a program git runs
//     to get a password or to connect (it can name a key file or carry
//     one);
//   - include.path, includeIf.*.path: a file git reads configuration
//     from, which can hold any of the above;
//   - sendemail.smtpPass (and sendemail.*.smtpPass), imap.pass: a
//     password.
//
// By content, whatever the key: a URL with a user name (or a password)
// in the key's subsection or in the value (url.<base>.insteadOf whose
// base is https://x-access-token:TOKEN@github.com/, remote.*.url,
// submodule.*.url, http.proxy with a password), or an HTTP Authorization
// header in the value (an alias or helper that sends one).
var credentialKeys = map[string]string{
	"http.extraheader":   "an HTTP header git sends (it carries a token)",
	"http.cookiefile":    "a file of cookies git sends",
	"http.sslkey":        "a client key git sends",
	"http.sslcert":       "a client certificate git sends",
	"http.proxysslkey":   "a client key git sends",
	"http.proxysslcert":  "a client certificate git sends",
	"core.askpass":       "a program git asks for a password",
	"core.sshcommand":    "the SSH command git runs (it can carry or name a key)",
	"core.gitproxy":      "a program git connects through",
	"include.path":       "a file git reads configuration from (it can hold a credential)",
	"includeif.path":     "a file git reads configuration from (it can hold a credential)",
	"sendemail.smtppass": "a password",
	"imap.pass":          "a password",
}

// Why a pair was withheld, beyond credentialKeys.
const (
	whyCredential    = "a credential helper or its settings"
	whyUserinfo      = "a URL with a user name or password"
	whyAuthorization = "an HTTP Authorization header"
)

// carriesCredential tells why the pair key=value can carry a credential
// ("" when it cannot).
func carriesCredential(key, value string) string {
	section, sub, name := splitKey(key)
	switch {
	case section == "credential":
		return whyCredential
	case credentialKeys[section+"."+name] != "":
		return credentialKeys[section+"."+name]
	case len(userinfos(sub)) > 0 || len(userinfos(value)) > 0:
		return whyUserinfo
	case strings.Contains(strings.ToLower(value), "authorization:"):
		return whyAuthorization
	}
	return ""
}

// splitKey splits a configuration key into its section, subsection and
// variable name, the section and the name in lower case (git's keys:
// section.name or section.subsection.name, the subsection holding any
// character, dots too).
func splitKey(key string) (section, sub, name string) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key), "", ""
	}
	section, name = strings.ToLower(key[:first]), strings.ToLower(key[last+1:])
	if first < last {
		sub = key[first+1 : last]
	}
	return section, sub, name
}

// userinfos are the user-information parts (user, user:password) of the
// URLs in s that carry one that can be a secret: any with a password,
// and any user name of a scheme that takes a token for one (https://TOKEN@host
// works with GitHub); ssh://git@host/ is no secret.
func userinfos(s string) []string {
	var out []string
	for rest := s; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return out
		}
		scheme := strings.ToLower(rest[strings.LastIndexFunc(rest[:i], notSchemeChar)+1 : i])
		rest = rest[i+3:]
		authority := rest[:strings.IndexFunc(rest+"/", endsAuthority)]
		at := strings.LastIndexByte(authority, '@')
		if at < 0 {
			continue
		}
		info := authority[:at]
		if strings.Contains(info, ":") || (scheme != "ssh" && scheme != "git+ssh" && scheme != "ssh+git") {
			out = append(out, info)
		}
	}
}

func notSchemeChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
}

func endsAuthority(r rune) bool {
	return r == '/' || r == '?' || r == '#' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\''
}

// redactKey is key with the user information of its URLs replaced by
// "***": what a log may name.
func redactKey(key string) string {
	for _, info := range userinfos(key) {
		key = strings.ReplaceAll(key, info+"@", "***@")
	}
	return key
}

// secretsOf are the parts of a withheld pair to mask in every output: the
// value, the user information of its URLs and their passwords, an
// Authorization header's credential (and, for basic, its password), and
// the words of the value that look like a token (an inline helper's
// "password=ghs_...").
func secretsOf(key, value string) []string {
	out := []string{value}
	for _, w := range strings.FieldsFunc(value, notTokenChar) {
		if len(w) >= 16 && strings.ContainsAny(w, "0123456789") && strings.ContainsFunc(w, isLetter) {
			out = append(out, w)
		}
	}
	for _, info := range append(userinfos(key), userinfos(value)...) {
		out = append(out, info)
		if _, pass, ok := strings.Cut(info, ":"); ok {
			out = append(out, pass)
		}
	}
	lower := strings.ToLower(value)
	if i := strings.Index(lower, "authorization:"); i >= 0 {
		fields := strings.Fields(value[i+len("authorization:"):])
		if len(fields) >= 2 {
			cred := strings.Trim(fields[1], `'"`)
			out = append(out, cred)
			if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
				if _, pass, ok := strings.Cut(string(raw), ":"); ok {
					out = append(out, pass)
				}
			}
		}
	}
	return out
}

// notTokenChar tells whether r cannot be part of a token (tokens, keys
// and base64 are made of letters, digits and _-+/. and a padding =,
// which a masked token without it leaves as it is).
func notTokenChar(r rune) bool {
	return !(isLetter(r) || r >= '0' && r <= '9' || strings.ContainsRune("_-+/.", r))
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
